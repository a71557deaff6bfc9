// The command line's HTTP client (--remote requests, `dommon run`'s pings): node:http and node:https.
// Node's fetch compiles its own undici, the WHATWG streams and the llhttp WebAssembly parser at its
// first request, ~110 ms of CPU, more than the rest of such a command; one request over node:http
// costs ~10 ms (docs/benchmarks.md). Redirects are not followed.
import http from 'node:http';
import https from 'node:https';

export interface HttpAnswer {
  status: number;
  /** The Location header, if any. */
  location: string | undefined;
  text: string;
}

/** A kept-alive agent for several requests to `url`'s origin; idle, its sockets do not keep the process alive. */
export function keepAliveAgent(url: string): http.Agent {
  return new URL(url).protocol === 'https:'
    ? new https.Agent({ keepAlive: true })
    : new http.Agent({ keepAlive: true });
}

/**
 * One request (http or https by the URL); `body` is sent as is, with its length. Rejects with the
 * socket's error (ECONNREFUSED, ENOTFOUND, a TLS failure: its `code` when it has one) or, after
 * `timeoutMs` (the whole exchange), "no answer within N ms".
 */
export function httpSend(
  url: string,
  o: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number; agent?: http.Agent },
): Promise<HttpAnswer> {
  const client = new URL(url).protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const headers =
      o.body === undefined ? o.headers : { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) };
    const req = client.request(url, { method: o.method, headers, agent: o.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)), o.timeoutMs);
    function fail(err: Error) {
      clearTimeout(timer);
      reject(err);
    }
    req.on('error', fail);
    req.end(o.body);
  });
}
