// Two nodes on one PostgreSQL database (issue 38 items 4 and 5): the failed-authentication count of a
// client address is shared (failures on either node add up; the node that counts past the limit
// refuses at once, the other within its 2 s look-up of blocked addresses), and dashboard sessions are
// the database's (signed in on one node, used on the other, ended on either, revoked on either).
import t, { type Test } from 'tap';
import { request, startApp, type TestApp } from '../support/app.js';
import { manualClock } from '../support/clock.js';
import { CSRF_HEADER } from '../../src/web/session.js';
import { freshPgDatabase, PG_SKIP, pgServerUrl } from '../support/pg.js';

t.setTimeout(120_000);
const skip = pgServerUrl() ? false : PG_SKIP;

async function twoNodes(t: Test, label: string, env: Record<string, string> = {}) {
  const url = (await freshPgDatabase(t, label))!;
  const clock = manualClock('2030-01-01T00:00:00Z');
  const apps: TestApp[] = [];
  for (const name of ['n1', 'n2']) {
    const s = await startApp(
      { DOMMON_DATABASE_URL: url, DOMMON_ROLE: 'api', DOMMON_NODE_NAME: name, ...env },
      { clock },
    );
    t.teardown(() => s.close());
    apps.push(s);
  }
  return { n1: apps[0]!, n2: apps[1]!, clock };
}

const domains = (s: TestApp, opts: { token?: string; headers?: Record<string, string> }) =>
  request(s.url, 'GET', '/api/v1/domains', { ...opts, unchecked: true });

t.test('the failure count of an address is one count across the nodes', { skip }, async (t) => {
  const { n1, n2, clock } = await twoNodes(t, 'authfail', { DOMMON_AUTH_FAILURE_LIMIT: '6' });
  const token = await n1.token('team', 'a@example.com');
  t.equal((await domains(n1, { token })).status, 200);
  t.equal((await domains(n2, { token })).status, 200);
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await domains(i % 2 ? n2 : n1, { token: `dmn_bad${i}` })).status);
  t.same(statuses, [401, 401, 401, 401, 401, 401], '3 failures on each node: under the limit of 6 each time');
  const n2Blocked = await domains(n2, { token });
  t.equal(n2Blocked.status, 429, 'the node that counted the 6th failure refuses the address at once');
  t.equal(n2Blocked.body.code, 'TOO_MANY_FAILURES');
  t.equal(n2Blocked.headers.get('retry-after'), '60');
  t.equal((await domains(n1, { token: 'dmn_bad' })).status, 429, 'another failure on the other node: 429');
  clock.advance(2_000);
  t.equal((await domains(n1, { token })).status, 429, 'the other node refuses the right token too');
  const rows = await n1.app.store.db.selectFrom('auth_failures').select(['client', 'failures']).execute();
  t.same(rows, [{ client: '127.0.0.1', failures: 7 }], 'one row for the address, every node counted into it');
  clock.advance(58_000);
  t.equal((await domains(n1, { token })).status, 200, 'the next minute: served on n1');
  t.equal((await domains(n2, { token })).status, 200, 'and on n2');
});

t.test('a session made on one node lives and ends on every node', { skip }, async (t) => {
  const { n1, n2 } = await twoNodes(t, 'sessions');
  const token = await n1.token('team', 'a@example.com');
  const signIn = await request(n1.url, 'POST', '/ui/session', { body: { token }, unchecked: true });
  t.equal(signIn.status, 201);
  const jar = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const headers = { cookie: jar, [CSRF_HEADER]: signIn.body.csrf_token as string };
  t.equal((await domains(n2, { headers })).status, 200, 'signed in on n1, read on n2');
  const w = await request(n2.url, 'POST', '/api/v1/domains', { body: { domain: 'x.example' }, headers });
  t.equal(w.status, 201, 'the CSRF token n1 gave is good on n2 (one key for every node)');
  t.equal((await request(n2.url, 'DELETE', '/ui/session', { headers, unchecked: true })).status, 204);
  t.equal((await domains(n1, { headers })).status, 401, 'signed out on n2: the cookie is refused on n1');

  const again = await request(n2.url, 'POST', '/ui/session', { body: { token }, unchecked: true });
  const jar2 = { cookie: again.headers.getSetCookie()[0]!.split(';')[0]! };
  t.equal((await domains(n1, { headers: jar2 })).status, 200);
  const [tok] = await n1.app.services.access.listTokens('team');
  await n1.app.services.access.revokeToken(tok!.id);
  t.equal((await domains(n2, { headers: jar2 })).status, 401, 'revoked on n1: the session ends on n2 at once');
});
