// The dashboard's aggregate reads over real HTTP: GET /api/v1/home (every domain and endpoint of a
// team in one list: states, the failure in words, heartbeat checks, days left, filters, natural sort,
// groups, paging, another team's rows never seen), GET /api/v1/endpoints/:id/incidents (an outage,
// its recovery, how long it lasted and the notifications made for it), the live feed GET /ui/live
// (a real HTTP client reading the stream sees a change made through the API, named by row when the
// rows were already there, another team's stream does not; bounded per session; the app stops at once with a stream open), and the dashboard
// session's own rate-limit budget. test/pg/api-home.test.ts runs it on PostgreSQL.
import t from 'tap';
import { client, startApp, type TestApp } from '../support/app.js';
import { runningClock } from '../support/clock.js';

t.setTimeout(120_000);

const DAY = 86_400_000;

async function signIn(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/ui/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (res.status !== 201) throw new Error(`sign-in answered ${res.status}`);
  await res.text();
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** An open /ui/live stream: its events as they arrive. */
async function openStream(url: string, cookie: string) {
  const ac = new AbortController();
  const res = await fetch(`${url}/ui/live`, { headers: { cookie }, signal: ac.signal });
  const events: string[] = [];
  /** Each event's data, in the same order. */
  const data: string[] = [];
  let ended = false;
  let buf = '';
  const status = res.status;
  const type = res.headers.get('content-type');
  const reading =
    status === 200
      ? (async () => {
          const dec = new TextDecoder();
          try {
            for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
              buf += dec.decode(chunk, { stream: true });
              let i;
              while ((i = buf.indexOf('\n\n')) >= 0) {
                const block = buf.slice(0, i);
                buf = buf.slice(i + 2);
                const ev = /^event: (\w+)$/m.exec(block)?.[1];
                if (ev) {
                  events.push(ev);
                  data.push(/^data: (.*)$/m.exec(block)?.[1] ?? '');
                }
              }
            }
          } catch {
            // aborted by the test
          }
          ended = true;
        })()
      : res.text().then(() => {
          ended = true;
        });
  return {
    status,
    type,
    events,
    data,
    ended: () => ended,
    reading,
    close() {
      ac.abort();
    },
  };
}

async function until(what: string, fn: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function seed(s: TestApp) {
  const token = await s.token('home-a');
  const api = client(s.url, token);
  const teamId = (await api.post('/api/v1/auth')).body.team_id as string;
  const pf = (await api.post('/api/v1/portfolios', { name: 'Shop' })).body.id as string;
  const d2 = (await api.post('/api/v1/domains', { domain: 'example-2.test' })).body.id as string;
  const d10 = (await api.post('/api/v1/domains', { domain: 'example-10.test', portfolio_id: pf })).body.id as string;
  const alpha = (await api.post('/api/v1/domains', { domain: 'alpha.test' })).body.id as string;
  const ep = async (domain_id: string, name: string, endpoint_type: string) =>
    (await api.post('/api/v1/endpoints', { domain_id, name, endpoint_type, subdomain: name })).body.id as string;
  const web = await ep(d2, 'web', 'https');
  const plain = await ep(d2, 'plain', 'http');
  const api10 = await ep(d10, 'api', 'https');
  const now = Date.now();
  await s.app.store.db
    .insertInto('endpoint_certificates')
    .values({
      endpoint_id: web,
      ssl_status: 'expiring_soon',
      // noon UTC ten days from today: 10 days left whatever the hour the test runs at (days count by UTC date)
      not_after: new Date(Math.floor(now / DAY) * DAY + 10 * DAY + DAY / 2).toISOString(),
      issuer: 'CN=Test CA',
      subject: 'CN=web',
      checked_at: new Date(now).toISOString(),
    } as any)
    .execute();
  const live = async (endpoint_id: string) =>
    (await api.post('/api/v1/liveness', { endpoint_id, interval_seconds: 86400, failure_threshold: 2 })).body
      .id as string;
  const lWeb = await live(web);
  const lPlain = await live(plain);
  const cfg = (id: string) => s.app.services.liveness.get(teamId, id);
  const endpoint = (id: string) => s.app.services.endpoints.get(teamId, id);
  const outcome = (ok: boolean, ms: number) =>
    ok
      ? { ok, responseTimeMs: ms, statusCode: 200, error: null }
      : { ok, responseTimeMs: ms, statusCode: null, error: 'refused: connection refused' };
  const write = async (id: string, eid: string, oks: boolean[], from: number) => {
    const c = await cfg(id);
    const e = await endpoint(eid);
    await s.app.services.monitor.record(
      oks.map((ok, j) => ({ config: c, endpoint: e, at: from + j * 60_000, outcome: outcome(ok, 20 + j) })),
    );
  };
  await write(lWeb, web, [true, true, true], now - 10 * 60_000);
  await write(lPlain, plain, [false, false, false], now - 10 * 60_000);
  return { api, token, teamId, pf, d2, d10, alpha, web, plain, api10, lPlain, write };
}

t.test('GET /api/v1/home and /incidents, on one team and not on another', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  // States move only when this test writes them: no probe, no TLS inspection.
  await s.app.probing.stop(0);
  const A = await seed(s);
  const b = client(s.url, await s.token('home-b'));
  await b.post('/api/v1/domains', { domain: 'beta.test' });

  const home = (await A.api.get('/api/v1/home?limit=100')).body;
  t.same(home.summary, {
    up: 1,
    down: 1,
    paused: 0,
    unknown: 4,
    maintenance: 0,
    expiring: 1,
    domains: 3,
    endpoints: 3,
  });
  t.same(
    home.data.map((r: any) => `${r.group}/${r.kind}/${r.name}`),
    [
      'alpha.test/domain/alpha.test',
      'example-2.test/domain/example-2.test',
      'example-2.test/endpoint/plain',
      'example-2.test/endpoint/web',
      'example-10.test/domain/example-10.test',
      'example-10.test/endpoint/api',
    ],
    'groups in natural order (example-2 before example-10), the domain first',
  );
  const row = (name: string, data = home.data) => data.find((r: any) => r.name === name);
  const plain = row('plain');
  t.equal(plain.state, 'down');
  t.equal(plain.reason, 'Connection refused: nothing answers on that port', 'the failure in words');
  t.equal(plain.certificate_status, null, 'plain http carries no certificate');
  t.equal(plain.uptime_24h, 0);
  t.equal(plain.avg_response_time_ms, null, 'no average response time at 0 % uptime');
  t.equal(plain.checks.length, 3);
  t.same(
    plain.checks.map((c: any) => [c.ok, c.error]),
    Array(3).fill([false, 'Connection refused: nothing answers on that port']),
  );
  const web = row('web');
  t.equal(web.state, 'up');
  t.equal(web.uptime_24h, 100);
  t.equal(web.avg_response_time_ms, 21);
  t.same(
    web.checks.map((c: any) => c.response_time_ms),
    [20, 21, 22],
    'heartbeats oldest first',
  );
  t.equal(web.expiring, true);
  t.equal(web.days_left, 10);
  t.equal(web.reason, 'Certificate expires in 10 day(s)');
  t.equal(row('api').state, 'unknown', 'no liveness configuration');
  t.equal(row('example-10.test').portfolio, 'Shop');

  const names = async (q: string) => ((await A.api.get(`/api/v1/home?${q}`)).body.data as any[]).map((r) => r.name);
  t.same(await names('state=down'), ['plain']);
  t.same(await names('state=expiring'), ['web']);
  t.same(await names('state=up'), ['web']);
  t.same(await names('type=domain'), ['alpha.test', 'example-2.test', 'example-10.test']);
  t.same(await names('type=http'), ['plain']);
  t.same(
    await names('type=endpoint&sort=response&order=desc'),
    ['web', 'plain', 'api'],
    'inside each group: nulls last',
  );
  t.same(await names('q=EXAMPLE-1'), ['example-10.test', 'api']);
  t.same(await names('q=refused'), ['plain'], 'the reason is searched too');
  t.same(await names(`portfolio_id=${A.pf}`), ['example-10.test', 'api']);
  // Named rows only (what the page reads when the live feed names the rows that changed): the
  // filters still apply, paging does not, the summary is every row's.
  t.same(await names(`ids=${A.web},${A.plain},${A.alpha}&limit=1&offset=2`), ['alpha.test', 'plain', 'web']);
  t.same(await names(`ids=${A.web},${A.plain}&state=down`), ['plain'], 'a row that left the filters is not sent');
  const none = (await A.api.get('/api/v1/home?ids=')).body;
  t.same(none.data, [], 'no row named: none sent');
  t.equal(none.summary.down, 1, 'but the summary');
  t.equal((await A.api.get(`/api/v1/home?ids=${A.web},nope`)).status, 400, 'ids must be ids');
  t.equal((await A.api.get(`/api/v1/home?ids=${Array(201).fill(A.web).join(',')}`)).status, 400, 'at most 200');
  t.same(
    await names('group=portfolio'),
    ['example-10.test', 'api', 'alpha.test', 'example-2.test', 'plain', 'web'],
    'the portfolio group first, then No portfolio',
  );
  const paged = (await A.api.get('/api/v1/home?limit=2&offset=2')).body;
  t.same(
    paged.data.map((r: any) => r.name),
    ['plain', 'web'],
  );
  t.same(paged.pagination, { total: 6, limit: 2, offset: 2, has_more: true });
  t.equal((await A.api.get('/api/v1/home?checks=1')).body.data.find((r: any) => r.name === 'web').checks.length, 1);
  for (const bad of ['state=sideways', 'checks=0', 'sort=colour', 'portfolio_id=nope', 'limit=0'])
    t.equal((await A.api.get(`/api/v1/home?${bad}`)).status, 400, bad);

  const other = (await b.get('/api/v1/home')).body;
  t.same(
    other.data.map((r: any) => r.name),
    ['beta.test'],
    "another team's rows never appear",
  );
  t.same(other.summary, {
    up: 0,
    down: 0,
    paused: 0,
    unknown: 1,
    maintenance: 0,
    expiring: 0,
    domains: 1,
    endpoints: 0,
  });

  // Incidents: the outage the third failure opened (threshold 2), still ongoing.
  let inc = (await A.api.get(`/api/v1/endpoints/${A.plain}/incidents`)).body;
  t.equal(inc.data.length, 1);
  t.equal(inc.data[0].ongoing, true);
  t.equal(inc.data[0].recovered_at, null);
  t.equal(inc.data[0].reason, 'Connection refused: nothing answers on that port');
  t.equal(inc.data[0].error, 'refused: connection refused');
  t.same(inc.data[0].notifications, []);
  // A notification made for it (as the fan-out writes one), then the recovery.
  await s.app.store.notifications.addDelivery({
    team_id: A.teamId,
    event_id: inc.data[0].id,
    setting_id: null,
    channel: 'webhook',
    recipient: 'http://127.0.0.1:9/hook',
    is_test: false,
    request: '{}',
    status: 'sent',
    next_attempt_at: new Date().toISOString(),
    metadata: null,
    created_at: new Date().toISOString(),
  } as any);
  await A.write(A.lPlain, A.plain, [true], Date.now() - 60_000);
  inc = (await A.api.get(`/api/v1/endpoints/${A.plain}/incidents`)).body;
  t.equal(inc.data.length, 1);
  t.equal(inc.data[0].ongoing, false);
  t.ok(inc.data[0].recovered_at);
  t.equal(
    inc.data[0].duration_seconds,
    Math.round((Date.parse(inc.data[0].recovered_at) - Date.parse(inc.data[0].started_at)) / 1000),
  );
  t.same(
    inc.data[0].notifications.map((n: any) => [n.for, n.channel, n.status]),
    [['down', 'webhook', 'sent']],
  );
  t.same(inc.pagination, { total: 1, limit: 20, offset: 0, has_more: false });
  // A second outage: newest first, paged.
  await A.write(A.lPlain, A.plain, [false, false], Date.now() - 30_000);
  inc = (await A.api.get(`/api/v1/endpoints/${A.plain}/incidents?limit=1`)).body;
  t.equal(inc.pagination.total, 2);
  t.equal(inc.data[0].ongoing, true);
  inc = (await A.api.get(`/api/v1/endpoints/${A.plain}/incidents?limit=1&offset=1`)).body;
  t.equal(inc.data[0].ongoing, false);
  t.equal(inc.data[0].notifications.length, 1);
  t.equal((await b.get(`/api/v1/endpoints/${A.plain}/incidents`)).status, 404, "another team's endpoint");
  t.equal((await A.api.get(`/api/v1/endpoints/${A.plain}/incidents?limit=x`)).status, 400);
  t.same((await A.api.get(`/api/v1/endpoints/${A.web}/incidents`)).body.data, [], 'never down');
});

t.test('GET /ui/live: a change made through the API reaches the stream of its team only', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  await s.app.probing.stop(0);
  const tokenA = await s.token('live-a');
  const tokenB = await s.token('live-b');
  const a = client(s.url, tokenA);
  const cookieA = await signIn(s.url, tokenA);
  const cookieB = await signIn(s.url, tokenB);

  const none = await openStream(s.url, '');
  t.equal(none.status, 401, 'no session: 401');
  const bogus = await openStream(s.url, 'dommon_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  t.equal(bogus.status, 401, 'no live session: 401');

  const streamA = await openStream(s.url, cookieA);
  const streamB = await openStream(s.url, cookieB);
  t.equal(streamA.status, 200);
  t.match(streamA.type, /^text\/event-stream/);
  await until('ready', () => streamA.events.includes('ready') && streamB.events.includes('ready'));
  // Let the hub learn both teams' fingerprints before the change.
  await new Promise((r) => setTimeout(r, 600));
  const started = Date.now();
  t.equal((await a.post('/api/v1/domains', { domain: 'live.test' })).status, 201);
  await until('change on team A', () => streamA.events.includes('change'));
  t.ok(Date.now() - started < 10_000, `told within ${Date.now() - started} ms`);
  await new Promise((r) => setTimeout(r, 1000));
  t.notOk(streamB.events.includes('change'), "team B's stream heard nothing of team A's change");
  const changes = () => streamA.data.filter((_, i) => streamA.events[i] === 'change').map((d) => JSON.parse(d));
  t.same(changes()[0], { ids: [], all: true }, 'a row added: every view reads again');

  // A change to rows already shown names them: the page reads only those.
  const domainId = (await a.get('/api/v1/domains')).body.data[0].id as string;
  const ep = (
    await a.post('/api/v1/endpoints', {
      domain_id: domainId,
      name: 'www',
      endpoint_type: 'https',
      liveness: { interval_seconds: 60 },
    })
  ).body;
  await until('the endpoint added', () => changes().length >= 2);
  await new Promise((r) => setTimeout(r, 600));
  const seen = changes().length;
  t.equal((await a.put(`/api/v1/liveness/${ep.liveness.id}`, { is_enabled: false })).status, 200);
  await until('the pause told', () =>
    changes()
      .slice(seen)
      .some((c) => c.ids?.includes(ep.id)),
  );
  const told = changes()
    .slice(seen)
    .find((c) => c.ids?.includes(ep.id));
  t.equal(told.all, false, 'named rows, not everything');
  t.same(
    told.ids.filter((id: string) => id !== ep.id && id !== domainId),
    [],
    `only the paused endpoint's row (and its domain's, as its first look-ups settle): ${JSON.stringify(told.ids)}`,
  );

  // At most 4 streams per session.
  const more = [await openStream(s.url, cookieA), await openStream(s.url, cookieA), await openStream(s.url, cookieA)];
  t.same(
    more.map((m) => m.status),
    [200, 200, 200],
  );
  const fifth = await openStream(s.url, cookieA);
  t.equal(fifth.status, 429, 'a fifth stream of one session is refused');
  more[0]!.close();
  await until('a slot freed', async () => {
    const again = await openStream(s.url, cookieA);
    if (again.status === 200) {
      again.close();
      return true;
    }
    return false;
  });

  for (const m of more) m.close();
  streamA.close();
  streamB.close();
});

t.test('the app stops at once with live streams open, and they end', async (t) => {
  const s = await startApp({});
  await s.app.probing.stop(0);
  const token = await s.token('live-stop');
  const cookie = await signIn(s.url, token);
  const streams = [await openStream(s.url, cookie), await openStream(s.url, cookie)];
  await until('ready', () => streams.every((x) => x.events.includes('ready')));
  const t0 = Date.now();
  await s.close();
  t.ok(Date.now() - t0 < 5000, `stopped in ${Date.now() - t0} ms with ${streams.length} streams open`);
  await until('streams ended', () => streams.every((x) => x.ended()), 5000);
});

t.test('the dashboard session reads on its own budget, not the team API limit', async (t) => {
  // The budgets are fixed one-minute windows: the app's clock starts a second into one, so that the
  // test's requests do not straddle two however slow the machine.
  const s = await startApp({ DOMMON_RATE_LIMIT: '3' }, { clock: runningClock(61_000 - (Date.now() % 60_000)) });
  t.teardown(() => s.close());
  await s.app.probing.stop(0);
  const token = await s.token('budget');
  const cookie = await signIn(s.url, token);
  const api = client(s.url, token);
  for (let i = 0; i < 3; i++) t.equal((await api.get('/api/v1/home')).status, 200);
  t.equal((await api.get('/api/v1/home')).status, 429, 'the token has used up the team limit');
  const bySession = [];
  for (let i = 0; i < 15; i++) bySession.push((await fetch(`${s.url}/api/v1/home`, { headers: { cookie } })).status);
  t.same(bySession, Array(15).fill(200), "the session's reads: 5 x the limit, apart");
  const over = await fetch(`${s.url}/api/v1/home`, { headers: { cookie } });
  t.equal(over.status, 429, 'and its own budget has an end too');
  t.ok(Number(over.headers.get('retry-after')) >= 1);
});
