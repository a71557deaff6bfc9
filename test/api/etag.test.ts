// Conditional GETs (src/api/middleware/etag.ts): the JSON reads the dashboard polls answer a weak
// ETag; If-None-Match with it gives 304 and no body; a change (a domain added, an endpoint's check)
// gives a new ETag and the new body; another team's answer never matches; errors carry none.
import t from 'tap';
import { client, firstLookupsDone } from '../support/app.js';
import { startLoopbackApp } from '../support/targets.js';
import { waitFor } from '../support/wait.js';

t.setTimeout(60_000);

/**
 * Waits until the list's tag holds still over three reads 200 ms apart: a new domain's first look-ups
 * (registration, DNS, the nameserver watch) update its row in the background, and each such change
 * rightly moves the tag. The assertions below are about the tag of an answer that is not changing.
 */
async function settled(c: ReturnType<typeof client>, path: string): Promise<void> {
  let last = '';
  let same = 0;
  await waitFor(async () => {
    const tag = (await c.get(path)).headers.get('etag') ?? '';
    same = tag === last ? same + 1 : 0;
    last = tag;
    if (same < 2) await new Promise((r) => setTimeout(r, 200));
    return same >= 2;
  }, 30_000);
}

t.test('ETag, If-None-Match -> 304, a change -> a new ETag', async (t) => {
  const { s, target } = await startLoopbackApp(t);
  const a = client(s.url, await s.token('alpha'));
  const b = client(s.url, await s.token('beta'));
  const d = (await a.post('/api/v1/domains', { domain: 'etag.example' })).body;
  await firstLookupsDone(s, d.id);
  await settled(a, '/api/v1/domains');

  const first = await a.get('/api/v1/domains');
  t.equal(first.status, 200);
  const tag = first.headers.get('etag')!;
  t.match(tag, /^W\/"[A-Za-z0-9_-]{27}"$/, 'a weak ETag');
  t.equal(first.headers.get('cache-control'), 'private, no-cache');
  t.equal((await a.get('/api/v1/domains')).headers.get('etag'), tag, 'the same answer, the same tag');

  const same = await a.get('/api/v1/domains', undefined, { 'if-none-match': tag });
  t.equal(same.status, 304);
  t.equal(same.text, '', 'no body');
  t.equal(same.headers.get('etag'), tag);
  const listed = await a.get('/api/v1/domains', undefined, { 'if-none-match': `"other", ${tag}` });
  t.equal(listed.status, 304, 'one of several tags');

  // A change: the list's tag moves, the old one gets the whole new answer.
  await a.post('/api/v1/domains', { domain: 'added.example' });
  await settled(a, '/api/v1/domains');
  const after = await a.get('/api/v1/domains', undefined, { 'if-none-match': tag });
  t.equal(after.status, 200);
  t.not(after.headers.get('etag'), tag);
  t.same(after.body.data.map((x: any) => x.domain).sort(), ['added.example', 'etag.example']);
  t.equal((await a.get('/api/v1/domains', undefined, { 'if-none-match': after.headers.get('etag')! })).status, 304);

  // Another team, the same URL and tag: its own answer.
  const other = await b.get('/api/v1/domains', undefined, { 'if-none-match': tag });
  t.equal(other.status, 200);
  t.same(other.body.data, []);

  // One resource's view, and the User API: a check moves the endpoint's status.
  const ep = (
    await a.post('/api/v1/endpoints', {
      domain_id: d.id,
      name: 'web',
      endpoint_type: 'http',
      port: target.port,
      liveness: { interval_seconds: 1, timeout_seconds: 1 },
    })
  ).body;
  const st = await a.get(`/api-endpoint-status/${ep.id}`);
  await waitFor(
    async () =>
      (await a.get(`/api-endpoint-status/${ep.id}`, undefined, { 'if-none-match': st.headers.get('etag')! })).status ===
      200,
    10_000,
  );
  // Checks paused: from here on nothing changes, so every read repeats itself.
  t.equal((await a.put(`/api/v1/liveness/${ep.liveness.id}`, { is_enabled: false })).status, 200);
  await s.app.probing.liveness.flush();
  for (const p of [
    `/api/v1/endpoints/${ep.id}/certificates`,
    `/api/v1/domains/${d.id}/status`,
    '/api/v1/events?limit=10',
    '/api/v1/notifications/log?limit=8',
    '/api/v1/renewals?type=domains',
    '/api/v1/portfolios',
    '/api/v1/nodes',
  ]) {
    const r = await a.get(p);
    t.equal(r.status, 200, p);
    const again = await a.get(p, undefined, { 'if-none-match': r.headers.get('etag')! });
    t.equal(again.status, 304, `${p}: 304`);
  }

  // Errors and writes carry no ETag.
  const missing = await a.get('/api/v1/domains/00000000-0000-4000-8000-000000000000', undefined, {
    'if-none-match': tag,
  });
  t.equal(missing.status, 404);
  t.equal(missing.headers.get('etag'), null);
  t.equal((await a.post('/api/v1/portfolios', { name: 'P' })).headers.get('etag'), null);
  t.equal((await client(s.url).get('/api/v1/domains', undefined, { 'if-none-match': tag })).status, 401);
});
