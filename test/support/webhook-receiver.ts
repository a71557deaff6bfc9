// A loopback HTTP receiver for webhook-style channels: answers from a script (status, headers, or
// hang) and records every request's raw bytes, headers and arrival time.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';

type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Received {
  n: number;
  /** performance.now() when the request was fully read. */
  at: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  json: any;
}

export interface WebhookReceiver {
  url: string;
  requests: Received[];
  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** `script(n)` answers the n-th request (1-based); default 200 for every request. */
export async function startWebhookReceiver(
  script: (n: number, req: Omit<Received, 'at'>) => Reply | Promise<Reply> = () => ({ status: 200 }),
): Promise<WebhookReceiver> {
  const requests: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = undefined;
      }
      const r = {
        n: requests.length + 1,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        json,
      };
      requests.push({ ...r, at: performance.now() });
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      void Promise.resolve(script(r.n, r)).then((reply) => {
        if (reply === 'hang') return; // never answer: the sender's timeout must fire
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? (reply.status < 300 ? 'ok' : `status ${reply.status}`));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    requests,
    waitFor(count, timeoutMs = 5000) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver: ${requests.length} of ${count} requests after ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(requests.slice())) });
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a receiver should do: HMAC-SHA256 over the raw bytes, compared in constant time. */
export function verifySignature(raw: Buffer, header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'), 'utf8');
  const given = Buffer.from(header.slice('sha256='.length), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
