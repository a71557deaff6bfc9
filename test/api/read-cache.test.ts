// readCache: a repeated list read is answered from memory until a table it reads changes; a new stamp
// empties the cache (no stale answers kept on the heap); an answer read while a write happened is not kept.
import t from 'tap';
import { readCache } from '../../src/api/middleware/read-cache.js';

function harness() {
  let version = 1;
  const reads: string[] = [];
  const etags: string[] = [];
  const mw = readCache(() => `v${version}`, 'domains');
  const get = async (url: string, team = 'team-a', during?: () => void) => {
    const [path, query = ''] = url.split('?');
    const ctx: any = {
      path,
      querystring: query,
      state: { principal: { team_id: team } },
      status: 404,
      body: undefined,
      type: '',
      headers: {} as Record<string, string>,
      set(name: string, value: string) {
        this.headers[name] = value;
      },
    };
    await mw(ctx, async () => {
      reads.push(`${team} ${url}`);
      during?.();
      ctx.status = 200;
      ctx.body = { data: [url, version] };
    });
    etags.push(ctx.headers.ETag);
    // Cached answers are kept (and sent) as their UTF-8 bytes.
    t.ok(Buffer.isBuffer(ctx.body), 'answered as bytes');
    return (ctx.body as Buffer).toString();
  };
  return { get, reads, etags, bump: () => version++, entries: () => mw.entries() };
}

t.test('hits until the stamp moves; then everything is read again', async (t) => {
  const h = harness();
  const first = await h.get('/api/v1/domains?limit=50&offset=0');
  t.same(JSON.parse(first), { data: ['/api/v1/domains?limit=50&offset=0', 1] });
  t.equal(await h.get('/api/v1/domains?offset=0&limit=50'), first, 'same query, other order, api_key aside: a hit');
  t.equal(await h.get('/api/v1/domains?offset=0&limit=50&api_key=x'), first);
  t.match(h.etags[0], /^W\/"[A-Za-z0-9_-]{27}"$/, 'the answer carries its weak ETag');
  t.same(h.etags.slice(0, 3), [h.etags[0], h.etags[0], h.etags[0]], 'hashed once, sent with every hit');
  await h.get('/api/v1/domains?limit=50&offset=0', 'team-b');
  t.equal(h.reads.length, 2, 'one read per (team, query)');
  t.equal(h.entries(), 2);
  h.bump();
  t.same(JSON.parse(await h.get('/api/v1/domains?limit=50&offset=0')), {
    data: ['/api/v1/domains?limit=50&offset=0', 2],
  });
  t.equal(h.entries(), 1, 'the stale answers were dropped, not kept beside the new one');
  await h.get('/api/v1/domains?limit=50&offset=0', 'team-b');
  t.equal(h.reads.length, 4, 'a new stamp makes every cached answer stale, for every team');
});

t.test('an answer read while the stamp moved is not kept', async (t) => {
  const h = harness();
  await h.get('/api/v1/domains', 'team-a', () => h.bump());
  await h.get('/api/v1/domains');
  t.equal(h.reads.length, 2, 'read again: the first answer may predate the write');
  await h.get('/api/v1/domains');
  t.equal(h.reads.length, 2, 'then cached');
});
