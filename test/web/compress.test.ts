// The dashboard's files on the wire, over real HTTP to the real app: each goes out as the build
// precompressed it (brotli or gzip by Accept-Encoding, with Vary), hashed files cached for a year
// (immutable) and the page revalidated every time; the bytes a browser receives for a first load and
// a repeat visit, counted on the socket (headers included), are under the budgets of docs/web.md; and
// the forms' schemas (GET /ui/schemas) as the API has them, compressed and revalidated.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import t from 'tap';
import { startApp } from '../support/app.js';
import { PACKAGE_ROOT } from '../../src/package.js';
import { loadSchemas } from '../../src/api/validation.js';

t.setTimeout(120_000);

if (!fs.existsSync(path.join(PACKAGE_ROOT, 'dist/web/index.html.br')))
  execFileSync(process.execPath, [path.join(PACKAGE_ROOT, 'scripts/web.mjs')], { stdio: 'inherit' });

/** What Chromium sends. */
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

interface Wire {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as sent (still compressed). */
  raw: Buffer;
  /** Bytes read from the socket for this answer: status line, headers and body. */
  wire: number;
  /** Bytes written for the request. */
  sent: number;
}

/** One keep-alive connection, as a browser's: each answer's bytes are counted on the socket. */
function connection(base: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const { port } = new URL(base);
  const get = (p: string, headers: Record<string, string> = {}) =>
    new Promise<Wire>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: p, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const s = req.socket!;
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            raw: Buffer.concat(chunks),
            wire: s.bytesRead - readBefore,
            sent: s.bytesWritten - writtenBefore,
          });
        });
      });
      let readBefore = 0;
      let writtenBefore = 0;
      req.on('socket', (s) => {
        readBefore = s.bytesRead;
        writtenBefore = s.bytesWritten;
      });
      req.on('error', reject);
    });
  return { get, close: () => agent.destroy() };
}

const decode = (w: Wire) =>
  w.headers['content-encoding'] === 'br'
    ? zlib.brotliDecompressSync(w.raw)
    : w.headers['content-encoding'] === 'gzip'
      ? zlib.gunzipSync(w.raw)
      : w.raw;

/** The files a browser loads with the page: those it names, and the modules they import statically. */
function filesOf(html: string, read: (f: string) => string | undefined): string[] {
  const out = new Set([...html.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+)"/g)].map((m) => m[1]!));
  for (const f of out)
    if (f.endsWith('.js'))
      for (const m of (read(f) ?? '').matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) out.add(`/ui/assets/${m[1]}`);
  return [...out];
}

t.test('files go out precompressed by Accept-Encoding, with Vary and one validator per encoding', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const c = connection(s.url);
  t.teardown(c.close);
  const page = await c.get('/');
  t.equal(page.status, 200);
  t.equal(page.headers['content-encoding'], undefined, 'no Accept-Encoding: the file as it is');
  const html = page.raw.toString();
  const js = html.match(/src="(\/ui\/assets\/main-[A-Z0-9]+\.js)"/)![1]!;
  const css = html.match(/href="(\/ui\/assets\/[^"]+\.css)"/)![1]!;

  for (const p of ['/', js, css]) {
    const plain = await c.get(p);
    const br = await c.get(p, { 'accept-encoding': BROWSER_ENCODINGS });
    const gz = await c.get(p, { 'accept-encoding': 'gzip' });
    const refuseBr = await c.get(p, { 'accept-encoding': 'br;q=0, gzip' });
    t.equal(br.headers['content-encoding'], 'br', `${p}: brotli for a browser (named after gzip in its header)`);
    t.equal(gz.headers['content-encoding'], 'gzip', `${p}: gzip when only gzip is accepted`);
    t.equal(refuseBr.headers['content-encoding'], 'gzip', `${p}: br;q=0 is respected`);
    for (const w of [plain, br, gz]) {
      t.equal(w.headers.vary, 'Accept-Encoding', `${p}: Vary`);
      t.equal(Number(w.headers['content-length']), w.raw.length, `${p}: Content-Length of the bytes sent`);
    }
    t.same(decode(br), plain.raw, `${p}: brotli decodes to the file`);
    t.same(decode(gz), plain.raw, `${p}: gzip decodes to the file`);
    t.ok(br.raw.length < gz.raw.length && gz.raw.length < plain.raw.length, `${p}: brotli < gzip < the file`);
    if (p !== '/') t.ok(br.raw.length < plain.raw.length / 2, `${p}: brotli under half the file`);
    const etags = new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]);
    t.equal(etags.size, 3, `${p}: a validator per representation`);
    const again = await c.get(p, { 'accept-encoding': BROWSER_ENCODINGS, 'if-none-match': br.headers.etag! });
    t.equal(again.status, 304, `${p}: revalidated`);
    t.equal(again.raw.length, 0);
    const other = await c.get(p, { 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag! });
    t.equal(other.status, 200, `${p}: brotli's validator does not match the gzip answer`);
    t.equal(other.headers['content-encoding'], 'gzip');
  }
  const asset = await c.get(js, { 'accept-encoding': BROWSER_ENCODINGS });
  t.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable', 'hashed file: a year, immutable');
  t.equal(page.headers['cache-control'], 'no-cache', 'the page: revalidated on every visit');
  const head = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http
      .request({ method: 'HEAD', host: '127.0.0.1', port: new URL(s.url).port, path: js }, (r) => {
        r.resume();
        resolve(r);
      })
      .on('error', reject)
      .end(),
  );
  t.equal(head.statusCode, 200, 'HEAD answers too');
  t.ok(
    fs.existsSync(path.join(PACKAGE_ROOT, 'dist/web', `${js.slice(1).replace('ui/', '')}.br`)),
    'the build wrote .br',
  );
  t.equal((await c.get(`${js}.br`)).status, 404, 'the .br copies are not files of their own');
  t.equal((await c.get(`${js}.gz`)).status, 404, 'nor the .gz ones');
});

t.test("the forms' schemas: the API's own, compressed and revalidated", async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const c = connection(s.url);
  t.teardown(c.close);
  const r = await c.get('/ui/schemas', { 'accept-encoding': BROWSER_ENCODINGS });
  t.equal(r.status, 200, 'public, like /openapi.json');
  t.equal(r.headers['content-encoding'], 'br');
  t.equal(r.headers['cache-control'], 'no-cache');
  t.equal(r.headers.vary, 'Accept-Encoding');
  const { schemas } = JSON.parse(decode(r).toString()) as { schemas: Record<string, any> };
  t.same(schemas['endpoint-create'], loadSchemas()['endpoint-create'], 'the schema the API validates with');
  t.ok(schemas['liveness-update'], 'what endpoint-create references comes along');
  t.equal(schemas['channels/webhook'].properties.secret_key.writeOnly, true, "a channel's secret is marked writeOnly");
  t.notOk(schemas['channels/webhook'].properties.webhook_url.writeOnly);
  t.notOk(schemas['domain-list'], 'a response schema is not sent');
  const again = await c.get('/ui/schemas', { 'accept-encoding': BROWSER_ENCODINGS, 'if-none-match': r.headers.etag! });
  t.equal(again.status, 304, 'revalidated');
  t.ok(r.raw.length < 8 * 1024, `${r.raw.length} bytes brotli`);
});

t.test('first load under 60 KB and a repeat visit under 5 KB on the wire', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const bodies = new Map<string, string>();
  const first = connection(s.url);
  t.teardown(first.close);
  const h = { 'accept-encoding': BROWSER_ENCODINGS };
  // First visit: the page, every file it loads, and the session check the page makes at once.
  const page = await first.get('/', h);
  const html = decode(page).toString();
  let firstLoad = page.wire + page.sent;
  const validators = new Map<string, string>();
  validators.set('/', page.headers.etag!);
  const files: string[] = [];
  const queue = filesOf(html, () => undefined);
  while (queue.length) {
    const f = queue.shift()!;
    if (files.includes(f)) continue;
    files.push(f);
    const w = await first.get(f, h);
    t.equal(w.status, 200, f);
    t.equal(w.headers['content-encoding'], 'br', `${f}: brotli`);
    bodies.set(f, decode(w).toString());
    firstLoad += w.wire + w.sent;
    for (const more of filesOf(html, (x) => bodies.get(x))) if (!files.includes(more)) queue.push(more);
  }
  const session = await first.get('/ui/session', h);
  t.equal(session.status, 200);
  firstLoad += session.wire + session.sent;
  t.ok(files.some((f) => f.endsWith('.css')) && files.some((f) => f.endsWith('.js')), 'a script and a stylesheet');
  t.ok(firstLoad < 60 * 1024, `first load ${firstLoad} bytes on the wire (${files.length + 2} answers), under 60 KB`);

  // Repeat visit: the hashed files are fresh in the cache (immutable, a year), so the browser asks
  // again only for the page (revalidated: 304) and the session.
  const repeat = connection(s.url);
  t.teardown(repeat.close);
  const again = await repeat.get('/', { ...h, 'if-none-match': validators.get('/')! });
  t.equal(again.status, 304, 'the page: 304');
  const session2 = await repeat.get('/ui/session', h);
  const repeatBytes = again.wire + again.sent + session2.wire + session2.sent;
  t.ok(repeatBytes < 5 * 1024, `repeat visit ${repeatBytes} bytes on the wire, under 5 KB`);
  t.comment(`first load ${firstLoad} B, repeat visit ${repeatBytes} B`);
});
