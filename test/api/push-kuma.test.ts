// Uptime Kuma's push URL on a push endpoint (docs/push.md#uptime-kumas-push-url): a Kuma push token set
// as the ping key by a configuration file (what `dommon import uptime-kuma` writes) keeps the job's URL
// /api/push/<token>?status=up|down&msg=...&ping=<ms> working, answered as Kuma does; the same key answers
// the Healthchecks.io-style /ping/<key>; an unknown or malformed key gets one answer whatever it is, and
// both forms share the limits. test/pg/api-push-kuma.test.ts runs it again on PostgreSQL.
import t, { type Test } from 'tap';
import { client, startApp } from '../support/app.js';
import { freshWindowClock } from '../support/clock.js';

// Each test starts its own app (on PostgreSQL a fresh database each): slow on a loaded machine.
t.setTimeout(120_000);

/** The shape of a token Kuma's UI makes: 32 letters and digits, mixed case. */
const TOKEN = 'ExAmPlEpUsHtOkEnNiGhTlYbAcKuP001';
const UNKNOWN = { ok: false, msg: 'Monitor not found or not active.' };

const FILE = (key: string) => `version: 1
domains:
  - name: example.com
    endpoints:
      - name: backup
        type: push
        period_seconds: 86400
        grace_seconds: 3600
        ping_key: ${key}
`;

async function setUp(t: Test) {
  // The ping URLs' limits count in fixed minutes: the test starts at the beginning of one.
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' }, { clock: freshWindowClock() });
  t.teardown(() => s.close());
  const token = await s.token('kuma');
  const api = client(s.url, token);
  const apply = (file: string) => api.post('/api/v1/config/apply', { file, filename: 'dommon.yaml' });
  return { s, api, apply, anon: client(s.url) };
}

t.test("a Kuma token as the ping key: Kuma's push URL and the ping URLs answer on it", async (t) => {
  const { s, api, apply, anon } = await setUp(t);
  const applied = await apply(FILE(TOKEN));
  t.equal(applied.status, 200, JSON.stringify(applied.body));
  const ep = (await api.get('/api/v1/endpoints')).body.data.find((e: { name: string }) => e.name === 'backup');
  const pingsOf = async () => (await api.get(`/api/v1/endpoints/${ep.id}/pings`)).body;
  t.equal((await pingsOf()).ping_key, TOKEN, 'kept exactly as written: a Kuma token is case-sensitive');
  t.equal((await pingsOf()).ping_url, `${s.url}/ping/${TOKEN}`);
  const liveId = (await api.get('/api/v1/liveness')).body.data.find(
    (l: { endpoint_id: string }) => l.endpoint_id === ep.id,
  ).id as string;
  const state = async () => (await api.get(`/api/v1/liveness/${liveId}/status`)).body;

  // Kuma's defaults: no query at all is an up report.
  const up = await anon.get(`/api/push/${TOKEN}`);
  t.same([up.status, up.body], [200, { ok: true }]);
  t.match(up.headers.get('content-type'), /^application\/json/);
  t.equal((await state()).status, 'up');

  // status=down: a failure, down at once, msg its reason; ping the time the job reported.
  const down = await anon.get(
    `/api/push/${TOKEN}?status=down&msg=${encodeURIComponent('disk full on /var')}&ping=1234`,
  );
  t.same([down.status, down.body], [200, { ok: true }]);
  const d = await state();
  t.equal(d.status, 'down');
  t.match(d.last_error, /^failed: the job reported a failure at \S+: disk full on \/var$/);
  const [fail] = (await pingsOf()).pings;
  t.same([fail.kind, fail.body, fail.duration_ms, fail.exit_status], ['fail', 'disk full on /var', 1234, null]);
  // Anything but "up" is down, as in Kuma.
  t.same((await anon.get(`/api/push/${TOKEN}?status=pending`)).body, { ok: true });
  t.equal((await state()).status, 'down');

  // Up again with msg and ping: a recovery, the message kept with the ping; POST and a trailing slash too.
  const back = await anon.post(`/api/push/${TOKEN}/?status=up&msg=OK&ping=87.5`, 'not read');
  t.same([back.status, back.body], [200, { ok: true }]);
  t.equal((await state()).status, 'up');
  const [ok] = (await pingsOf()).pings;
  t.same([ok.kind, ok.body, ok.duration_ms], ['success', 'OK', 88]);
  const events = (await api.get(`/api/v1/events?endpoint_id=${ep.id}&event_type=liveness`)).body.events as {
    category: string;
  }[];
  t.same(
    events.map((e) => e.category).sort(),
    ['endpoint_down', 'endpoint_recovered'],
    'one down and one recovery: once per transition',
  );

  // The same key on the ping URLs of push.md.
  t.equal((await anon.get(`/ping/${TOKEN}/start`)).text, 'OK');
  t.equal((await anon.get(`/ping/${TOKEN}`)).text, 'OK');
  t.same(
    (await pingsOf()).pings.slice(0, 2).map((p: { kind: string }) => p.kind),
    ['success', 'start'],
  );

  // A bad ping value: 400 with Kuma's reason, checked before the key (the answer says nothing of it).
  for (const [value, msg] of [
    ['abc', /^Invalid ping value: 'abc' is not a valid number$/],
    ['-1', /^Invalid ping value: -1ms cannot be negative$/],
    ['86400001', /^Ping value 86400001ms exceeds maximum allowed/],
  ] as const) {
    for (const key of [TOKEN, 'NoSuchToken0000000000000000000000']) {
      const r = await anon.get(`/api/push/${key}?ping=${value}`);
      t.equal(r.status, 400, `ping=${value}`);
      t.equal(r.body.ok, false);
      t.match(r.body.msg, msg);
    }
  }
  t.equal((await pingsOf()).pings.length, 6, 'a refused report is not kept');

  // Unknown, other case, malformed, too short, too long: one answer for all.
  for (const key of [
    'NoSuchToken0000000000000000000000',
    TOKEN.toLowerCase(),
    'short',
    'x'.repeat(65),
    'has.dots.in.it.x',
    '00000000-0000-4000-8000-000000000000',
  ]) {
    const r = await anon.get(`/api/push/${key}?status=up`);
    t.same([r.status, r.body], [404, UNKNOWN], key);
  }
  // A path below /api/push/ that is no push URL is the same answer, never the JSON API's.
  const deeper = await fetch(`${s.url}/api/push/${TOKEN}/more`);
  t.same([deeper.status, await deeper.json()], [404, UNKNOWN], 'a path below /api/push/ that is no push URL');
  t.equal((await anon.get(`/ping/${TOKEN.toLowerCase()}`)).status, 404);
});

t.test('a UUID key answers on both forms, in either case', async (t) => {
  const { api, anon } = await setUp(t);
  const domain = (await api.post('/api/v1/domains', { domain: 'example.org' })).body;
  const ep = (await api.post('/api/v1/endpoints', { domain_id: domain.id, name: 'job', endpoint_type: 'push' })).body;
  t.match(ep.ping_key, /^[0-9a-f-]{36}$/);
  t.same((await anon.get(`/api/push/${ep.ping_key.toUpperCase()}?status=up`)).body, { ok: true });
  t.same((await anon.get(`/api/push/${ep.ping_key}`)).body, { ok: true });
  t.equal((await anon.get(`/ping/${ep.ping_key.toUpperCase()}`)).text, 'OK');
});

t.test('the ping key a file may set: 10 to 64 letters, digits, - and _; unique', async (t) => {
  const { api, apply } = await setUp(t);
  for (const bad of ['short-key', 'x'.repeat(65), 'with space in it', 'dots.are.not.ok'])
    t.match((await apply(FILE(JSON.stringify(bad)))).body.errors, [/^dommon\.yaml:9:19: .*ping_key: must match /], bad);
  t.equal((await apply(FILE('abcdefghij'))).status, 200, 'ten characters');
  const two = `${FILE('abcdefghij')}      - name: other
        type: push
        ping_key: abcdefghij
`;
  const refused = await apply(two);
  t.equal(refused.status, 400);
  t.match(refused.body.errors, [/^dommon\.yaml:12:\d+: .*ping_key abcdefghij is the key of another push endpoint$/]);
  // Keys differ by case: another key.
  t.equal((await apply(two.replace(/abcdefghij$/m, 'ABCDEFGHIJ'))).status, 200);
  const keys = [];
  for (const e of (await api.get('/api/v1/endpoints')).body.data)
    keys.push((await api.get(`/api/v1/endpoints/${e.id}/pings`)).body.ping_key);
  t.same(keys.sort(), ['ABCDEFGHIJ', 'abcdefghij']);
});

t.test(
  "unknown keys count against the client on both forms; past the limit even a known key's report is refused",
  async (t) => {
    const { apply, anon } = await setUp(t);
    t.equal((await apply(FILE(TOKEN))).status, 200);
    for (let i = 0; i < 15; i++) {
      t.equal((await anon.get(`/api/push/Unknown${String(i).padStart(10, '0')}`)).status, 404);
      t.equal((await anon.get(`/ping/Unknown${String(i).padStart(10, '1')}`)).status, 404);
    }
    const limited = await anon.get(`/api/push/${TOKEN}?status=down`);
    t.same([limited.status, limited.body], [429, { ok: false, msg: 'rate limited' }]);
    t.equal(limited.headers.get('retry-after'), '60');
    t.equal((await anon.get(`/ping/${TOKEN}`)).status, 429);
  },
);
