// Caches the serialized answer of a GET list per (team, URL) until its read model (one of the tables
// it reads, store/read-models.ts) changes (in this process or any other). Dashboards polling lists then cost one pragma, not a query.
// Every entry of one cache reads the same tables, so a new stamp makes all of them stale at once: the
// cache is emptied then, instead of keeping dead answers (a page of 50 domains is ~25 KB) on the heap.
import type Koa from 'koa';
import type { ApiState } from '../context.js';
import type { ReadModel } from '../../store/index.js';
import { weakEtag } from './etag.js';

/** A cached answer: its UTF-8 bytes (sent as they are, not encoded per request) and its ETag (hashed once). */
interface Cached {
  body: Buffer;
  etag: string;
}

const MAX_ENTRIES = 2000;
/** Bytes of cached answers at most (~16 MB); then the cache starts over. */
const MAX_CHARS = 16 * 1024 * 1024;

export function readCache(
  stamp: (model: ReadModel) => string,
  model: ReadModel,
): Koa.Middleware<ApiState> & { entries(): number } {
  // Answers by key; every one was read under `cacheStamp` (the cache is emptied when it moves).
  const cache = new Map<string, Cached>();
  let cacheStamp = '';
  let chars = 0;
  const clear = () => {
    cache.clear();
    chars = 0;
  };
  const mw: Koa.Middleware<ApiState> = async (ctx, next) => {
    const params = new URLSearchParams(ctx.querystring);
    params.delete('api_key');
    params.sort();
    const key = `${ctx.state.principal.team_id} ${ctx.path}?${params.toString()}`;
    const before = stamp(model);
    if (before !== cacheStamp) {
      clear();
      cacheStamp = before;
    }
    const hit = cache.get(key);
    if (hit !== undefined) {
      ctx.type = 'application/json';
      ctx.set('ETag', hit.etag);
      ctx.body = hit.body;
      return;
    }
    await next();
    if (ctx.status === 200 && ctx.body && typeof ctx.body === 'object' && !Buffer.isBuffer(ctx.body)) {
      const text = JSON.stringify(ctx.body);
      const entry = { body: Buffer.from(text), etag: weakEtag(text) };
      if (cache.size >= MAX_ENTRIES || chars + entry.body.length > MAX_CHARS) clear();
      // Kept only if no write moved the stamp during the read (another request then emptied the cache).
      if (before === cacheStamp) {
        chars += entry.body.length;
        cache.set(key, entry);
      }
      ctx.type = 'application/json';
      ctx.set('ETag', entry.etag);
      ctx.body = entry.body;
    }
  };
  return Object.assign(mw, { entries: () => cache.size });
}
