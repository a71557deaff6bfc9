// What a dashboard refresh costs the daemon: the four lists a page at a time, nothing per row; a
// row's extras (sparkline results, last registration check) only for the rows on screen, and a
// config's results again only when its last check moved.
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { apiSource } from '../../src/tui/index.js';
import { nextRefreshMs } from '../../src/tui/StatusApp.js';

t.setTimeout(120_000);

t.test('a refresh reads the lists in pages; extras only for the rows asked for', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  await s.app.probing.stop(0);
  const token = await s.token('ops');
  const api = client(s.url, token);
  const teamId = (await api.post('/api/v1/auth')).body.team_id as string;
  const domains = (
    await api.post('/api/v1/domains/bulk', {
      domains: Array.from({ length: 30 }, (_, i) => ({ domain: `d${i}.example.com` })),
    })
  ).body.domains;
  // 30 domains x 10 endpoints, each with a liveness configuration: 330 rows.
  const created = await api.post('/api/v1/endpoints/bulk', {
    endpoints: Array.from({ length: 300 }, (_, i) => ({
      domain_id: domains[i % 30].id,
      name: `e${i}`,
      endpoint_type: 'http',
      path: `/${i}`,
      liveness: {},
    })),
  });
  t.equal(created.body.created, 300);

  const seen: string[] = [];
  const source = apiSource((m, p) => {
    seen.push(p);
    return request(s.url, m, p, { token });
  });
  const snap = await source.load();
  const pages = (n: number) => Math.ceil(n / 100);
  t.equal(seen.length, pages(30) + pages(300) * 3, 'the four lists, 100 a page, nothing per row');
  t.notOk(seen.some((p) => p.includes('/results') || p.includes('/status?') || /domains\/[^/]+\/status/.test(p)));
  t.equal(snap.domains.length, 30);
  t.equal(snap.domains.flatMap((d) => d.endpoints).length, 300);
  t.ok(
    snap.domains.every((d) => d.health === 'unknown' && d.lastCheck === null),
    'health from the list; last check not read yet',
  );

  // A probe result for one endpoint on screen.
  const row = snap.domains[0]!.endpoints[0]!;
  const config = await s.app.services.liveness.get(teamId, row.livenessId!);
  const endpoint = await s.app.services.endpoints.get(teamId, row.id);
  await s.app.services.monitor.record([
    {
      config,
      endpoint,
      at: Date.now() - 1000,
      outcome: { ok: true, responseTimeMs: 42, statusCode: 200, error: null },
    },
  ]);

  const fresh = await source.load();
  const screen = [fresh.domains[0]!, ...fresh.domains[0]!.endpoints.slice(0, 4)];
  seen.length = 0;
  const shown = await source.details(fresh, screen);
  t.equal(seen.filter((p) => p.includes('/results')).length, 4, 'results of the 4 endpoint rows on screen');
  t.equal(seen.filter((p) => /domains\/[^/]+\/status/.test(p)).length, 1, "the one domain row's status");
  const first = shown.domains[0]!.endpoints.find((e) => e.id === row.id)!;
  t.same(first.recent, [{ ms: 42, ok: true }], 'the sparkline holds the result');
  t.same(shown.domains[1]!.endpoints[0]!.recent, [], 'rows off screen read nothing');

  seen.length = 0;
  await source.details(fresh, screen);
  t.equal(seen.length, 0, 'the same rows again, nothing moved: no request');

  await s.app.services.monitor.record([
    { config, endpoint, at: Date.now(), outcome: { ok: false, responseTimeMs: 5, statusCode: 503, error: 'HTTP 503' } },
  ]);
  const later = await source.load();
  seen.length = 0;
  const again = await source.details(later, [later.domains[0]!, ...later.domains[0]!.endpoints.slice(0, 4)]);
  t.same(
    seen.filter((p) => p.includes('/results')).map((p) => p.split('/')[4]),
    [row.livenessId],
    'only the config whose last check moved',
  );
  t.same(
    again.domains[0]!.endpoints.find((e) => e.id === row.id)!.recent.map((r) => r.ok),
    [true, false],
  );
});

t.test('a small fleet gets every extra in load() (--once, --json)', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  await s.app.probing.stop(0);
  const token = await s.token('ops');
  const api = client(s.url, token);
  const d = (await api.post('/api/v1/domains', { domain: 'small.example.com' })).body;
  await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'w', endpoint_type: 'http', liveness: {} });
  const seen: string[] = [];
  await apiSource((m, p) => {
    seen.push(p);
    return request(s.url, m, p, { token });
  }).load();
  t.equal(seen.filter((p) => p.includes('/results')).length, 1);
  t.equal(seen.filter((p) => /domains\/[^/]+\/status/.test(p)).length, 1);
});

t.test('the next full refresh waits at least ten times the last one', async (t) => {
  t.equal(nextRefreshMs(5000, 100), 5000);
  t.equal(nextRefreshMs(5000, 2000), 20_000);
});
