// The ping URLs of push endpoints, as Healthchecks.io's: /ping/<key>, /ping/<key>/start, /fail, /log and
// /<exit status 0-255>, by GET, HEAD or POST, public (the key, a random UUID, is the secret). Answers are
// Healthchecks.io's plain text: 200 `OK`, 404 `not found` (an unknown key, or an unknown action),
// 429 `rate limited`. A POST body's first PING_BODY_LIMIT bytes are kept as the ping's log; the rest is
// read and dropped, up to DRAIN_LIMIT. Served ahead of the JSON body parser (a ping's body is any text),
// and logged with the key cut to its first 8 characters.
// Uptime Kuma's push URL is served too, for the same keys: /api/push/<key>?status=up|down&msg=...&ping=<ms>
// (status up by default, anything else a failure with msg as its reason; ping the reported time in ms),
// answered as Kuma does: {"ok":true}, {"ok":false,"msg":...} with 400 for a bad ping value, 404 for an
// unknown key (the same answer for every unknown or malformed key) and 429 past the same limits, which the
// two forms share.
// Gatus's external-endpoint URL is served too: POST /api/v1/endpoints/<gatus key>/external?success=true|false
// with `Authorization: Bearer <token>`, the token being the push endpoint's ping key (what `dommon import
// gatus` keeps of an external endpoint's token); `error` (query, or a JSON body's `error`) is a failure's
// reason and `duration` (Go's form: 1m30s) the run's time. The key in the path names the endpoint in
// Gatus; here the token alone picks it, so an unknown or wrong token is one answer (401), whatever the key.
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.js';
import { clientKey } from '../../domain/client-address.js';
import { goDurationMs } from '../../domain/go-duration.js';
import { NotFound } from '../../domain/errors.js';
import { PING_BODY_LIMIT, PING_KEY, pingKeyOf } from '../../domain/push.js';
import type { PushService } from '../../services/push.js';

const PING_PATH = /^\/ping\/([^/]{1,100})(?:\/([^/]{1,20}))?\/?$/;
/** A path with a segment under /ping/: the ping URLs' own space. */
const PING_SPACE = /^\/ping\/[^/]/;
/** Uptime Kuma's push URL: /api/push/<key>, its report in the query string. */
const KUMA_PATH = /^\/api\/push\/([^/]{1,100})\/?$/;
/** A path with a segment under /api/push/: Kuma's push URLs' own space. */
const KUMA_SPACE = /^\/api\/push\/[^/]/;
/** Gatus's external-endpoint URL: /api/v1/endpoints/<key>/external, the report in the query string. */
const GATUS_PATH = /^\/api\/v1\/endpoints\/[^/]+\/external\/?$/;
/** Kuma's bounds of a reported ping time (ms): none negative, none over a day. */
const KUMA_PING_MAX_MS = 86_400_000;
/** Kuma's answer to a key it does not know (the same for every key, known or not, that is not a push monitor's). */
const KUMA_UNKNOWN = 'Monitor not found or not active.';
/** Past this many bytes a ping's body is not read on: the connection is closed after the answer. */
const DRAIN_LIMIT = 10 * PING_BODY_LIMIT;
/** Pings per key and client address, and unknown keys per client address, in one minute. */
const PING_RATE = { perKey: 60, misses: 30, windowMs: 60_000 } as const;

/** Counts in fixed one-minute windows (one process; the map is emptied each window, so it stays small). */
function windowCounter(clock: Clock) {
  let window = -1;
  let counts = new Map<string, number>();
  const current = () => {
    const w = Math.floor(clock.now().getTime() / PING_RATE.windowMs);
    if (w !== window) {
      window = w;
      counts = new Map();
    }
    return counts;
  };
  return {
    /** Counts one for `key`; false once past `limit` in this window. */
    take(key: string, limit: number): boolean {
      const c = current();
      const n = (c.get(key) ?? 0) + 1;
      c.set(key, n);
      return n <= limit;
    },
    over: (key: string, limit: number): boolean => (current().get(key) ?? 0) >= limit,
  };
}

/** The body's first `keep` bytes, and whether it ended within `limit` bytes. */
async function readBody(
  req: Koa.Request['req'],
  keep: number,
  limit: number,
): Promise<{ data: Buffer; bytes: number; ended: boolean }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let seen = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    seen += chunk.length;
    if (kept < keep) {
      const part = chunk.subarray(0, keep - kept);
      chunks.push(part);
      kept += part.length;
    }
    if (seen > limit) return { data: Buffer.concat(chunks), bytes: seen, ended: false };
  }
  return { data: Buffer.concat(chunks), bytes: seen, ended: true };
}

/** A query parameter's first value (`?status=a&status=b` gives "a"). */
function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Kuma's `ping` parameter: null when absent or empty, else a number of ms within Kuma's bounds, or why not. */
function kumaPingMs(raw: string | undefined): { ms: number | null } | { error: string } {
  if (raw === undefined || raw === '') return { ms: null };
  const ms = Number(raw);
  if (Number.isNaN(ms)) return { error: `Invalid ping value: '${raw.slice(0, 50)}' is not a valid number` };
  if (ms < 0) return { error: `Invalid ping value: ${ms}ms cannot be negative` };
  if (ms > KUMA_PING_MAX_MS)
    return { error: `Ping value ${ms}ms exceeds maximum allowed (${KUMA_PING_MAX_MS}ms = 24 hours)` };
  return { ms };
}

export function pingMiddleware(deps: { services: { push: PushService }; clock: Clock; log: Logger }): Koa.Middleware {
  const counter = windowCounter(deps.clock);
  const misses = windowCounter(deps.clock);
  /** Refuses a client past the limits (counting this ping): unknown keys this minute, or this key's pings. */
  const limited = (key: string, client: string) =>
    misses.over(client, PING_RATE.misses) || !counter.take(`${key} ${client}`, PING_RATE.perKey);
  const retryAfter = String(Math.ceil(PING_RATE.windowMs / 1000));
  /**
   * Records a ping (every URL form comes here); false when no push endpoint has the key (or it is
   * no key's form), which counts one unknown key against the client: keys cannot be tried in bulk.
   */
  const record = async (client: string, ...ping: Parameters<PushService['ping']>): Promise<boolean> => {
    try {
      if (!PING_KEY.test(ping[0])) throw new NotFound('Ping URL');
      await deps.services.push.ping(...ping);
      return true;
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
      misses.take(client, PING_RATE.misses);
      return false;
    }
  };

  /** Uptime Kuma's push URL. */
  const kuma = async (ctx: Koa.Context, m: RegExpExecArray | null) => {
    ctx.type = 'application/json';
    const answer = (status: number, body: { ok: boolean; msg?: string }) => {
      ctx.status = status;
      ctx.body = JSON.stringify(body);
    };
    if (!m) return answer(404, { ok: false, msg: KUMA_UNKNOWN });
    const key = pingKeyOf(m[1]!);
    const client = clientKey(ctx.ip);
    if (limited(key, client)) {
      ctx.set('Retry-After', retryAfter);
      return answer(429, { ok: false, msg: 'rate limited' });
    }
    // A body is not Kuma's report: it is not read (past DRAIN_LIMIT the connection is closed after the answer).
    if (ctx.method === 'POST' && !(await readBody(ctx.req, 0, DRAIN_LIMIT)).ended) ctx.set('Connection', 'close');
    const q = ctx.query as Record<string, string | string[] | undefined>;
    // Checked before the key, as Kuma does: the answer says nothing of the key.
    const ping = kumaPingMs(first(q.ping));
    if ('error' in ping) return answer(400, { ok: false, msg: ping.error });
    const up = (first(q.status) || 'up') === 'up';
    const msg = first(q.msg) || undefined;
    const known = await record(client, key, up ? undefined : 'fail', msg === undefined ? null : textBody(msg), {
      message: up ? undefined : msg,
      responseTimeMs: ping.ms ?? undefined,
    });
    if (known) answer(200, { ok: true });
    else answer(404, { ok: false, msg: KUMA_UNKNOWN });
  };

  /** Gatus's external-endpoint URL (POST only; answers as Gatus does: plain text, 200 with no body). */
  const gatus = async (ctx: Koa.Context) => {
    ctx.type = 'text/plain';
    const answer = (status: number, text: string) => {
      ctx.status = status;
      ctx.body = text;
    };
    const q = ctx.query as Record<string, string | string[] | undefined>;
    const success = first(q.success);
    if (success !== 'true' && success !== 'false') return answer(400, 'missing or invalid success query parameter');
    const auth = ctx.get('Authorization');
    if (!auth.startsWith('Bearer ')) return answer(401, 'invalid Authorization header');
    const key = pingKeyOf(auth.slice(7).trim());
    const client = clientKey(ctx.ip);
    if (limited(key, client)) {
      ctx.set('Retry-After', retryAfter);
      return answer(429, 'rate limited');
    }
    const read = await readBody(ctx.req, PING_BODY_LIMIT, DRAIN_LIMIT);
    if (!read.ended) ctx.set('Connection', 'close');
    const rawDuration = first(q.duration);
    let responseTimeMs: number | undefined;
    if (rawDuration) {
      const ms = goDurationMs(rawDuration);
      if (ms === null || ms < 0 || ms > KUMA_PING_MAX_MS)
        return answer(
          400,
          `invalid duration: ${JSON.stringify(rawDuration.slice(0, 50))} is not a duration from 0 to 24h`,
        );
      responseTimeMs = ms;
    }
    // A failure's reason: the query's `error`, else a JSON body's `error` (Gatus reads both).
    let message = success === 'false' ? first(q.error) || undefined : undefined;
    if (success === 'false' && !message && read.data.length) {
      try {
        const parsed = JSON.parse(read.data.toString('utf8')) as { error?: unknown };
        if (typeof parsed?.error === 'string' && parsed.error) message = parsed.error;
      } catch {
        // Not JSON: no reason (Gatus logs it and goes on).
      }
    }
    const known = await record(
      client,
      key,
      success === 'true' ? undefined : 'fail',
      message === undefined ? null : textBody(message),
      { message, responseTimeMs },
    );
    if (known) answer(200, '');
    else answer(401, 'invalid token');
  };

  return async (ctx, next) => {
    if (ctx.method === 'POST' && GATUS_PATH.test(ctx.path)) {
      await gatus(ctx);
      deps.log.debug({ method: ctx.method, path: ctx.path, status: ctx.status }, 'ping');
      return;
    }
    const hc = PING_PATH.exec(ctx.path);
    const km = hc ? null : KUMA_PATH.exec(ctx.path);
    // Every path below /ping/ (and /api/push/) is a ping URL's: one that is not well formed is a plain 404
    // here, never the JSON API's answers (its body parser, its error body).
    const inKuma = !hc && (km !== null || KUMA_SPACE.test(ctx.path));
    if (!hc && !inKuma && !PING_SPACE.test(ctx.path)) {
      await next();
      return;
    }
    if (!['GET', 'HEAD', 'POST'].includes(ctx.method)) {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD, POST');
      return;
    }
    if (inKuma) {
      await kuma(ctx, km);
      const shown = km ? `/api/push/${km[1]!.slice(0, 8)}…` : '/api/push/…';
      deps.log.debug({ method: ctx.method, path: shown, status: ctx.status }, 'ping');
      return;
    }
    const m = hc;
    if (!m) {
      ctx.type = 'text/plain';
      ctx.status = 404;
      ctx.body = 'not found';
      return;
    }
    const key = pingKeyOf(m[1]!);
    const client = clientKey(ctx.ip);
    const shown = `/ping/${key.slice(0, 8)}…${m[2] ? `/${m[2]}` : ''}`;
    ctx.type = 'text/plain';
    // A client that tried too many unknown keys this minute is refused before any look-up.
    if (limited(key, client)) {
      ctx.status = 429;
      ctx.set('Retry-After', retryAfter);
      ctx.body = 'rate limited';
      return;
    }
    let body: { data: Buffer; bytes: number } | null = null;
    if (ctx.method === 'POST') {
      const read = await readBody(ctx.req, PING_BODY_LIMIT, DRAIN_LIMIT);
      if (!read.ended) ctx.set('Connection', 'close');
      body = read;
    }
    const known = await record(client, key, m[2], body);
    ctx.status = known ? 200 : 404;
    ctx.body = known ? 'OK' : 'not found';
    deps.log.debug({ method: ctx.method, path: shown, status: ctx.status }, 'ping');
  };
}

/** A message as a ping's body. */
function textBody(text: string): { data: Buffer; bytes: number } {
  const data = Buffer.from(text, 'utf8');
  return { data, bytes: data.length };
}
