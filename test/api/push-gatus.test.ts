// Gatus's external-endpoint URL on a push endpoint (docs/push.md#gatuss-external-endpoint-url): a Gatus
// token set as the ping key by a configuration file (what `dommon import gatus` writes) keeps the job's
// POST /api/v1/endpoints/<group>_<name>/external?success=...&error=...&duration=... with that Bearer token
// working, answered as Gatus does; an unknown, malformed or API token gets one answer, whatever the key in
// the path; the limits are the ping URLs'. test/pg/api-push-gatus.test.ts runs it again on PostgreSQL.
import t, { type Test } from 'tap';
import { client, startApp } from '../support/app.js';
import { freshWindowClock } from '../support/clock.js';

t.setTimeout(120_000);

/** An external endpoint's token in Gatus's file (test/fixtures/gatus/features.yaml). */
const TOKEN = 'EXAMPLE-TOKEN-2';
const URL_OF = (q: string) => `/api/v1/endpoints/backend_nightly-backup/external${q}`;

const FILE = `version: 1
domains:
  - name: example.com
    endpoints:
      - name: nightly-backup
        type: push
        period_seconds: 86400
        grace_seconds: 3600
        ping_key: ${TOKEN}
`;

async function setUp(t: Test) {
  // The ping URLs' limits count in fixed minutes: the test starts at the beginning of one.
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' }, { clock: freshWindowClock() });
  t.teardown(() => s.close());
  const apiToken = await s.token('gatus');
  const api = client(s.url, apiToken);
  const applied = await api.post('/api/v1/config/apply', { file: FILE, filename: 'dommon.yaml' });
  t.equal(applied.status, 200, JSON.stringify(applied.body));
  const ep = (await api.get('/api/v1/endpoints')).body.data.find((e: { name: string }) => e.name === 'nightly-backup');
  const liveId = (await api.get('/api/v1/liveness')).body.data.find(
    (l: { endpoint_id: string }) => l.endpoint_id === ep.id,
  ).id as string;
  return {
    s,
    apiToken,
    job: client(s.url, TOKEN),
    anon: client(s.url),
    state: async () => (await api.get(`/api/v1/liveness/${liveId}/status`)).body,
    pings: async () => (await api.get(`/api/v1/endpoints/${ep.id}/pings`)).body.pings,
  };
}

t.test("a Gatus token as the ping key: the external-endpoint URL reports runs as Gatus's does", async (t) => {
  const { job, state, pings } = await setUp(t);

  const ok = await job.post(URL_OF('?success=true&duration=1m30s'));
  t.same([ok.status, ok.text], [200, '']);
  t.match(ok.headers.get('content-type'), /^text\/plain/);
  t.equal((await state()).status, 'up');
  const [first] = await pings();
  t.same([first.kind, first.duration_ms, first.body], ['success', 90_000, null], 'duration in Go form: 1m30s');

  // A failure: down at once, `error` its reason.
  const failed = await job.post(
    URL_OF(`?success=false&error=${encodeURIComponent('disk full on /var')}&duration=850ms`),
  );
  t.same([failed.status, failed.text], [200, '']);
  const down = await state();
  t.equal(down.status, 'down');
  t.match(down.last_error, /^failed: the job reported a failure at \S+: disk full on \/var$/);
  const [fail] = await pings();
  t.same([fail.kind, fail.duration_ms, fail.body], ['fail', 850, 'disk full on /var']);

  // The reason from a JSON body when the query has none (Gatus reads both); a trailing slash too.
  t.equal(
    (await job.post('/api/v1/endpoints/backend_nightly-backup/external/?success=false', { error: 'from the body' }))
      .status,
    200,
  );
  t.equal((await pings())[0].body, 'from the body', 'kept with the ping (already down: the state stays)');
  // Up again; the key in the path is Gatus's name and not checked: the token picks the endpoint.
  t.equal((await job.post('/api/v1/endpoints/any_name/external?success=true')).status, 200);
  t.equal((await state()).status, 'up');
  t.equal((await pings()).length, 4);
});

t.test('bad reports and bad tokens: 400 and 401 as Gatus answers them, and nothing kept', async (t) => {
  const { apiToken, s, job, anon, pings } = await setUp(t);
  for (const q of ['', '?success=yes', '?success=TRUE', '?error=x'])
    t.same(
      [(await job.post(URL_OF(q))).status, (await job.post(URL_OF(q))).text],
      [400, 'missing or invalid success query parameter'],
      `success ${q || 'missing'}`,
    );
  for (const d of ['90', '1x', '-1s', '25h', '1h30'])
    t.match(await job.post(URL_OF(`?success=true&duration=${d}`)), { status: 400, text: /^invalid duration: / }, d);
  t.same(
    [(await anon.post(URL_OF('?success=true'))).status, (await anon.post(URL_OF('?success=true'))).text],
    [401, 'invalid Authorization header'],
  );
  const basic = await fetch(`${s.url}${URL_OF('?success=true')}`, {
    method: 'POST',
    headers: { authorization: 'Basic eDp5' },
  });
  t.same([basic.status, await basic.text()], [401, 'invalid Authorization header']);
  // Unknown, other case, too short, malformed, or an API token: one answer, whatever the key in the path.
  for (const token of ['NoSuchToken-000', TOKEN.toLowerCase(), 'short', 'has.dots.in.it', apiToken]) {
    const r = await client(s.url, token).post(URL_OF('?success=false&error=x'));
    t.same([r.status, r.text], [401, 'invalid token'], token === apiToken ? 'an API token' : token);
  }
  t.equal((await pings()).length, 0, 'no report kept');
  // The key in the path is not checked, however long (a Gatus group and name of any length).
  const long = await client(s.url, TOKEN).post(`/api/v1/endpoints/${'k'.repeat(500)}/external?success=true`);
  t.same([long.status, long.text], [200, ''], 'a 500-character key');
  t.equal((await pings()).length, 1, 'its report kept');
  // Only POST is the external-endpoint URL: another method is the JSON API's route, which has none here.
  const get = await fetch(`${s.url}${URL_OF('?success=true')}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  t.equal(get.status, 404, 'the JSON API, which has no such route');
  t.match(await get.json(), { code: 'NOT_FOUND' });
  t.equal((await pings()).length, 1);
});

t.test(
  "unknown tokens count against the client with the ping URLs'; past the limit even a known token is refused",
  async (t) => {
    const { s, job, anon } = await setUp(t);
    for (let i = 0; i < 15; i++) {
      t.equal(
        (await client(s.url, `Unknown-${String(i).padStart(10, '0')}`).post(URL_OF('?success=true'))).status,
        401,
      );
      t.equal((await anon.get(`/ping/Unknown${String(i).padStart(10, '1')}`)).status, 404);
    }
    const limited = await job.post(URL_OF('?success=true'));
    t.same([limited.status, limited.text], [429, 'rate limited']);
    t.equal(limited.headers.get('retry-after'), '60');
  },
);
