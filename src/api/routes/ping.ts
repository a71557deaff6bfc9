// The ping URLs of push endpoints, as Healthchecks.io's: /ping/<key>, /ping/<key>/start, /fail, /log and
// /<exit status 0-255>, by GET, HEAD or POST, public (the key, a random UUID, is the secret). Answers are
// Healthchecks.io's plain text: 200 `OK`, 404 `not found` (an unknown key, or an unknown action),
// 429 `rate limited`. A POST body's first PING_BODY_LIMIT bytes are kept as the ping's log; the rest is
// read and dropped, up to DRAIN_LIMIT. Served ahead of the JSON body parser (a ping's body is any text),
// and logged with the key cut to its first 8 characters.
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.js';
import { clientKey } from '../../domain/client-address.js';
import { NotFound } from '../../domain/errors.js';
import { PING_BODY_LIMIT } from '../../domain/push.js';
import type { PushService } from '../../services/push.js';

const PING_PATH = /^\/ping\/([^/]{1,100})(?:\/([^/]{1,20}))?\/?$/;
/** A path with a segment under /ping/: the ping URLs' own space. */
const PING_SPACE = /^\/ping\/[^/]/;
const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
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

export function pingMiddleware(deps: { services: { push: PushService }; clock: Clock; log: Logger }): Koa.Middleware {
  const counter = windowCounter(deps.clock);
  const misses = windowCounter(deps.clock);
  return async (ctx, next) => {
    const m = PING_PATH.exec(ctx.path);
    // Every path below /ping/ is a ping URL's: one that is not well formed is a plain 404 here, never
    // the JSON API's answers (its body parser, its error body).
    if (!m && !PING_SPACE.test(ctx.path)) {
      await next();
      return;
    }
    if (!['GET', 'HEAD', 'POST'].includes(ctx.method)) {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD, POST');
      return;
    }
    if (!m) {
      ctx.type = 'text/plain';
      ctx.status = 404;
      ctx.body = 'not found';
      return;
    }
    const key = m[1]!.toLowerCase();
    const client = clientKey(ctx.ip);
    const shown = `/ping/${key.slice(0, 8)}…${m[2] ? `/${m[2]}` : ''}`;
    ctx.type = 'text/plain';
    // A client that tried too many unknown keys this minute is refused before any look-up.
    if (misses.over(client, PING_RATE.misses) || !counter.take(`${key} ${client}`, PING_RATE.perKey)) {
      ctx.status = 429;
      ctx.set('Retry-After', String(Math.ceil(PING_RATE.windowMs / 1000)));
      ctx.body = 'rate limited';
      return;
    }
    let body: { data: Buffer; bytes: number } | null = null;
    if (ctx.method === 'POST') {
      const read = await readBody(ctx.req, PING_BODY_LIMIT, DRAIN_LIMIT);
      if (!read.ended) ctx.set('Connection', 'close');
      body = read;
    }
    try {
      if (!KEY.test(key)) throw new NotFound('Ping URL');
      await deps.services.push.ping(key, m[2], body);
      ctx.status = 200;
      ctx.body = 'OK';
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
      // Unknown keys count against the client: keys cannot be tried in bulk.
      misses.take(client, PING_RATE.misses);
      ctx.status = 404;
      ctx.body = 'not found';
    }
    deps.log.debug({ method: ctx.method, path: shown, status: ctx.status }, 'ping');
  };
}
