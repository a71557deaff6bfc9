// A result's numbers of its own type (an icmp check's packets, loss and round trips) are stored with
// it and read back by the results list, on each store; a result without any (an http check's) reads
// back without the key.
import t from 'tap';
import { ENGINES, openEngineStore } from '../support/probing.js';

t.setTimeout(120_000);

const stats = {
  packets_sent: 3,
  packets_received: 2,
  loss_percent: 33.33,
  rtt_min_ms: 0.025,
  rtt_avg_ms: 0.041,
  rtt_max_ms: 0.062,
  rtt_mdev_ms: 0.015,
};

for (const engine of ENGINES) {
  t.test(`${engine}: icmp numbers kept with the result`, async (t) => {
    const s = await openEngineStore(engine);
    t.teardown(() => s.close());
    const d = await s.services.domains.create(s.teamId, { domain: 'example.com' });
    const ep = await s.services.endpoints.create(s.teamId, { domain_id: d.id, name: 'gw', endpoint_type: 'icmp' });
    const web = await s.services.endpoints.create(s.teamId, { domain_id: d.id, name: 'web', endpoint_type: 'http' });
    const cfg = await s.services.liveness.create(s.teamId, { endpoint_id: ep.id });
    const webCfg = await s.services.liveness.create(s.teamId, { endpoint_id: web.id });
    const targets = new Map((await s.services.monitor.targets()).map((x) => [x.config.id, x]));
    const now = Date.now();
    await s.services.monitor.record([
      {
        ...targets.get(cfg.id)!,
        at: now - 2000,
        outcome: { ok: true, responseTimeMs: 0, statusCode: null, error: null, detail: { icmp: stats } },
      },
      {
        ...targets.get(cfg.id)!,
        at: now - 1000,
        outcome: {
          ok: false,
          responseTimeMs: 1003,
          statusCode: null,
          error: 'timeout: no echo reply from 127.0.0.1 (3 sent)',
          detail: {
            icmp: {
              ...stats,
              packets_received: 0,
              loss_percent: 100,
              rtt_min_ms: null,
              rtt_avg_ms: null,
              rtt_max_ms: null,
              rtt_mdev_ms: null,
            },
          },
        },
      },
      {
        ...targets.get(webCfg.id)!,
        at: now - 1000,
        outcome: { ok: true, responseTimeMs: 4, statusCode: 200, error: null },
      },
    ]);
    const page = await s.services.monitor.results(s.teamId, cfg.id, { hours: 1, limit: 10, offset: 0 });
    t.equal(page.total, 2);
    t.same(
      page.items.map((r) => (r as { icmp?: unknown }).icmp),
      [
        {
          ...stats,
          packets_received: 0,
          loss_percent: 100,
          rtt_min_ms: null,
          rtt_avg_ms: null,
          rtt_max_ms: null,
          rtt_mdev_ms: null,
        },
        stats,
      ],
      'newest first, each with its own numbers',
    );
    const plain = await s.services.monitor.results(s.teamId, webCfg.id, { hours: 1, limit: 10, offset: 0 });
    t.equal(plain.items.length, 1);
    t.notOk('icmp' in plain.items[0]!, 'an http result has no icmp numbers');
  });
}
