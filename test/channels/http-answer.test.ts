// A receiver's answer is read at most MAX_ANSWER_BYTES deep and never shown: a huge or hostile error
// body neither grows the daemon's memory nor lands in the tenant's delivery log.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { MAX_ANSWER_BYTES, postJson, statusReason } from '../../src/channels/http.js';
import { urls } from './fixtures.js';

const ctx = {
  timeoutMs: 5000,
  smtpUrl: null,
  smtpFrom: 'x@example.test',
  smtpTls: 'verify-if-offered',
  urls: urls(),
} as const;

async function receiver(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const srv = http.createServer(handler);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

t.test('an endless 500 body: outcome comes back after at most a little more than 1 KiB is read', async (t) => {
  let written = 0;
  let closed = false;
  const chunk = Buffer.alloc(16 * 1024, 'A');
  const rx = await receiver((req, res) => {
    req.resume();
    res.writeHead(500, { 'content-type': 'text/plain' });
    const pump = () => {
      // Stop once the client has gone; otherwise keep writing (a 1 GB cap keeps a broken client from hanging the test).
      while (!closed && written < 1024 ** 3 && res.write(chunk)) written += chunk.length;
      if (!closed && written < 1024 ** 3) res.once('drain', pump);
    };
    res.on('close', () => {
      closed = true;
    });
    pump();
  });
  t.teardown(rx.close);
  const out = await postJson(
    { url: rx.url, headers: { 'content-type': 'application/json' }, body: '{}', preview: '{}' },
    ctx,
  );
  t.same({ ok: out.ok, status: out.status, transient: out.transient }, { ok: false, status: 500, transient: true });
  t.equal(out.error, 'HTTP 500: server error at the receiver', 'our reason, not the body');
  t.notMatch(out.error ?? '', /AAAA/);
  await new Promise((r) => setTimeout(r, 100));
  t.ok(closed, 'the connection was cancelled');
  // Socket buffers on both sides hold a few MB at most; an unbounded read would go on to 1 GB.
  t.ok(written < 64 * 1024 * 1024, `the receiver stopped after ${(written / 1024 / 1024).toFixed(1)} MB`);
});

t.test('a 4xx with a page that tries to speak for us is not echoed', async (t) => {
  const rx = await receiver((req, res) => {
    req.resume();
    res.writeHead(400, { 'content-type': 'text/html' });
    res.end('<h1>internal token: s3cr3t</h1>');
  });
  t.teardown(rx.close);
  const out = await postJson({ url: rx.url, headers: {}, body: '{}', preview: '{}' }, ctx);
  t.equal(out.status, 400);
  t.equal(out.transient, false);
  t.equal(out.error, 'HTTP 400: the receiver rejected the message');
});

t.test('2xx with a long body is a success', async (t) => {
  const rx = await receiver((req, res) => {
    req.resume();
    res.writeHead(200);
    res.end(Buffer.alloc(MAX_ANSWER_BYTES * 8, 'x'));
  });
  t.teardown(rx.close);
  const out = await postJson({ url: rx.url, headers: {}, body: '{}', preview: '{}' }, ctx);
  t.same(out, { ok: true, status: 200, transient: false, error: null });
});

t.test('reasons are ours and short', async (t) => {
  t.equal(statusReason(429), 'rate limited by the receiver');
  t.equal(statusReason(410), 'the receiver URL no longer exists');
  t.equal(statusReason(302), 'the receiver redirects (redirects are not followed)');
  t.equal(statusReason(401), 'the receiver refused our credentials');
});
