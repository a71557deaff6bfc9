// A loopback HTTP server for checks that read more than a status line: JSON answers, redirects
// (relative, to another origin, in a loop), a body too long to read, and a log of what each request
// carried (method, headers, body). `answer` replaces the JSON that /json serves.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface AnswersServer {
  port: number;
  /** Every request, in order. */
  seen: SeenRequest[];
  /** The body /json answers (JSON.stringify'd). */
  answer(value: unknown, status?: number): void;
  /** Where /elsewhere redirects (another origin). */
  elsewhere: string;
  close(): Promise<void>;
}

/** A JSON document of about `bytes` bytes: `{ status, data: [{ id, name, tags }...] }`. */
export function jsonOfSize(bytes: number, status = 'UP'): { status: string; data: unknown[] } {
  const data: unknown[] = [];
  const doc = { status, data };
  let size = JSON.stringify(doc).length;
  for (let i = 0; size < bytes; i++) {
    const item = { id: i, name: `item-${i}`, tags: ['alpha', 'beta'], healthy: true };
    data.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return doc;
}

export async function startAnswers(
  opts: { elsewhere?: string; tls?: { cert: string; key: string } } = {},
): Promise<AnswersServer> {
  let json = JSON.stringify({ status: 'UP', data: [{ name: 'john' }] });
  let jsonStatus = 200;
  const seen: SeenRequest[] = [];
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      seen.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const redirect = (status: number, location: string) => res.writeHead(status, { location }).end();
      if (path === '/json') res.writeHead(jsonStatus, { 'content-type': 'application/json' }).end(json);
      else if (path === '/redirect') redirect(302, '/json');
      else if (path === '/see-other') redirect(303, '/json');
      else if (path === '/temporary') redirect(307, '/json');
      else if (path === '/loop') redirect(302, '/loop');
      else if (path === '/elsewhere') redirect(302, answers.elsewhere);
      else if (path === '/ftp') redirect(302, 'ftp://example.com/');
      else if (path === '/big') {
        // Longer than the read bound, sent chunked (no Content-Length to refuse it by).
        res.writeHead(200, { 'content-type': 'text/plain' });
        const block = 'x'.repeat(64 * 1024);
        for (let i = 0; i < 20; i++) res.write(block);
        res.end();
      } else if (path === '/declared-big')
        res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) }).end('x'.repeat(2 * 1024 * 1024));
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  };
  const server = opts.tls ? https.createServer(opts.tls, handler) : http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const answers: AnswersServer = {
    port,
    seen,
    elsewhere: opts.elsewhere ?? 'http://127.0.0.1:1/',
    answer(value, status = 200) {
      json = JSON.stringify(value);
      jsonStatus = status;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return answers;
}
