// The liveness due-queue on PostgreSQL (migration 013; several nodes on one database): each
// node claims the runs due soon with FOR UPDATE SKIP LOCKED into a lease (owner, expiry) and a new
// fencing token, runs them, and writes each result with the next due time in the same transaction as
// the result itself, fenced by the token (a node whose lease was taken over writes nothing). Leases of
// a dead node run out; the takeover claim hands them to a live one. This is the shared
// implementation of the services' due-queue port (services/due-queue.ts); on SQLite the queue is in
// the one process's memory and never calls this.
//
// Configurations with regions (migration 015) have a row per region in liveness_region_due instead
// of one in liveness_due: a node claims those of its own region only, so each region checks once.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';
import { DEFAULT_REGION, dueKey, type LivenessState } from '../../domain/liveness.js';
import { STATE_COLUMNS, stateColumnsOf, toState, type StateRow } from './liveness-data.js';
import { PREPARED } from '../prepared.js';
import { enabledEndpointOf, targetColumns, toTarget, type LivenessTarget, type TargetRow } from './targets.js';

/** A run this node claimed: the config, its due time (epoch ms) and the lease's fencing token. */
interface DueClaim {
  configId: string;
  /** The region whose run this is ('' for a configuration checked from anywhere: liveness_due). */
  region: string;
  /** Claimed from a lease that ran out (a dead or stalled node's): late already, run at once. */
  taken?: boolean;
  due: number;
  /** The config has never run: its second run comes at a random point of the next interval. */
  fresh: boolean;
  token: number;
}

/** A claimed run with what it checks, read in the claim's statement (none: the config or its endpoint is disabled or gone). */
interface ClaimedRun extends DueClaim {
  target?: LivenessTarget;
}

/** The end of a claimed run: the next due time (null parks the row), and whether the lease is kept for it. */
interface DueRelease {
  configId: string;
  /** The row's region ('' or absent: liveness_due). */
  region?: string;
  token: number;
  next: number | null;
  /** Keep the lease (and token) for the next run, until it is due plus `timeout` plus the margin. */
  keep?: boolean;
  /** The config's timeout (seconds) as the run read it (a change since revoked the lease). */
  timeout?: number;
}

/** What a claim takes: runs due by `horizon`, leases run out before `now`, at most `limit`, leases of due + timeout + `marginMs`. */
interface ClaimWindow {
  now: number;
  horizon: number;
  limit: number;
  marginMs: number;
  /** Worker nodes whose heartbeat is not older than this (ISO) count as live: the claim's `workers`. */
  liveSince: string;
  /**
   * Take a fair share, not all (several nodes): of the unleased runs due by `horizon`, the earliest
   * 1/n (n: the live worker nodes; of this region for regional runs) and at least every run due by
   * `urgent` (those this node's next round may be too late for). With `cap` the round takes, past the
   * urgent ones, up to `cap` runs instead of 1/n (what the node lacks of its fair part of the queue: 0
   * takes only what is urgent). `fair` caps it at what the node lacks of its fair part as this
   * statement counts it (`queued` over the live workers, less `held`). Without a share a round takes
   * every run due by the horizon.
   */
  share?: { urgent: number; cap?: number; fair?: boolean };
  /**
   * The runs this node holds now, plain and regional (its own heartbeat's counts are older): with the
   * other live nodes' counts from their heartbeats they make the claim's `queued`.
   */
  held?: { plain: number; regional: number };
  /**
   * Look for leases that ran out (default). False skips that scan this round (LIMIT 0: the index is
   * not read): its head holds the entries of every version released since the last vacuum, so it
   * costs about a millisecond even when it finds nothing.
   */
  takeover?: boolean;
}

/**
 * A claim round's runs, and how many worker nodes are live (1 at least: the caller paces its rounds by
 * it), of them in the claim's region (`regionWorkers`).
 */
interface ClaimResult {
  runs: ClaimedRun[];
  workers: number;
  regionWorkers: number;
  /**
   * The runs queued as the live nodes hold them (their heartbeats' counts, this node's `held`) plus the
   * unleased runs due by the horizon this claim read (of this region for `regional`): what each
   * node's fair part divides, counted from what grows with the nodes' parts, never the whole queue.
   */
  queued: { plain: number; regional: number };
}

/** What a change of the working set touches: one config, an endpoint's, a domain's. */
type DueScope = { config: string } | { endpoint: string } | { domain: string };

/**
 * A wake-up treats a leased run due before now plus this (ms) as sent already: its holder checks its
 * lease at most 2.5 s before a probe goes out (scheduler/liveness.ts, CHECK_AHEAD_MS and CHECK_FRESH_MS),
 * so it may have seen the lease still valid; the run's row is then due one interval after that run.
 */
const WAKE_SENT_MS = 3000;

/** A lease as it stands: its token, holder and end (null: not leased). */
interface LeaseNow {
  configId: string;
  region: string;
  token: number;
  owner: string | null;
  leaseUntil: number | null;
}

export function livenessDueRepo(db: Kysely<DB>) {
  type ClaimRow = TargetRow & {
    config_id: string;
    region?: string;
    taken?: boolean;
    due_at: string | number;
    fresh: number;
    token: string | number;
  };
  const toClaim = (r: ClaimRow, target = toTarget(r)): ClaimedRun => ({
    configId: r.config_id,
    region: r.region ?? '',
    ...(r.taken ? { taken: true } : {}),
    due: Number(r.due_at),
    fresh: r.fresh === 1,
    token: Number(r.token),
    ...(target ? { target } : {}),
  });
  /**
   * Both queues in one statement (one round trip per claim round): each takes its unleased rows due by
   * the horizon and its leases that ran out, each through its own partial index (earliest first,
   * locked with SKIP LOCKED), and the updates find their rows by primary key: nothing in the
   * statement reads the whole queue, whatever the fleet's size. Each run comes with its target (the
   * enabled config and its enabled endpoint, each by key): no second round trip per claim round.
   */
  async function claimBoth(owner: string, region: string, o: ClaimWindow): Promise<ClaimResult> {
    // Each lease lasts until the run's due time (or now) plus the config's timeout plus the margin.
    const leaseUntil = sql`greatest(q.due_at, ${o.now}::bigint)
      + (select c.timeout_seconds from liveness_configs c where c.id = q.config_id) * 1000 + ${o.marginMs}::bigint`;
    // A fair share (see ClaimWindow.share): the unleased runs due by the horizon are read once, without locks
    // (at most `limit`: past that the share is 1/n of those read, and a backlog, all of it urgent, is taken
    // `limit` at a time as without a share), counted, and the earliest share of them locked by key (SKIP
    // LOCKED, the predicate checked again on each row's latest version). One scan of the index range, not
    // two: its head holds the entries of versions claimed since the last vacuum, which every scan steps over
    // (about a millisecond each at 20,000 configs a minute). The ORDER BY and LIMIT keep the scan on the
    // partial index in a generic plan. Two nodes claiming in the same instant read the same candidates: the
    // later one skips what the other locked and takes less this round (what is urgent is in the first one's
    // share).
    const share = o.share;
    // Past the urgent runs: 1/n of the candidates, or (a cap) as many as the caller lacks of its part.
    // The fair part: the queue's size as counted below (the live nodes' held runs, this node's, the
    // unleased candidates) over the live workers; what this node lacks of it.
    const hp = Math.max(0, Math.floor(o.held?.plain ?? 0));
    const hr = Math.max(0, Math.floor(o.held?.regional ?? 0));
    const lacks = sql`greatest(0, ceil((w.hp + ${hp}::int + (select a from pf))::numeric / w.n
      + (w.hr + ${hr}::int + (select a from pr))::numeric / w.rn) - ${hp + hr}::int)`;
    const beyond = (nodes: 'n' | 'rn') =>
      share?.fair
        ? sql`least(x.a, ${lacks})`
        : share?.cap === undefined
          ? sql`ceil(x.a::numeric / w.${sql.raw(nodes)})`
          : sql`least(x.a, ${Math.max(0, Math.floor(share.cap))}::bigint)`;
    const take = (cand: 'cf' | 'cr', counts: 'pf' | 'pr', nodes: 'n' | 'rn') =>
      sql`(select config_id from ${sql.table(cand)} order by due_at limit
             (select greatest(x.u, ${beyond(nodes)}) from ${sql.table(counts)} x, w))`;
    const head = share
      ? sql`cf as (select config_id, due_at from liveness_due
               where owner is null and due_at <= ${o.horizon}::bigint order by due_at limit ${o.limit}),
        cr as (select config_id, due_at from liveness_region_due
               where region = ${region} and owner is null and due_at <= ${o.horizon}::bigint
               order by due_at limit ${o.limit}),
        pf as (select count(*) as a, count(*) filter (where due_at <= ${share.urgent}::bigint) as u from cf),
        pr as (select count(*) as a, count(*) filter (where due_at <= ${share.urgent}::bigint) as u from cr),
        sf as (select config_id from liveness_due
               where config_id = any(array${take('cf', 'pf', 'n')})
                 and owner is null and due_at <= ${o.horizon}::bigint for update skip locked),
        rf as (select config_id from liveness_region_due
               where region = ${region} and config_id = any(array${take('cr', 'pr', 'rn')})
                 and owner is null and due_at <= ${o.horizon}::bigint for update skip locked),`
      : sql`sf as (select config_id from liveness_due where owner is null and due_at <= ${o.horizon}::bigint
             order by due_at limit ${o.limit} for update skip locked),
        rf as (select config_id from liveness_region_due
             where region = ${region} and owner is null and due_at <= ${o.horizon}::bigint
             order by due_at limit ${o.limit} for update skip locked),`;
    const takeoverLimit = o.takeover === false ? 0 : o.limit;
    // The live worker nodes (a heartbeat since `liveSince`; of this region: rn), counted in every round:
    // the share divides by them and the caller paces its rounds by them.
    // Their heartbeats' counts of the runs they hold (this node's from `held`, newer), and the unleased
    // runs due by the horizon that the share read (pf, pr): the queue's size, with no count of it.
    const unleased = share
      ? sql`(select a from pf)::int as unleased_plain, (select a from pr)::int as unleased_regional`
      : sql`0 as unleased_plain, 0 as unleased_regional`;
    const r = await sql<
      ClaimRow & {
        workers: number;
        region_workers: number;
        held_plain: number;
        held_regional: number;
        unleased_plain: number;
        unleased_regional: number;
      }
    >`with
      w as (select greatest(1, count(*))::int as n, greatest(1, count(*) filter (where region = ${region}))::int as rn,
              coalesce(sum(work_claimed - work_regional) filter (where name <> ${owner}), 0)::int as hp,
              coalesce(sum(work_regional) filter (where name <> ${owner} and region = ${region}), 0)::int as hr
            from nodes where role <> 'api' and last_heartbeat >= ${o.liveSince}),
      ${head}
      sl as (select config_id from liveness_due where owner is not null and lease_until < ${o.now}::bigint
             order by lease_until limit ${takeoverLimit} for update skip locked),
      rl as (select config_id from liveness_region_due
             where region = ${region} and owner is not null and lease_until < ${o.now}::bigint
             order by lease_until limit ${takeoverLimit} for update skip locked),
      us as (update liveness_due q set owner = ${owner}, token = q.token + 1, lease_until = ${leaseUntil}
             where q.config_id = any(array(select config_id from sf union all select config_id from sl))
             returning q.config_id, ''::text as region, q.config_id = any(array(select config_id from sl)) as taken,
               q.due_at, q.fresh, q.token),
      ur as (update liveness_region_due q set owner = ${owner}, token = q.token + 1, lease_until = ${leaseUntil}
             where q.region = ${region}
               and q.config_id = any(array(select config_id from rf union all select config_id from rl))
             returning q.config_id, q.region, q.config_id = any(array(select config_id from rl)) as taken,
               q.due_at, q.fresh, q.token)
      select w.n as workers, w.rn as region_workers, w.hp as held_plain, w.hr as held_regional, ${unleased},
        q.*, ${targetColumns('l', 'e')}
      from w left join (select * from us union all select * from ur) q on true
        left join lateral (select * from liveness_configs x where x.id = q.config_id and x.is_enabled = 1 offset 0) l
          on true
        left join ${enabledEndpointOf('l', 'e')} on true ${PREPARED}`.execute(db);
    // One row at least (w's): without runs its config_id is null.
    const first = r.rows[0];
    return {
      runs: r.rows.filter((row) => row.config_id !== null).map((row) => toClaim(row)),
      workers: first?.workers ?? 1,
      regionWorkers: first?.region_workers ?? 1,
      queued: {
        plain: (first?.held_plain ?? 0) + (o.held?.plain ?? 0) + (first?.unleased_plain ?? 0),
        regional: (first?.held_regional ?? 0) + (o.held?.regional ?? 0) + (first?.unleased_regional ?? 0),
      },
    };
  }

  /**
   * release() on one table: liveness_due, or (`regional`) liveness_region_due; the dueKeys written.
   * `withStates` (liveness_due): the same statement reads each released config's combined state by
   * key (null: none yet), so a results batch needs no separate state read.
   */
  async function releaseIn(
    rows: readonly DueRelease[],
    marginMs: number,
    regional: boolean,
    withStates = false,
  ): Promise<{ keys: string[]; states: Map<string, LivenessState | null> }> {
    const states = new Map<string, LivenessState | null>();
    if (!rows.length) return { keys: [], states };
    const table = sql.table(regional ? 'liveness_region_due' : 'liveness_due');
    // Everything comes from the run: a change to its config since it was read revoked the lease (a new
    // token), so this update then finds no row. No read of the config per row.
    const update = sql`update ${table} q set
        due_at = u.next, fresh = 0,
        owner = case when u.keep then q.owner end,
        lease_until = case when u.keep then u.next + u.timeout * 1000 + ${marginMs} end
      from unnest(${rows.map((x) => x.configId)}::text[], ${rows.map((x) => x.region ?? '')}::text[],
                  ${rows.map((x) => x.token)}::bigint[], ${rows.map((x) => x.next)}::bigint[],
                  ${rows.map((x) => x.keep === true)}::boolean[], ${rows.map((x) => x.timeout ?? 0)}::integer[])
        as u(id, region, token, next, keep, timeout)
      where q.config_id = u.id ${regional ? sql`and q.region = u.region` : sql``} and q.token = u.token
      returning q.config_id ${regional ? sql`, q.region` : sql``}`;
    if (!withStates) {
      const r = await sql<{ config_id: string; region?: string }>`${update} ${PREPARED}`.execute(db);
      return { keys: r.rows.map((x) => dueKey(x.config_id, x.region)), states };
    }
    const r = await sql<StateRow & { released: string; known: boolean }>`with r as (${update})
      select r.config_id as released, s.config_id is not null as known, ${sql.raw(stateColumnsOf('s'))}
      from r left join lateral (select ${sql.raw(STATE_COLUMNS)} from liveness_state x
        where x.config_id = r.config_id offset 0) s on true ${PREPARED}`.execute(db);
    for (const x of r.rows) states.set(x.released, x.known ? toState(x) : null);
    return { keys: r.rows.map((x) => dueKey(x.released)), states };
  }

  return {
    /**
     * Claims runs in one statement: of configs checked from anywhere (liveness_due) and of `region`'s
     * runs of configs checked from several (liveness_region_due), unleased rows due by `horizon` and
     * leased rows whose lease ran out before `now` (a dead or stalled node's: those come back with
     * `taken`), earliest first, at most `limit` of each kind per queue. The lease lasts until the run's
     * due time (or now) plus its timeout plus `marginMs`. Each run comes with its target when the
     * config and its endpoint are enabled; `workers` counts the live worker nodes (see ClaimWindow).
     */
    claim: (owner: string, o: ClaimWindow & { region?: string }): Promise<ClaimResult> =>
      claimBoth(owner, o.region ?? DEFAULT_REGION, o),

    /**
     * Ends claimed runs (inside the transaction that writes their results): sets the next due time
     * and frees the lease, or keeps it (`keep`) until the next run plus its timeout plus `marginMs`.
     * Only rows still holding the given token change; returns the dueKeys that did (the others were
     * taken over or deleted: their results must not be written), and the combined states of the
     * released configs checked from anywhere, read in the same statement (null: no state yet;
     * configs with regions are read by the caller once it holds their lock). `readStates` false:
     * no states (runs parked unrun).
     */
    async release(
      rows: readonly DueRelease[],
      marginMs: number,
      readStates = true,
    ): Promise<{ live: Set<string>; states: Map<string, LivenessState | null> }> {
      const plain = await releaseIn(
        rows.filter((x) => !x.region),
        marginMs,
        false,
        readStates,
      );
      const regional = await releaseIn(
        rows.filter((x) => x.region),
        marginMs,
        true,
      );
      return { live: new Set([...plain.keys, ...regional.keys]), states: plain.states };
    },

    /**
     * Revokes the lease on a config's runs (a new token) and leaves their due times as they are: after a
     * state written outside a run (a push endpoint's ping), the holder's next result, computed from the
     * state it knew, is fenced out, and whoever claims the run next reads the state afresh.
     */
    async revoke(configId: string): Promise<void> {
      for (const table of ['liveness_due', 'liveness_region_due'] as const)
        await sql`update ${sql.table(table)} set owner = null, lease_until = null, token = token + 1
          where config_id = ${configId} and owner is not null`.execute(db);
    },

    /** Hands back this node's leases (a clean stop): another node claims them at once. */
    async releaseOwned(owner: string): Promise<number> {
      const r = await sql`update liveness_due set owner = null, lease_until = null where owner = ${owner}`.execute(db);
      const g =
        await sql`update liveness_region_due set owner = null, lease_until = null where owner = ${owner}`.execute(db);
      return Number(r.numAffectedRows ?? 0) + Number(g.numAffectedRows ?? 0);
    },

    /** A new config: due at `due` (its first run), in the transaction that creates it. */
    async add(configId: string, due: number, regions: readonly string[] = []): Promise<void> {
      if (!regions.length)
        await sql`insert into liveness_due (config_id, due_at, fresh) values (${configId}, ${due}, 1)
          on conflict (config_id) do nothing`.execute(db);
      else
        await sql`insert into liveness_region_due (config_id, region, due_at, fresh)
          select ${configId}, r, ${due}::bigint, 1 from unnest(${[...regions]}::text[]) as r
          on conflict (config_id, region) do nothing`.execute(db);
    },

    /**
     * A config's regions changed (in the transaction that changes them): one row in liveness_due
     * without regions, else one per region (new ones due at `due`), none left for a region it dropped.
     */
    async setRegions(configId: string, regions: readonly string[], due: number): Promise<void> {
      if (!regions.length) {
        await sql`delete from liveness_region_due where config_id = ${configId}`.execute(db);
      } else {
        await sql`delete from liveness_due where config_id = ${configId}`.execute(db);
        await sql`delete from liveness_region_due where config_id = ${configId}
          and not (region = any(${[...regions]}::text[]))`.execute(db);
      }
      await this.add(configId, due, regions);
    },

    /**
     * After a change to a config, its endpoint or its domain (on the node that made it, after its
     * commit): the rows' leases are revoked (a new token: the node holding one, which runs it from its
     * own wheel with the target it read, writes nothing more under it and lets it go), a parked row is
     * due now, and one due later than a (new, shorter) interval from now comes sooner. The next claim
     * reads the target afresh.
     */
    async wake(scope: DueScope, now: number): Promise<void> {
      const where =
        'config' in scope
          ? sql`c.id = ${scope.config}`
          : 'endpoint' in scope
            ? sql`c.endpoint_id = ${scope.endpoint}`
            : sql`c.endpoint_id in (select id from endpoints where domain_id = ${scope.domain})`;
      // A leased run due within WAKE_SENT_MS (or past) may be out already: the row is due one interval
      // after it, so whoever claims it next does not probe the target a second time right after.
      for (const table of ['liveness_due', 'liveness_region_due'] as const)
        await sql`update ${sql.table(table)} q
          set due_at = case when q.due_at is null then ${now}::bigint
                       when q.owner is not null and q.due_at <= ${now + WAKE_SENT_MS}::bigint
                         then q.due_at + c.interval_seconds * 1000
                       else least(q.due_at, ${now}::bigint + c.interval_seconds * 1000) end,
            owner = null, lease_until = null,
            token = case when q.owner is null then q.token else q.token + 1 end
          from liveness_configs c
          where c.id = q.config_id and ${where}`.execute(db);
    },

    /**
     * The leases of the given runs as they stand (both queues; by key, one statement): a holder checks
     * them just before its probes go out. A run with no row (its config deleted) is not in the answer.
     */
    async leases(runs: readonly { configId: string; region: string }[]): Promise<LeaseNow[]> {
      if (!runs.length) return [];
      const plain = runs.filter((r) => !r.region).map((r) => r.configId);
      const regional = runs.filter((r) => r.region);
      const r = await sql<{
        config_id: string;
        region: string;
        token: string | number;
        owner: string | null;
        lease_until: string | number | null;
      }>`select config_id, ''::text as region, token, owner, lease_until from liveness_due
          where config_id = any(${plain}::text[])
        union all
        select q.config_id, q.region, q.token, q.owner, q.lease_until from liveness_region_due q
          join unnest(${regional.map((x) => x.configId)}::text[], ${regional.map((x) => x.region)}::text[])
            as u(id, region) on q.config_id = u.id and q.region = u.region ${PREPARED}`.execute(db);
      return r.rows.map((x) => ({
        configId: x.config_id,
        region: x.region,
        token: Number(x.token),
        owner: x.owner,
        leaseUntil: x.lease_until === null ? null : Number(x.lease_until),
      }));
    },

    /**
     * Repairs the queue (at start and every few minutes): a row for every config without one (an
     * upgrade, a copy from SQLite: due one interval after its last check, or spread over the next
     * minute), and parked rows due again (a change whose wake-up was lost re-checks them).
     */
    async sync(now: number): Promise<{ added: number; woken: number }> {
      // Configs with regions: a row per listed region, none in liveness_due, none for a dropped region.
      const regional = await sql`insert into liveness_region_due (config_id, region, due_at, fresh)
        select c.id, r.region,
          coalesce((extract(epoch from s.last_check::timestamptz) * 1000)::bigint + c.interval_seconds * 1000,
                   ${now}::bigint + floor(random() * least(c.interval_seconds, 60) * 1000)::bigint),
          0
        from liveness_configs c
          cross join lateral jsonb_array_elements_text(c.regions::jsonb) as r(region)
          left join liveness_region_state s on s.config_id = c.id and s.region = r.region
        where c.regions is not null
          and not exists (select 1 from liveness_region_due q where q.config_id = c.id and q.region = r.region)
        on conflict (config_id, region) do nothing`.execute(db);
      await sql`delete from liveness_region_due q using liveness_configs c where c.id = q.config_id
        and (c.regions is null or not (c.regions::jsonb ? q.region))`.execute(db);
      await sql`delete from liveness_due q using liveness_configs c where c.id = q.config_id
        and c.regions is not null`.execute(db);
      const added = await sql`insert into liveness_due (config_id, due_at, fresh)
        select c.id,
          coalesce((extract(epoch from s.last_check::timestamptz) * 1000)::bigint + c.interval_seconds * 1000,
                   ${now}::bigint + floor(random() * least(c.interval_seconds, 60) * 1000)::bigint),
          -- Spread by its due time already: its second run comes one interval after its first.
          0
        from liveness_configs c left join liveness_state s on s.config_id = c.id
        where c.regions is null and not exists (select 1 from liveness_due q where q.config_id = c.id)
        on conflict (config_id) do nothing`.execute(db);
      let woken = 0;
      for (const table of ['liveness_due', 'liveness_region_due'] as const) {
        const r = await sql`update ${sql.table(table)} set due_at = ${now}::bigint
          where due_at is null and owner is null`.execute(db);
        woken += Number(r.numAffectedRows ?? 0);
      }
      return {
        added: Number(added.numAffectedRows ?? 0) + Number(regional.numAffectedRows ?? 0),
        woken,
      };
    },

    /** Rows as they stand (tests and tools). */
    async all(): Promise<{ configId: string; due: number | null; owner: string | null; token: number }[]> {
      const rows = await db.selectFrom('liveness_due').selectAll().orderBy('config_id').execute();
      return rows.map((r) => ({
        configId: r.config_id,
        due: r.due_at === null ? null : Number(r.due_at),
        owner: r.owner,
        token: Number(r.token),
      }));
    },

    /** Regional rows as they stand (tests and tools). */
    async allRegional(): Promise<{ configId: string; region: string; due: number | null; owner: string | null }[]> {
      const rows = await db
        .selectFrom('liveness_region_due')
        .selectAll()
        .orderBy('config_id')
        .orderBy('region')
        .execute();
      return rows.map((r) => ({
        configId: r.config_id,
        region: r.region,
        due: r.due_at === null ? null : Number(r.due_at),
        owner: r.owner,
      }));
    },
  };
}
