// Resource commands speak the Public API: in-process on the local database, or to a daemon with --remote.
// A remote request goes through node:http or node:https: Node's fetch compiles its own undici, the
// WHATWG streams and the llhttp WebAssembly parser at its first request, ~110 ms of CPU (more than
// the rest of a --remote command) against ~10 ms (docs/benchmarks.md).
import http from 'node:http';
import https from 'node:https';
import type { CliContext } from './context.js';
import { UsageError } from './output.js';

export interface Transport {
  /** `timeoutMs` bounds a remote request (30 s unless given); a local one runs to its end. */
  request(
    method: string,
    path: string,
    body?: unknown,
    opts?: { timeoutMs?: number },
  ): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/** An API answer >= 400 as an error carrying the status, so exit codes follow the contract. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function openTransport(ctx: CliContext): Promise<Transport> {
  const { remoteUrl, remoteToken } = ctx.config;
  if (!remoteUrl) return (await import('../app.js')).openLocalApi(ctx.config, ctx.opts.team);
  if (!remoteToken) throw new UsageError('--remote needs --token (or DOMMON_TOKEN)');
  const secure = new URL(remoteUrl).protocol === 'https:';
  // One kept-alive connection for a command's requests (an import sends many); idle, it does not keep
  // the process alive (Node unrefs an agent's free sockets), and close() ends it.
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  return {
    async request(method, path, body, opts) {
      let answer: { status: number; location: string | undefined; text: string };
      try {
        answer = await send(secure ? https : http, agent, remoteUrl + path, {
          method,
          headers: { accept: '*/*', authorization: `Bearer ${remoteToken}` },
          body: body === undefined ? undefined : JSON.stringify(body),
          timeoutMs: opts?.timeoutMs ?? 30_000,
        });
      } catch (err) {
        throw new Error(`cannot reach ${remoteUrl}: ${(err as Error).message}`);
      }
      const { status, location, text } = answer;
      // Not followed: the daemon's API does not redirect, so one that does is not the daemon (a proxy
      // sending http to https, say), and the token is not sent on to wherever it points.
      if ([301, 302, 303, 307, 308].includes(status))
        throw new Error(
          `${remoteUrl} answered ${status}${location ? `, a redirect to ${location}` : ''}: --remote takes the daemon's own URL`,
        );
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        throw new Error(`${remoteUrl} answered ${status} with a body that is not JSON`);
      }
      return { status, body: parsed };
    },
    async close() {
      agent.destroy();
    },
  };
}

/**
 * One request; the answer's status, Location and body. Rejects with the socket's error (ECONNREFUSED,
 * ENOTFOUND, a TLS failure) or, after `timeoutMs` (the whole exchange), a timeout.
 */
function send(
  client: typeof http | typeof https,
  agent: http.Agent,
  url: string,
  o: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number },
): Promise<{ status: number; location: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const headers =
      o.body === undefined
        ? o.headers
        : { ...o.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(o.body)) };
    const req = client.request(url, { method: o.method, headers, agent }, (res) => {
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

/**
 * Sends one request and returns the body, or throws ApiError with the API's own message. `T` is the
 * shape the caller reads (the OpenAPI document owns it); the body is not checked against it.
 */
export async function call<T = unknown>(t: Transport, method: string, path: string, body?: unknown): Promise<T> {
  const r = await t.request(method, path, body);
  if (r.status >= 400)
    throw new ApiError(r.status, (r.body as { error?: string } | undefined)?.error ?? `HTTP ${r.status}`);
  return r.body as T;
}

export function qs(params: Record<string, string | number | boolean | undefined>): string {
  const e = Object.entries(params).filter(([, v]) => v !== undefined && v !== '');
  return e.length ? `?${new URLSearchParams(e.map(([k, v]) => [k, String(v)] as [string, string])).toString()}` : '';
}
