// Resource commands speak the Public API: in-process on the local database, or to a daemon with --remote.
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
  return {
    async request(method, path, body, opts) {
      let res: Response;
      try {
        res = await fetch(remoteUrl + path, {
          method,
          headers: {
            authorization: `Bearer ${remoteToken}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(opts?.timeoutMs ?? 30_000),
        });
      } catch (err) {
        throw new Error(`cannot reach ${remoteUrl}: ${(err as Error).message}`);
      }
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        throw new Error(`${remoteUrl} answered ${res.status} with a body that is not JSON`);
      }
      return { status: res.status, body: parsed };
    },
    async close() {},
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
