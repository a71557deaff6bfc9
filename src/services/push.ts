// Heartbeat (`push`) endpoints: a job's pings (Healthchecks.io's ping URLs), each kept as one insert.
// When a run starts, ends well or fails is the job's to say; when it is late is found by the liveness
// scheduler at the deadline the push check asked for (probes/push.ts), never by scanning. A ping that
// changes the verdict (a failure while not down, a success while not up) is recorded as a check result
// at once, through the same write as a probe's (state, events, notifications once per transition),
// after the due-queue revoked the lease on the config's run (on either store), so a result computed
// from the state before this one is not written.
import { randomUUID } from 'node:crypto';
import { isoNow, type Clock } from '../domain/clock.js';
import { Invalid, NotFound } from '../domain/errors.js';
import type { CheckOutcome } from '../domain/liveness.js';
import type { EndpointSettings } from '../domain/endpoint.js';
import { PING_BODY_LIMIT, pingKeyOf, pingKindOf, type HeartbeatPings, type PushCheck } from '../domain/push.js';
import { pushSettingsError } from '../probes/heartbeat.js';
import type { Repos, Store } from '../store/index.js';
import type { DueQueue } from './due-queue.js';
import type { MonitorService } from './monitor.js';

/**
 * How often a push endpoint's liveness configuration runs when its check asks for no time of its own
 * (its first run, after a restart): each check asks for its next deadline, so this only bounds how late
 * a deadline is looked at after a restart.
 */
export const PUSH_INTERVAL_SECONDS = 60;

/** Refuses a push endpoint's settings whose cron expression or time zone does not parse. */
export function pushSettings(settings: EndpointSettings): void {
  const err = pushSettingsError(settings);
  if (err) throw new Invalid(err);
}

/** Inserts a push endpoint's check (a new random ping key) in the caller's transaction. */
export async function insertPush(tx: Repos, clock: Clock, teamId: string, endpointId: string): Promise<PushCheck> {
  const check: PushCheck = {
    endpoint_id: endpointId,
    team_id: teamId,
    ping_key: randomUUID(),
    created_at: clock.now().getTime(),
  };
  await tx.push.insert(check);
  return check;
}

/** What a job may say of its run beside the ping's kind (Uptime Kuma's push URL: `msg` and `ping`). */
interface PingReport {
  /** Why the run failed: written into the down result's reason. */
  message?: string;
  /** How long the run took, in ms, as the job measured it. */
  responseTimeMs?: number;
}

/** The most of a job's own reason that goes into a result's error text (the whole is kept as the ping's body). */
const REASON_LIMIT = 500;

/** A ping's body: its first bytes (at least the first PING_BODY_LIMIT, if it had as many) and its full size. */
interface PingBody {
  data: Buffer;
  bytes: number;
}

/** The first PING_BODY_LIMIT bytes of a body as text (a cut UTF-8 sequence at the end dropped), and its full size. */
function keptBody(body: PingBody | null): { body: string | null; body_bytes: number } {
  if (!body?.bytes) return { body: null, body_bytes: 0 };
  const text = body.data
    .subarray(0, PING_BODY_LIMIT)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  return { body: text, body_bytes: body.bytes };
}

export function createPushService({
  store,
  clock,
  monitor,
}: {
  store: Store;
  clock: Clock;
  monitor: Pick<MonitorService, 'targetsIn' | 'record'>;
}) {
  /** The liveness due-queue whose leases a ping's state revokes (the daemon's; none in a CLI process). */
  let queue: Pick<DueQueue, 'revoke'> | undefined;
  return {
    /** Joins the due-queue the daemon's scheduler runs on (it is made after the services). */
    useQueue(q: Pick<DueQueue, 'revoke'>): void {
      queue = q;
    },

    /** What a push endpoint's check reads (ProbeDeps.heartbeat). */
    async heartbeat(endpointId: string): Promise<HeartbeatPings | undefined> {
      const h = await store.push.heartbeat(endpointId);
      return h && { ...h, now: clock.now().getTime() };
    },

    /** The ping keys of these push endpoints of the team, by endpoint id (what `dommon export` writes). */
    async keysOf(teamId: string, endpointIds: readonly string[]): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      // In parts: far below either engine's bound-parameter limit.
      for (let i = 0; i < endpointIds.length; i += 500)
        for (const c of (await store.push.ofEndpoints(endpointIds.slice(i, i + 500))).values())
          if (c.team_id === teamId) out.set(c.endpoint_id, c.ping_key);
      return out;
    },

    /** A push endpoint of the team: its ping key and schedule, and its latest pings (newest first). */
    async pings(teamId: string, endpointId: string, limit: number) {
      const endpoint = await store.endpoints.get(teamId, endpointId);
      if (!endpoint) throw new NotFound('Endpoint');
      const check = await store.push.byEndpoint(endpointId);
      if (!check) throw new NotFound('Push endpoint');
      return { endpoint, check, pings: await store.push.pings(endpointId, limit) };
    },

    /**
     * One ping: `action` is the URL's part after the key (none, start, fail, log or an exit status);
     * `report`, what the job said of the run (its failure's reason, its duration). NotFound for an
     * unknown key (and an unknown action: the URL is no ping URL).
     */
    async ping(key: string, action: string | undefined, body: PingBody | null, report: PingReport = {}): Promise<void> {
      const what = pingKindOf(action);
      if (!what) throw new NotFound('Ping URL');
      const check = await store.push.byKey(pingKeyOf(key));
      if (!check) throw new NotFound('Ping URL');
      const now = clock.now().getTime();
      const endpointId = check.endpoint_id;
      const finish = what.kind === 'success' || what.kind === 'fail';
      let duration: number | null = null;
      if (finish) {
        // A run's duration: from its start ping, when that came after the last finish.
        const [start, last] = await Promise.all([store.push.lastStart(endpointId), store.push.lastFinish(endpointId)]);
        if (start && (!last || start.at > last.at) && now >= start.at) duration = now - start.at;
      }
      // A time the job reported itself is the run's, in place of the one measured from a start ping.
      if (finish && report.responseTimeMs !== undefined) duration = Math.round(report.responseTimeMs);
      await store.push.addPing(endpointId, {
        kind: what.kind,
        at: now,
        exit_status: what.exit_status,
        duration_ms: duration,
        ...keptBody(body),
      });
      if (!finish) return;
      const [target] = await monitor.targetsIn({ endpoint_id: endpointId });
      if (!target) return; // disabled: kept, not judged
      const state = (await store.livenessData.states([target.config.id])).get(target.config.id);
      const ok = what.kind === 'success';
      if ((state?.status ?? null) === (ok ? 'up' : 'down')) return;
      const status = what.exit_status === null ? '' : ` (exit status ${what.exit_status})`;
      const outcome: CheckOutcome = ok
        ? { ok: true, responseTimeMs: duration ?? 0, statusCode: null, error: null }
        : {
            ok: false,
            responseTimeMs: duration ?? 0,
            statusCode: null,
            error: `failed: the job reported a failure at ${isoNow(clock)}${status}${report.message ? `: ${report.message.slice(0, REASON_LIMIT)}` : ''}`,
          };
      // The holder of this config's run (this node or another) knows the state before this one: its
      // lease is revoked first, so a result it computed from that state (the probe in flight, the
      // result waiting for its batch) is not written after this one (its due time, the deadline, stays).
      await queue?.revoke(target.config.id);
      await monitor.record([{ ...target, outcome, at: now }]);
    },
  };
}

export type PushService = ReturnType<typeof createPushService>;
