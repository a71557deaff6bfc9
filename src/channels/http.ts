// One JSON POST with a timeout, classified as the spec says: 2xx success; 5xx, 408, 429 and network
// errors transient; every other status permanent.
import type { Dispatcher } from 'undici';
import type { SendOutcome } from '../domain/notification.js';
import { dispatcherOf, undici } from '../net/dispatcher.js';
import { hostOnly } from './shared.js';
import { AttemptAborted, type HttpRequest, type SendContext } from './types.js';

function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Retry-After as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
function parseRetryAfter(v: string | null, now = Date.now()): number | null {
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, Math.ceil((t - now) / 1000));
}

interface AnswerReaders {
  /**
   * Turns the first KiB of a failed answer into a reason; only channels whose receiver is a fixed,
   * documented service (Pushover, Telegram, PagerDuty, Opsgenie) use it. Tenant-chosen URLs never get
   * their body shown.
   */
  explain?: (head: string) => string | null;
  /** Seconds to wait read from a 429 body (Telegram's `parameters.retry_after`, Matrix's `retry_after_ms`, Discord's `retry_after`) when no Retry-After header came. */
  retryAfter?: (head: string) => number | null;
}

/** One JSON request (POST unless req.method says PUT), classified. */
export async function postJson(req: HttpRequest, ctx: SendContext, readers: AnswerReaders = {}): Promise<SendOutcome> {
  const { explain } = readers;
  const timeout = AbortSignal.timeout(ctx.timeoutMs);
  const signal = ctx.signal ? AbortSignal.any([timeout, ctx.signal]) : timeout;
  let res: Dispatcher.ResponseData;
  let head = '';
  const [{ request }, dispatcher] = await Promise.all([undici(), dispatcherOf(ctx.dispatcher)]);
  try {
    // undici's request(), not fetch(): the same pool of keep-alive connections without a WHATWG
    // Request, Response and streams per attempt (a third of the CPU); redirects are not followed.
    res = await request(req.url, {
      method: req.method ?? 'POST',
      headers: { accept: '*/*', 'user-agent': 'dommon', ...req.headers },
      body: req.body,
      signal,
      dispatcher,
    });
  } catch (err) {
    if (ctx.signal?.aborted) throw new AttemptAborted();
    if (timeout.aborted)
      return { ok: false, status: null, transient: true, error: `timeout: no answer within ${ctx.timeoutMs} ms` };
    const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
    const cause = e.code ? e : (e.cause ?? e);
    // Refused by our own policy: permanent, and said in our words.
    if (cause.code === 'ERR_OUTBOUND_DENIED')
      return { ok: false, status: null, transient: false, error: `blocked: ${cause.message}` };
    // Never the URL itself: its path or query may hold a credential (Telegram token, webhook key).
    const why = String(cause.code ?? cause.message ?? e.message)
      .split(req.url)
      .join(hostOnly(req.url));
    return { ok: false, status: null, transient: true, error: `network error: ${why}` };
  }
  // Never keep or show the receiver's body (it could be anything, of any size): read at most
  // MAX_ANSWER_BYTES so a keep-alive connection can be reused, then cancel the rest.
  try {
    head = await drainBounded(res.body, MAX_ANSWER_BYTES);
  } catch {
    if (ctx.signal?.aborted) throw new AttemptAborted();
  }
  const header = (name: string) => {
    const v = res.headers[name];
    return (Array.isArray(v) ? v[0] : v) ?? null;
  };
  const status = res.statusCode;
  if (status >= 200 && status < 300) return { ok: true, status, transient: false, error: null };
  const transient = isTransientStatus(status);
  return {
    ok: false,
    status,
    transient,
    retryAfterSeconds: transient
      ? (parseRetryAfter(header('retry-after')) ?? (readers.retryAfter && head ? readers.retryAfter(head) : null))
      : null,
    error: `HTTP ${status}: ${(explain && head && explain(head)) || statusReason(status)}`,
  };
}

/** At most this many bytes of a notification answer are read; the rest is cancelled. */
export const MAX_ANSWER_BYTES = 1024;

/** Reads at most `max` bytes of the body (returned as text), then stops the rest. */
async function drainBounded(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let seen = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      seen += chunk.byteLength;
      if (seen > max) break; // leaving the loop destroys the body: the download stops
    }
    return Buffer.concat(chunks).subarray(0, max).toString('utf8');
  } finally {
    // A body that already ended makes this a no-op.
    if (!body.destroyed && !body.readableEnded) body.destroy();
  }
}

/** A short reason of ours for a status; the receiver's own text is never echoed. */
export function statusReason(status: number): string {
  if (status === 408) return 'the receiver timed out';
  if (status === 429) return 'rate limited by the receiver';
  if (status >= 500) return 'server error at the receiver';
  if (status === 401 || status === 403) return 'the receiver refused our credentials';
  if (status === 404 || status === 410) return 'the receiver URL no longer exists';
  if (status >= 300 && status < 400) return 'the receiver redirects (redirects are not followed)';
  return 'the receiver rejected the message';
}

/** A parsed JSON answer as an object of unknown fields (anything else: an empty object). */
type JsonObject = Record<string, unknown>;
const asObject = (v: unknown): JsonObject => (v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {});

/** A number field of a JSON answer's head (e.g. `retry_after`), or null. */
export function jsonNumber(head: string, pick: (j: JsonObject) => unknown): number | null {
  try {
    const v = pick(asObject(JSON.parse(head)));
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
  } catch {
    return null;
  }
}

/** Strings of a JSON answer's field, cleaned and cut to 200 characters (fixed providers only). */
export function jsonText(head: string, pick: (j: JsonObject) => unknown): string | null {
  try {
    const v = pick(asObject(JSON.parse(head)));
    const list = (Array.isArray(v) ? v : [v]).filter((e): e is string => typeof e === 'string');
    const text = list
      .join('; ')
      .replace(/[\u0000-\u001f]+/g, ' ')
      .trim();
    return text ? (text.length > 200 ? `${text.slice(0, 199)}…` : text) : null;
  } catch {
    return null;
  }
}
