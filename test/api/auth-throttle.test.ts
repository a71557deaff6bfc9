// Failed authentications are throttled per client address (src/services/auth-throttle.ts; issue 38
// item 5): DOMMON_AUTH_FAILURE_LIMIT failures a minute (default 20), then 429 TOO_MANY_FAILURES with
// Retry-After for every request from that address that carries a credential (a correct one too) until
// the window ends. Bad bearer tokens, `api_key`, bad session cookies, failed dashboard sign-ins and
// failed POST /api-auth all count; requests without a credential and successes do not. With
// --trust-proxy the address is the proxy's last X-Forwarded-For entry; without it that header is ignored.
import t from 'tap';
import { request, startApp } from '../support/app.js';
import { clientKey } from '../../src/domain/client-address.js';
import type { Clock } from '../../src/domain/clock.js';

t.setTimeout(120_000);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function movableClock(start: string): Clock & { add(ms: number): void } {
  let now = Date.parse(start);
  return { now: () => new Date(now), add: (ms) => (now += ms) };
}

t.test('20 bad bearer tokens a minute, then 429 with Retry-After, a correct token too', async (t) => {
  const clock = movableClock('2030-01-01T00:00:10Z');
  const s = await startApp({}, { clock });
  t.teardown(() => s.close());
  const token = await s.token('team', 'a@example.com');
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { token })).status, 200);
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++)
    statuses.push((await request(s.url, 'GET', '/api/v1/domains', { token: `dmn_wrong${i}`, unchecked: true })).status);
  t.same(statuses, [...Array(20).fill(401), ...Array(10).fill(429)], '20 × 401, then 429');

  const blocked = await request(s.url, 'GET', '/api/v1/domains', { token });
  t.equal(blocked.status, 429, 'the right token from a blocked address: 429 as well');
  t.match(blocked.body, {
    code: 'TOO_MANY_FAILURES',
    error: /too many failed/,
    path: '/api/v1/domains',
    timestamp: ISO,
  });
  t.equal(blocked.headers.get('retry-after'), '50', 'seconds until the window ends');
  t.equal(blocked.body.retry_after, 50);
  // No credential is no guess: still the plain 401.
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { unchecked: true })).status, 401);
  t.equal((await request(s.url, 'GET', '/health')).status, 200, 'routes without a credential answer as ever');

  clock.add(50_000);
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { token })).status, 200, 'the next window: served');
  // A success does not reset the count.
  for (let i = 0; i < 19; i++) await request(s.url, 'GET', '/api/v1/domains', { token: 'dmn_bad', unchecked: true });
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { token })).status, 200);
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { token: 'dmn_bad', unchecked: true })).status, 401);
  t.equal((await request(s.url, 'GET', '/api/v1/domains', { token })).status, 429);
});

t.test('every kind of failure counts to the same limit (DOMMON_AUTH_FAILURE_LIMIT)', async (t) => {
  const clock = movableClock('2030-01-01T00:00:00Z');
  const s = await startApp({ DOMMON_AUTH_FAILURE_LIMIT: '5' }, { clock });
  t.teardown(() => s.close());
  const token = await s.token('team', 'a@example.com');
  const fails = [
    await request(s.url, 'GET', '/api/v1/domains?api_key=dmn_nope', { unchecked: true }),
    await request(s.url, 'GET', '/api/v1/domains', { headers: { cookie: 'dommon_session=x' }, unchecked: true }),
    await request(s.url, 'POST', '/ui/session', { body: { token: 'dmn_nope' }, unchecked: true }),
    await request(s.url, 'POST', '/api-auth', {
      body: { apiKey: 'dmn_nope', endpoint: '/api-domains', method: 'GET' },
      unchecked: true,
    }),
    await request(s.url, 'GET', '/api/v1/domains', { headers: { authorization: 'Basic eDp5' }, unchecked: true }),
  ];
  t.same(
    fails.map((r) => r.status),
    [401, 401, 401, 401, 401],
  );
  for (const [what, r] of [
    ['sign-in', await request(s.url, 'POST', '/ui/session', { body: { token }, unchecked: true })],
    ['api-auth', await request(s.url, 'POST', '/api-auth', { body: { apiKey: token, endpoint: '/x', method: 'GET' } })],
    ['bearer', await request(s.url, 'GET', '/api/v1/domains', { token })],
  ] as const) {
    t.equal(r.status, 429, `${what}: 429 once the address is blocked`);
    t.equal(r.body.code, 'TOO_MANY_FAILURES', what);
    t.equal(r.headers.get('retry-after'), '60', what);
  }
  t.equal(r0(await request(s.url, 'GET', '/ui/session', { unchecked: true })), 200, 'signed-out page load: no guess');
  clock.add(60_000);
  t.equal((await request(s.url, 'POST', '/ui/session', { body: { token }, unchecked: true })).status, 201);
});

function r0(r: { status: number }): number {
  return r.status;
}

t.test(
  'behind a trusted proxy each client is counted by its X-Forwarded-For; otherwise that header is ignored',
  async (t) => {
    const clock = movableClock('2030-01-01T00:00:00Z');
    const proxied = await startApp({ DOMMON_AUTH_FAILURE_LIMIT: '3', DOMMON_TRUST_PROXY: '1' }, { clock });
    t.teardown(() => proxied.close());
    const token = await proxied.token('team', 'a@example.com');
    const from = (xff: string) => ({ 'x-forwarded-for': xff });
    for (let i = 0; i < 3; i++)
      await request(proxied.url, 'GET', '/api/v1/domains', {
        token: 'dmn_x',
        headers: from('203.0.113.7'),
        unchecked: true,
      });
    t.equal(
      (await request(proxied.url, 'GET', '/api/v1/domains', { token, headers: from('203.0.113.7') })).status,
      429,
      'the guessing client is blocked',
    );
    t.equal(
      (await request(proxied.url, 'GET', '/api/v1/domains', { token, headers: from('203.0.113.8') })).status,
      200,
      'another client behind the same proxy is not',
    );
    // The proxy appends the address it saw: a client cannot pick its own by sending the header itself.
    t.equal(
      (await request(proxied.url, 'GET', '/api/v1/domains', { token, headers: from('198.51.100.1, 203.0.113.7') }))
        .status,
      429,
      'a forged first entry changes nothing',
    );

    const direct = await startApp({ DOMMON_AUTH_FAILURE_LIMIT: '3' }, { clock });
    t.teardown(() => direct.close());
    const t2 = await direct.token('team', 'a@example.com');
    for (let i = 0; i < 3; i++)
      await request(direct.url, 'GET', '/api/v1/domains', {
        token: 'dmn_x',
        headers: from(`192.0.2.${i}`),
        unchecked: true,
      });
    t.equal(
      (await request(direct.url, 'GET', '/api/v1/domains', { token: t2, headers: from('192.0.2.200') })).status,
      429,
      'without --trust-proxy X-Forwarded-For does not spread the count',
    );
  },
);

t.test('client keys: IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', async (t) => {
  t.equal(clientKey('127.0.0.1'), '127.0.0.1');
  t.equal(clientKey('::ffff:127.0.0.1'), '127.0.0.1');
  t.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  t.equal(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  t.equal(clientKey('2001:db8::1'), '2001:db8::/64');
  t.equal(clientKey('::1'), '::/64');
  t.equal(clientKey('fe80::1%eth0'), 'fe80::/64');
  t.equal(clientKey(undefined), 'unknown');
});
