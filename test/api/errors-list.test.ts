// A 400 for a request that fails its JSON Schema lists every failed check by field (the message
// still names the first, in the spec's body), bounded; and JSON answers are compressed for a client
// that asks (the dashboard's pages of rows), identical once decoded, ETag and 304 unchanged.
import zlib from 'node:zlib';
import http from 'node:http';
import t from 'tap';
import { client, startApp } from '../support/app.js';

t.setTimeout(60_000);

t.test('every failed check by field, and compressed JSON', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  await s.app.probing.stop(0);
  const token = await s.token('errors');
  const api = client(s.url, token);
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;

  const bad = await api.post('/api/v1/endpoints', {
    domain_id: domain.id,
    name: 'web',
    endpoint_type: 'https',
    extra: 1,
    liveness: { interval_seconds: 0, failure_threshold: 0 },
  });
  t.equal(bad.status, 400);
  t.equal(bad.body.code, 'VALIDATION_ERROR');
  t.ok(bad.body.timestamp && bad.body.path, "the spec's body");
  t.equal(bad.body.error, `${bad.body.errors[0].field}: ${bad.body.errors[0].message}`, 'the message is the first');
  t.same(
    new Set(bad.body.errors.map((e: any) => e.field)),
    new Set(['extra', 'liveness.interval_seconds', 'liveness.failure_threshold']),
    'every field named',
  );
  t.equal((await api.get('/api/v1/endpoints')).body.data.length, 0, 'nothing written');

  // Bounded: a body with many unknown fields names 20 and counts the rest.
  const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`x${i}`, i]));
  const wide = await api.post('/api/v1/domains', { domain: 'example.org', ...many });
  t.equal(wide.status, 400);
  t.equal(wide.body.errors.length, 20);
  t.equal(wide.body.errors_omitted, 10);

  // Queries too.
  const q = await api.get('/api/v1/home?limit=0&state=nope');
  t.same(q.body.errors.map((e: any) => e.field).sort(), ['limit', 'state']);

  // Compressed for a client that asks, the same JSON once decoded; never for one that does not.
  for (let i = 0; i < 20; i++) await api.post('/api/v1/domains', { domain: `site-${i}.example.com` });
  const raw = (encoding?: string, etag?: string) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const u = new URL('/api/v1/domains?limit=100', s.url);
      http
        .get(
          u,
          {
            headers: {
              authorization: `Bearer ${token}`,
              ...(encoding && { 'accept-encoding': encoding }),
              ...(etag && { 'if-none-match': etag }),
            },
          },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (c: Buffer) => parts.push(c));
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }));
          },
        )
        .on('error', reject);
    });
  const plain = await raw();
  t.equal(plain.headers['content-encoding'], undefined, 'not asked: not compressed');
  const gz = await raw('gzip');
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.same(JSON.parse(zlib.gunzipSync(gz.body).toString()), JSON.parse(plain.body.toString()), 'the same JSON');
  t.ok(gz.body.length < plain.body.length / 3, `${plain.body.length} B as ${gz.body.length} B gzip`);
  const br = await raw('br, gzip');
  t.equal(br.headers['content-encoding'], 'br');
  t.same(JSON.parse(zlib.brotliDecompressSync(br.body).toString()), JSON.parse(plain.body.toString()));
  t.equal(gz.headers.etag, plain.headers.etag, 'one ETag whatever the encoding');
  const again = await raw('gzip', gz.headers.etag);
  t.equal(again.status, 304, 'revalidated: 304');
  t.equal(again.body.length, 0);
});
