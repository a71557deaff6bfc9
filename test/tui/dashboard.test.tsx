// The Ink dashboard rendered with ink-testing-library over data read from the real app's API.
import React from 'react';
import { stripVTControlCharacters as strip } from 'node:util';
import t from 'tap';
import { render } from 'ink-testing-library';
import { client, request, startApp } from '../support/app.js';
import { apiSource, Dashboard, sparkline, StatusApp, visibleRows, type Snapshot } from '../../src/tui/index.js';

const tick = (ms = 60) => new Promise((r) => setTimeout(r, ms));
/** Waits until the last frame satisfies `pred` (renders are asynchronous). */
async function frameWhere(last: () => string | undefined, pred: (f: string) => boolean, ms = 20_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const f = strip(last() ?? '');
    if (pred(f) || Date.now() > end) return f;
    await tick(20);
  }
}

async function seeded(t: { teardown(fn: () => unknown): void }) {
  // An API node runs no scheduler: the results below are the only ones (a real first check of the
  // new config would add a sixth, failed result at an unknown moment).
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000', DOMMON_ROLE: 'api' });
  t.teardown(() => s.close());
  const token = await s.token('ops');
  const api = client(s.url, token);
  const teamId = (await api.post('/api/v1/auth')).body.team_id as string;
  const alpha = (await api.post('/api/v1/domains', { domain: 'alpha.com' })).body;
  await api.post('/api/v1/domains', { domain: 'beta.org', expiry_date: '2099-01-01' });
  const gamma = (await api.post('/api/v1/domains', { domain: 'gamma.net' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', { domain_id: alpha.id, name: 'api', endpoint_type: 'https', subdomain: 'api' })
  ).body;
  await api.post('/api/v1/endpoints', { domain_id: gamma.id, name: 'www', endpoint_type: 'http', subdomain: 'www' });
  const cfg = (await api.post('/api/v1/liveness', { endpoint_id: ep.id })).body;
  // five probe results: four up with rising times, then one failure (down with threshold 1)
  const config = await s.app.services.liveness.get(teamId, cfg.id);
  const endpoint = await s.app.services.endpoints.get(teamId, ep.id);
  const now = Date.now();
  await s.app.services.monitor.record(
    [100, 200, 300, 400, 0].map((ms, i) => ({
      config,
      endpoint,
      at: now - (5 - i) * 60_000,
      outcome: { ok: ms > 0, responseTimeMs: ms || 50, statusCode: ms ? 200 : 503, error: ms ? null : 'HTTP 503' },
    })),
  );
  const source = apiSource((m, p) => request(s.url, m, p, { token }));
  return { s, api, source, alpha, gamma };
}

t.test('sparkline and row order are pure', async (t) => {
  t.equal(
    sparkline([
      { ms: 10, ok: true },
      { ms: 20, ok: true },
      { ms: 30, ok: false },
    ]),
    '▁█×',
  );
  t.equal(
    sparkline([
      { ms: 5, ok: true },
      { ms: 5, ok: true },
    ]),
    '▁▁',
  );
  t.equal(sparkline([]), '');
  const snap: Snapshot = {
    at: '2026-01-01T00:00:00.000Z',
    domains: [
      {
        kind: 'domain',
        id: '1',
        name: 'b.com',
        verified: false,
        grade: null,
        score: null,
        health: 'healthy',
        expiryDate: null,
        expiryDays: 400,
        registrar: null,
        ssl: null,
        sslDays: null,
        lastCheck: null,
        endpoints: [],
      },
      {
        kind: 'domain',
        id: '2',
        name: 'a.com',
        verified: false,
        grade: null,
        score: null,
        health: 'critical',
        expiryDate: null,
        expiryDays: 3,
        registrar: null,
        ssl: null,
        sslDays: null,
        lastCheck: null,
        endpoints: [],
      },
    ],
  };
  t.same(
    visibleRows(snap, '', 'name').map((r) => r.name),
    ['a.com', 'b.com'],
  );
  t.same(
    visibleRows(snap, '', 'health').map((r) => r.name),
    ['a.com', 'b.com'],
  );
  t.same(
    visibleRows(snap, 'b.', 'expiry').map((r) => r.name),
    ['b.com'],
  );
});

t.test('dashboard frames over API data: rows, keys move, filter, sort, detail, quit', async (t) => {
  const { source } = await seeded(t);
  const snapshot = await source.load();
  t.same(snapshot.domains.map((d) => d.name).sort(), ['alpha.com', 'beta.org', 'gamma.net']);
  const alphaApi = snapshot.domains.find((d) => d.name === 'alpha.com')!.endpoints[0]!;
  t.equal(alphaApi.liveness, 'down');
  t.same(
    alphaApi.recent.map((r) => r.ok),
    [true, true, true, true, false],
    'results oldest first',
  );
  t.same(
    alphaApi.recent.slice(0, 4).map((r) => r.ms),
    [100, 200, 300, 400],
  );

  let quit = 0;
  const ui = render(<Dashboard snapshot={snapshot} now={new Date(snapshot.at)} color={false} onQuit={() => quit++} />);
  t.teardown(() => ui.unmount());
  let f = await frameWhere(ui.lastFrame, (x) => x.includes('gamma.net'));
  t.match(f, /3 domain\(s\), 2 endpoint\(s\) {2}0 up {2}1 down/);
  t.match(f, /^> alpha\.com\s+critical/m, 'first row selected');
  t.match(
    f,
    /^ {4}api https:\/\/api\.alpha\.com\/\s+critical\s+-\s+down\s+▁▃▆█× fail\s+\d+m ago/m,
    'endpoint row: liveness, sparkline, last check',
  );
  // beta.org's manual expiry_date is a health input: its health is stored with the domain at once (healthy,
  // A); once its DNS checks have failed against the offline resolver it may be a warning with a lower grade.
  t.match(f, /^ {2}beta\.org\s+(healthy|warning)\s+[A-C]\s+\d+d\s+-/m, 'expiry in days; unfilled fields are -');
  t.match(f, /^ {4}www http:\/\/www\.gamma\.net\/\s+unknown\s+-\s+-\s+-/m);

  ui.stdin.write('j');
  f = await frameWhere(ui.lastFrame, (x) => /^> {3}api/m.test(x));
  t.match(f, /^> {3}api https/m, 'j moves down');
  ui.stdin.write('\u001B[B');
  f = await frameWhere(ui.lastFrame, (x) => /^> beta\.org/m.test(x));
  t.match(f, /^> beta\.org/m, 'arrow down moves down');
  ui.stdin.write('k');
  f = await frameWhere(ui.lastFrame, (x) => /^> {3}api/m.test(x));
  t.match(f, /^> {3}api/m, 'k moves up');

  ui.stdin.write('\r');
  f = await frameWhere(ui.lastFrame, (x) => x.includes('uptime 24h'));
  t.match(f, /endpoint\s+api \(https\)/, 'Enter opens the detail');
  t.match(f, /liveness\s+down/);
  t.match(f, /recent\s+▁▃▆█×/);
  ui.stdin.write('\u001B');
  f = await frameWhere(ui.lastFrame, (x) => x.includes('NAME'));
  t.match(f, /NAME\s+HEALTH/, 'Esc goes back to the list');

  ui.stdin.write('/');
  await tick();
  for (const ch of 'gam') {
    ui.stdin.write(ch);
    await tick(20);
  }
  f = await frameWhere(ui.lastFrame, (x) => x.includes('filter: gam') && !x.includes('alpha.com'));
  t.match(f, /filter: gam_/);
  t.notMatch(f, /alpha\.com|beta\.org/, 'filter hides rows that do not match');
  t.match(f, /^> gamma\.net/m, 'selection moves to the first match');
  t.match(f, /www http:\/\/www\.gamma\.net/, 'a matching domain keeps its endpoints');
  ui.stdin.write('\r');
  await tick();
  ui.stdin.write('j');
  f = await frameWhere(ui.lastFrame, (x) => /^> {3}www/m.test(x));
  t.match(f, /^> {3}www/m, 'keys move again after Enter ends the filter input');
  ui.stdin.write('\u001B');
  f = await frameWhere(ui.lastFrame, (x) => x.includes('alpha.com'));
  t.notMatch(f, /filter:/, 'Esc clears the filter');

  ui.stdin.write('s');
  f = await frameWhere(ui.lastFrame, (x) => x.includes('sort: expiry'));
  t.match(f, /sort: expiry/);
  ui.stdin.write('s');
  f = await frameWhere(ui.lastFrame, (x) => x.includes('sort: health'));
  const order = [...f.matchAll(/^[> ] (\S+\.(?:com|org|net))/gm)].map((m) => m[1]);
  t.equal(order[0], 'alpha.com', 'health sort puts critical first');
  t.same([...order].sort(), ['alpha.com', 'beta.org', 'gamma.net'], 'every domain still listed');

  ui.stdin.write('q');
  for (let i = 0; i < 100 && !quit; i++) await tick(20);
  t.equal(quit, 1, 'q quits');
});

t.test('StatusApp refreshes live from the source', async (t) => {
  const { api, source } = await seeded(t);
  const ui = render(<StatusApp source={source} intervalMs={150} color={false} />);
  t.teardown(() => ui.unmount());
  let f = await frameWhere(ui.lastFrame, (x) => x.includes('gamma.net'));
  t.match(f, /3 domain\(s\)/);
  await api.post('/api/v1/domains', { domain: 'delta.io' });
  f = await frameWhere(ui.lastFrame, (x) => x.includes('delta.io'));
  t.match(f, /4 domain\(s\)/, 'a new domain shows up on the next refresh');
  t.match(f, /^ {2}delta\.io/m);
});
