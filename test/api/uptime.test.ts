// Uptime of one endpoint over 24 h, 7 d and 30 d (GET /api/v1/endpoints/:id/status and the User API
// twin): real checks against a loopback target today (some failing), plus results of 3, 10, 25 and 40
// days ago written through the store's aggregate path; each percentage against its own count.
import t from 'tap';
import { client } from '../support/app.js';
import { startLoopbackApp } from '../support/targets.js';
import { waitFor } from '../support/wait.js';
import { DEFAULT_REGION } from '../../src/domain/liveness.js';

t.setTimeout(90_000);

const DAY = 86_400_000;
const pct = (ok: number, total: number) => Math.round((ok / total) * 100 * 100) / 100;

t.test('uptime 24 h / 7 d / 30 d from the hourly and daily aggregates', async (t) => {
  const { s, target } = await startLoopbackApp(t);
  const a = client(s.url, await s.token('alpha'));
  const d = (await a.post('/api/v1/domains', { domain: 'uptime.example' })).body;
  const ep = (
    await a.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'http', port: target.port })
  ).body;
  const status = async () => (await a.get(`/api/v1/endpoints/${ep.id}/status`)).body;
  t.same((await status()).liveness.uptime_30d, null, 'no liveness configuration: null');

  const cfg = (await a.post('/api/v1/liveness', { endpoint_id: ep.id, timeout_seconds: 1, interval_seconds: 1 })).body;
  const results = async () => (await a.get(`/api/v1/liveness/${cfg.id}/results?limit=100`)).body;
  await waitFor(async () => (await results()).total >= 2, 15_000);
  target.behave({ kind: 'status', code: 500 });
  await waitFor(async () => (await results()).data.some((r: any) => !r.is_successful), 15_000);
  t.equal((await a.put(`/api/v1/liveness/${cfg.id}`, { is_enabled: false })).status, 200);
  await s.app.probing.liveness.flush();
  const raw = await results();
  const today = { total: raw.total as number, ok: raw.data.filter((r: any) => r.is_successful).length as number };
  t.ok(today.ok >= 2 && today.ok < today.total, `${today.ok} of ${today.total} checks today succeeded`);

  // Older days, through the same write path the probes use (raw rows and both aggregates).
  const seq = (await s.app.store.liveness.byId(cfg.id))!.seq;
  const now = Date.now();
  const past = [
    { daysAgo: 3, ok: 2, fail: 0 },
    { daysAgo: 10, ok: 1, fail: 3 },
    // All failures: the 30-day figure cannot tie the 7-day one for any plausible count of today's
    // checks (with 4 successes it did at 3 of 6).
    { daysAgo: 25, ok: 0, fail: 6 },
    { daysAgo: 40, ok: 0, fail: 5 },
  ];
  await s.app.store.transaction(async (tx) => {
    for (const p of past)
      for (let i = 0; i < p.ok + p.fail; i++) {
        const ts = now - p.daysAgo * DAY + i * 1000;
        await tx.livenessData.addResult({
          cfg: seq,
          ts,
          ok: i < p.ok,
          ms: 30,
          status: i < p.ok ? 200 : 500,
          error: null,
          region: DEFAULT_REGION,
        });
      }
  });
  const within = (days: number) => past.filter((p) => p.daysAgo < days);
  const sum = (days: number) =>
    within(days).reduce((x, p) => ({ ok: x.ok + p.ok, total: x.total + p.ok + p.fail }), today);
  const l = (await status()).liveness;
  t.equal(l.uptime_24h, pct(today.ok, today.total), '24 h: today’s real checks');
  t.equal(l.uptime_7d, pct(sum(7).ok, sum(7).total), '7 d: today and 3 days ago');
  t.equal(l.uptime_30d, pct(sum(30).ok, sum(30).total), '30 d: also 10 and 25 days ago, not 40');
  t.not(l.uptime_30d, l.uptime_7d);
  t.same((await a.get(`/api-endpoint-status/${ep.id}`)).body.liveness, l, 'the User API twin answers the same');
});
