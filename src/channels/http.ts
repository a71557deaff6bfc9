// One JSON POST with a timeout, classified as the spec says: 2xx success; 5xx, 408, 429 and network
// errors transient; every other status permanent.
import type { SendOutcome } from '../domain/notification.js';
import { AttemptAborted, type HttpRequest, type SendContext } from './types.js';

export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Retry-After as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(v: string | null, now = Date.now()): number | null {
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, Math.ceil((t - now) / 1000));
}

export async function postJson(req: HttpRequest, ctx: SendContext): Promise<SendOutcome> {
  const timeout = AbortSignal.timeout(ctx.timeoutMs);
  const signal = ctx.signal ? AbortSignal.any([timeout, ctx.signal]) : timeout;
  let res: Response;
  try {
    res = await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body, signal, redirect: 'manual' });
  } catch (err) {
    if (ctx.signal?.aborted) throw new AttemptAborted();
    if (timeout.aborted) return { ok: false, status: null, transient: true, error: `timeout: no answer within ${ctx.timeoutMs} ms` };
    const e = err as Error & { cause?: { code?: string; message?: string } };
    return { ok: false, status: null, transient: true, error: `network error: ${e.cause?.code ?? e.cause?.message ?? e.message}` };
  }
  // Read (and bound) the body so the connection is released; it only feeds the error message.
  let text = '';
  try {
    text = (await res.text()).slice(0, 200);
  } catch {
    if (ctx.signal?.aborted) throw new AttemptAborted();
  }
  if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, transient: false, error: null };
  const transient = isTransientStatus(res.status);
  return {
    ok: false,
    status: res.status,
    transient,
    retryAfterSeconds: transient ? parseRetryAfter(res.headers.get('retry-after')) : null,
    error: `HTTP ${res.status}${text ? `: ${text.replace(/\s+/g, ' ').trim()}` : ''}`,
  };
}
