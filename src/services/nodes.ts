// The node list: every `dommon serve` process (node) writes its own row every HEARTBEAT_MS (name,
// role, region, version, host, pid, work it holds, checks per minute); anyone reads the list. A row
// whose heartbeat is older than STALE_AFTER_MS shows as `stale` (the node died or lost the
// database); one older than PRUNE_AFTER_MS is deleted by whichever node beats next. A node that
// stops cleanly deletes its own row.
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { NodeRecord } from '../domain/types.js';
import { Conflict } from '../domain/errors.js';
import type { NodeRole } from '../config/index.js';
import type { Store } from '../store/index.js';

/** How often a node writes its row. */
export const HEARTBEAT_MS = 10_000;

/**
 * How often a node looks whether the runs it holds moved enough since its last heartbeat to write its row
 * before the next one: by more than MOVED_MIN runs and MOVED_SHARE of the count last written. The other
 * nodes size their part of the queue from these counts (docs/scale-out.md, Keep), so after a burst of
 * new configurations taken by one node they learn of it within a second, not up to 10 s later.
 */
export const MOVED_CHECK_MS = 1000;
const MOVED_MIN = 10;
const MOVED_SHARE = 0.1;
/** A row not written for this long is shown as `stale` (three heartbeats missed). */
export const STALE_AFTER_MS = 30_000;
/** A row not written for this long is deleted (a node gone for a day is no longer listed). */
export const PRUNE_AFTER_MS = 86_400_000;

export interface NodeIdentity {
  name: string;
  role: NodeRole;
  region: string;
  version: string;
  host: string;
  pid: number;
  /** ISO time the node started. */
  startedAt: string;
}

/** What a node counts of its own work, read at each heartbeat. */
interface NodeCounters {
  /** Work this node holds now (liveness configurations it schedules). */
  workClaimed(): number;
  /** Of it, the regional runs (other nodes' claims add the counts up into the queue's size). */
  workRegional?(): number;
  /** Checks this node finished since it started (every kind). */
  checksTotal(): number;
  /** The singleton jobs whose lock this node holds. */
  singletons(): readonly string[];
}

type NodeStatus = 'live' | 'stale';

interface NodeView {
  name: string;
  role: string;
  region: string;
  version: string;
  host: string;
  pid: number;
  status: NodeStatus;
  started_at: string;
  last_heartbeat: string;
  /** Whole seconds since the last heartbeat. */
  heartbeat_age_seconds: number;
  work_claimed: number;
  checks_total: number;
  checks_per_minute: number;
  /** The singleton jobs this node runs (retention, digests, sweep, rdap-bootstrap). */
  singletons: string[];
}

/** The node list as GET /api/v1/nodes and `dommon nodes --json` answer it. */
interface NodeList {
  data: NodeView[];
  /** Nodes whose heartbeat is recent. */
  live: number;
  total: number;
}

function nodeView(row: NodeRecord, now: Date): NodeView {
  const age = Math.max(0, now.getTime() - Date.parse(row.last_heartbeat));
  return {
    name: row.name,
    role: row.role,
    region: row.region,
    version: row.version,
    host: row.host,
    pid: row.pid,
    status: age > STALE_AFTER_MS ? 'stale' : 'live',
    started_at: row.started_at,
    last_heartbeat: row.last_heartbeat,
    heartbeat_age_seconds: Math.floor(age / 1000),
    work_claimed: row.work_claimed,
    checks_total: row.checks_total,
    checks_per_minute: row.checks_per_minute,
    singletons: row.singletons,
  };
}

/** Nodes per region, as every token may read them. */
interface RegionCount {
  region: string;
  nodes: number;
  live: number;
}

function regionsOf(data: readonly NodeView[]): RegionCount[] {
  const by = new Map<string, RegionCount>();
  for (const n of data) {
    const r = by.get(n.region) ?? { region: n.region, nodes: 0, live: 0 };
    r.nodes++;
    if (n.status === 'live') r.live++;
    by.set(n.region, r);
  }
  return [...by.values()].sort((a, b) => (a.region < b.region ? -1 : a.region > b.region ? 1 : 0));
}

/** The node list for an operator: every node's details, and the counts. */
export type NodeDetails = NodeList & { detail: 'full'; regions: RegionCount[] };
/** What a team's token reads: counts and regions only (no host names, pids, versions or node names). */
export interface NodeSummary {
  detail: 'summary';
  live: number;
  total: number;
  regions: RegionCount[];
}

export function createNodeService(deps: { store: Store; clock: Clock }) {
  async function list(): Promise<NodeDetails> {
    const now = deps.clock.now();
    const data = (await deps.store.nodes.list()).map((r) => nodeView(r, now));
    const live = data.filter((n) => n.status === 'live').length;
    return { detail: 'full', data, live, total: data.length, regions: regionsOf(data) };
  }
  return {
    /** Every node with a row, by name; stale ones say so (the operator's: `dommon nodes`, operator tokens). */
    list,
    /** Counts and regions only: what any other token may read. */
    async summary(): Promise<NodeSummary> {
      const { live, total, regions } = await list();
      return { detail: 'summary', live, total, regions };
    },
  };
}

/** Whether a process with this pid runs on this machine (a stale row of a killed node on the same host). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * This node's heartbeat: claim() refuses a name a live node uses, beat() writes the row (and prunes
 * long-dead ones), leave() deletes it on a clean stop.
 */
export function createNodeHeartbeat(deps: {
  store: Store;
  clock: Clock;
  log: Logger;
  identity: NodeIdentity;
  counters: NodeCounters;
}) {
  const { store, clock, identity: me } = deps;
  // Samples of the check counter over the last minute: checks per minute is the slope across them.
  const samples: { at: number; total: number }[] = [];
  // Set once claim() accepted the name: only then is the row this node's to write and delete.
  let joined = false;
  /** The runs held as the last heartbeat wrote (or is writing) them. */
  let written = 0;

  function perMinute(at: number, total: number): number {
    samples.push({ at, total });
    while (samples.length > 2 && at - samples[1]!.at >= 60_000) samples.shift();
    const first = samples[0]!;
    const span = at - first.at;
    return span > 0 ? Math.round(((total - first.total) * 60_000 * 10) / span) / 10 : 0;
  }

  return {
    /** Refuses to start under a name whose row a live node wrote within STALE_AFTER_MS. */
    async claim(): Promise<void> {
      const row = await store.nodes.get(me.name);
      if (!row) {
        joined = true;
        return;
      }
      const age = clock.now().getTime() - Date.parse(row.last_heartbeat);
      const self = row.host === me.host && row.pid === me.pid;
      // A dead process on this machine (kill -9, then a restart under the same name) left it: take it over.
      const deadHere = row.host === me.host && !self && !processAlive(row.pid);
      if (age <= STALE_AFTER_MS && !deadHere) {
        throw new Conflict(
          `node name "${me.name}" is in use by a live node (host ${row.host}, pid ${row.pid}, heartbeat ${Math.round(age / 1000)} s ago): give this node another DOMMON_NODE_NAME / --node-name`,
          'NODE_NAME_IN_USE',
        );
      }
      joined = true;
    },
    /** Writes this node's row now (after claim()). */
    beat,
    /** Writes this node's row now if the runs it holds moved enough since the last one (MOVED_CHECK_MS). */
    async beatIfMoved(): Promise<void> {
      const moved = Math.abs(deps.counters.workClaimed() - written);
      if (moved > MOVED_MIN && moved > written * MOVED_SHARE) await beat();
    },
    /** Deletes this node's row (a clean stop: the node left the cluster). */
    async leave(): Promise<void> {
      if (!joined) return;
      joined = false;
      await store.nodes.remove(me.name, me.host, me.pid);
    },
  };

  async function beat(): Promise<void> {
    if (!joined) return;
    const now = clock.now();
    const total = deps.counters.checksTotal();
    // Set before the write: a look while it is on its way compares with what it writes.
    written = deps.counters.workClaimed();
    await store.nodes.heartbeat({
      name: me.name,
      role: me.role,
      region: me.region,
      version: me.version,
      host: me.host,
      pid: me.pid,
      started_at: me.startedAt,
      last_heartbeat: now.toISOString(),
      work_claimed: written,
      work_regional: deps.counters.workRegional?.() ?? 0,
      checks_total: total,
      checks_per_minute: perMinute(performance.now(), total),
      singletons: [...deps.counters.singletons()],
    });
    const pruned = await store.nodes.prune(new Date(now.getTime() - PRUNE_AFTER_MS).toISOString());
    if (pruned) deps.log.info({ pruned }, 'removed nodes whose heartbeat stopped a day ago');
  }
}

export type NodeHeartbeat = ReturnType<typeof createNodeHeartbeat>;
