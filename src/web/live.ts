// The dashboard's live feed: GET /ui/live, server-sent events for a signed-in session. The page
// keeps one stream open and reads its view again when told `change`, instead of polling.
//
// - What moves the feed: the store's stamp of the tables the home shows (store/read-models.ts `home`:
//   a write in this process at once; another process's commit through SQLite's data_version or,
//   on PostgreSQL, the change feed's notifications from every node), looked at every STAMP_MS; and,
//   every SWEEP_MS, the checks themselves (results are not announced: they are written with every
//   check). Either way the team's fingerprint (services/home.ts) decides: a stream hears `change`
//   only when its own team's home moved, never another team's.
// - Bounded: at most MAX_PER_SESSION streams per session (another is refused 429), a comment every
//   HEARTBEAT_MS keeps proxies from closing an idle stream, and a session that ended (signed out,
//   token revoked, expired) has its streams closed at the next session check.
// - What `change` says: `{"ids": [...], "all": false}` names the home rows (domain and endpoint ids)
//   whose shown data moved, found by comparing each row's digest (services/home.ts) with the last
//   look's, so the home reads only those rows; `"all": true` (rows added or removed, more than
//   MAX_IDS changed, or no earlier digests to compare) tells every view to read again.
// - close() ends every stream (the daemon's shutdown), so the HTTP server can close at once.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type Koa from 'koa';
import { ServiceError } from '../domain/errors.js';
import type { WebSession } from '../services/sessions.js';

const STAMP_MS = 250;
const SWEEP_MS = 15_000;
const HEARTBEAT_MS = 15_000;
const SESSION_CHECK_MS = 30_000;
const MAX_PER_SESSION = 4;
/** Changed rows named in one event at most (about 40 KB); past it the event says `all`. */
const MAX_IDS = 1000;

class TooManyStreams extends ServiceError {
  constructor() {
    super(
      'rate_limited',
      `at most ${MAX_PER_SESSION} live streams per session: close another tab of the dashboard`,
      'TOO_MANY_STREAMS',
    );
  }
}

interface Client {
  team: string;
  sid: string;
  key: string;
  res: ServerResponse;
  end(): void;
}

export interface LiveHub {
  /** Answers the request with a stream for this (already resolved) session. */
  attach(ctx: Koa.Context, sid: string, session: WebSession): void;
  /** How many streams are open (tests, metrics). */
  size(): number;
  close(): void;
}

export function createLiveHub(deps: {
  /** Moves when a table the home shows was written (here or on another node). */
  stamp(): string;
  /** The team's home fingerprint (services/home.ts). */
  fingerprint(teamId: string): Promise<string>;
  /** Each home row's digest by id (services/home.ts); without it every change says `all`. */
  digests?(teamId: string): Promise<Map<string, string>>;
  /** The session again (null: it ended). */
  resolve(sid: string): Promise<WebSession | null>;
  onError?(err: unknown): void;
}): LiveHub {
  const clients = new Set<Client>();
  const perSession = new Map<string, number>();
  const lastPrint = new Map<string, string>();
  const lastDigests = new Map<string, Map<string, string>>();
  let timer: NodeJS.Timeout | undefined;
  let lastStamp = '';
  let lastSweep = 0;
  let lastBeat = 0;
  let lastSessionCheck = 0;
  let busy = false;
  let closed = false;

  const send = (c: Client, text: string) => {
    if (!c.res.writableEnded && !c.res.destroyed) c.res.write(text);
  };

  async function look(): Promise<void> {
    const teams = new Set([...clients].map((c) => c.team));
    for (const team of [...lastPrint.keys()]) if (!teams.has(team)) lastPrint.delete(team);
    for (const team of [...lastDigests.keys()]) if (!teams.has(team)) lastDigests.delete(team);
    for (const team of teams) {
      const print = await deps.fingerprint(team);
      const before = lastPrint.get(team);
      lastPrint.set(team, print);
      if (before === undefined || before === print) continue;
      const data = JSON.stringify(await changedRows(team));
      for (const c of clients) if (c.team === team) send(c, `event: change\ndata: ${data}\n\n`);
    }
  }

  /** The rows of the team's home that changed since the last look (`all`: read everything). */
  async function changedRows(team: string): Promise<{ ids: string[]; all: boolean }> {
    if (!deps.digests) return { ids: [], all: true };
    const before = lastDigests.get(team);
    const now = await deps.digests(team);
    lastDigests.set(team, now);
    if (!before) return { ids: [], all: true };
    const ids: string[] = [];
    let all = before.size !== now.size;
    for (const [id, digest] of now) {
      const was = before.get(id);
      if (was === undefined) all = true;
      else if (was !== digest) ids.push(id);
    }
    return all || ids.length > MAX_IDS ? { ids: [], all: true } : { ids, all: false };
  }

  async function checkSessions(): Promise<void> {
    const sids = new Set([...clients].map((c) => c.sid));
    for (const sid of sids) {
      if (await deps.resolve(sid)) continue;
      for (const c of clients) if (c.sid === sid) c.end();
    }
  }

  async function tick(): Promise<void> {
    if (busy || !clients.size) return;
    busy = true;
    try {
      const now = Date.now();
      const stamp = deps.stamp();
      if (stamp !== lastStamp || now - lastSweep >= SWEEP_MS) {
        lastStamp = stamp;
        lastSweep = now;
        await look();
      }
      if (now - lastBeat >= HEARTBEAT_MS) {
        lastBeat = now;
        for (const c of clients) send(c, `: heartbeat ${new Date(now).toISOString()}\n\n`);
      }
      if (now - lastSessionCheck >= SESSION_CHECK_MS) {
        lastSessionCheck = now;
        await checkSessions();
      }
    } catch (err) {
      deps.onError?.(err);
    } finally {
      busy = false;
    }
  }

  function start(): void {
    if (timer || closed) return;
    lastBeat = lastSessionCheck = Date.now();
    timer = setInterval(() => void tick(), STAMP_MS);
    timer.unref();
  }

  function stop(): void {
    if (timer) clearInterval(timer);
    timer = undefined;
  }

  return {
    attach(ctx, sid, session) {
      if (closed) ctx.throw(503, 'shutting down', { expose: true });
      const key = createHash('sha256').update(sid).digest('base64url');
      const open = perSession.get(key) ?? 0;
      if (open >= MAX_PER_SESSION) throw new TooManyStreams();
      perSession.set(key, open + 1);
      const res = ctx.res;
      const socket = ctx.req.socket;
      let ended = false;
      const c: Client = {
        team: session.principal.team_id,
        sid,
        key,
        res,
        end() {
          if (ended) return;
          ended = true;
          clients.delete(c);
          const n = (perSession.get(key) ?? 1) - 1;
          if (n > 0) perSession.set(key, n);
          else perSession.delete(key);
          if (!clients.size) stop();
          if (!res.writableEnded) res.end();
          // The connection goes with the stream: a keep-alive socket would hold the server open.
          socket.destroySoon();
        },
      };
      clients.add(c);
      // The response's close: the browser went away (the request's own ends once it was read).
      res.on('close', () => c.end());
      socket.setTimeout(0);
      socket.setNoDelay(true);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Accel-Buffering', 'no');
      // Written here, not by koa: a stream koa pipes counts a client's leaving as an error.
      ctx.respond = false;
      res.writeHead(200, { ...ctx.response.headers, 'content-type': 'text/event-stream; charset=utf-8' });
      // retry: how long the browser waits before it reconnects a dropped stream.
      res.write(`retry: 3000\nevent: ready\ndata: {}\n\n`);
      // The team's current fingerprint and rows, so the first change after this is told, by row.
      const team = c.team;
      void Promise.all([deps.fingerprint(team), lastDigests.has(team) ? undefined : deps.digests?.(team)]).then(
        ([p, digests]) => {
          if (!lastPrint.has(team)) lastPrint.set(team, p);
          if (digests && !lastDigests.has(team)) lastDigests.set(team, digests);
        },
        (err: unknown) => deps.onError?.(err),
      );
      start();
    },
    size: () => clients.size,
    close() {
      closed = true;
      stop();
      for (const c of [...clients]) c.end();
    },
  };
}
