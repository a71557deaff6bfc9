// Caches the serialized answer of a GET list per (team, URL) until its read model (one of the tables
// it reads, store/read-models.ts) changes (in this process or any other). Dashboards polling lists then cost one pragma, not a query.
// Every entry of one cache reads the same tables, so a new stamp makes all of them stale at once: the
// cache is emptied then, instead of keeping dead answers (a page of 50 domains is ~25 KB) on the heap.
import type Koa from 'koa';
import type { ApiState } from '../context.js';
import type { ReadModel } from '../../store/index.js';

const MAX_ENTRIES = 2000;
/** Characters of cached answers at most (~16 MB of Latin-1 strings); then the cache starts over. */
const MAX_CHARS = 16 * 1024 * 1024;

export function readCache(
  stamp: (model: ReadModel) => string,
  model: ReadModel,
): Koa.Middleware<ApiState> & { entries(): number } {
  // Answers by key; every one was read under `cacheStamp` (the cache is emptied when it moves).
  const cache = new Map<string, string>();
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
      ctx.body = hit;
      return;
    }
    await next();
    if (ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      const body = JSON.stringify(ctx.body);
      if (cache.size >= MAX_ENTRIES || chars + body.length > MAX_CHARS) clear();
      // Kept only if no write moved the stamp during the read (another request then emptied the cache).
      if (before === cacheStamp) {
        chars += body.length;
        cache.set(key, body);
      }
      ctx.type = 'application/json';
      ctx.body = body;
    }
  };
  return Object.assign(mw, { entries: () => cache.size });
}
