// Resource commands speak the Public API: in-process on the local database, or to a daemon with --remote
// (through node:http or node:https, not Node's fetch: http.ts).
import type { CliContext } from './context.js';
import type { HttpAnswer } from './http.js';
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
  // One kept-alive connection for a command's requests (an import sends many); idle, it does not keep
  // the process alive (Node unrefs an agent's free sockets), and close() ends it. node:http and
  // node:https load here, for --remote only (a local command needs neither: ~1 % of its instructions).
  const { httpSend, keepAliveAgent } = await import('./http.js');
  const agent = keepAliveAgent(remoteUrl);
  return {
    async request(method, path, body, opts) {
      let answer: HttpAnswer;
      try {
        answer = await httpSend(remoteUrl + path, {
          method,
          headers: {
            accept: '*/*',
            authorization: `Bearer ${remoteToken}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          timeoutMs: opts?.timeoutMs ?? 30_000,
          agent,
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
