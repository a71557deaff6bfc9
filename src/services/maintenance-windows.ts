// Maintenance windows: the team's CRUD (every named endpoint, domain and portfolio is the team's), and
// which window covers an endpoint at a time. That answer is read on every recorded check, so every
// enabled window is held in memory with the endpoints it covers, read again only when the store's
// stamp of windows, endpoints and domains moves (on PostgreSQL the change feed moves it for writes on
// any node). docs/maintenance-windows.md.
import { managedGuard } from './managed.js';
import { isoNow } from '../domain/clock.js';
import { Invalid, NotFound } from '../domain/errors.js';
import {
  activeSpan,
  covers,
  coversDomain,
  cronError,
  mergeSpans,
  nextSpan,
  spansIn,
  validTimeZone,
  type MaintenanceWindow,
  type Span,
} from '../domain/maintenance.js';
import type { Page, PageOf } from '../domain/types.js';
import type { ServiceDeps } from './deps.js';

export interface MaintenanceWindowInput {
  name: string;
  starts_at?: string | null;
  ends_at?: string | null;
  cron?: string | null;
  duration_minutes?: number | null;
  timezone?: string;
  endpoint_ids?: string[];
  domain_ids?: string[];
  portfolio_ids?: string[];
  is_enabled?: boolean;
}

/** The in-memory picture: each enabled window with the endpoint ids it covers. */
interface Coverage {
  stamp: string;
  byEndpoint: Map<string, MaintenanceWindow[]>;
}

const lower = (ids: string[] | undefined) =>
  ids === undefined ? undefined : [...new Set(ids.map((i) => i.toLowerCase()))];

const iso = (v: string | null | undefined): string | null | undefined =>
  v === undefined || v === null ? v : new Date(Date.parse(v)).toISOString();

export function createMaintenanceWindowService({
  store,
  clock,
  audit,
  asConfigFile,
}: Pick<ServiceDeps, 'store' | 'clock' | 'audit' | 'asConfigFile'>) {
  const guard = managedGuard(asConfigFile);
  async function get(teamId: string, id: string): Promise<MaintenanceWindow> {
    const w = await store.maintenanceWindows.get(teamId, id);
    if (!w) throw new NotFound('Maintenance window');
    return w;
  }

  /** The window's rules: one-off (start before end) or recurring (valid cron, zone and duration), and something to cover. */
  function check(w: Omit<MaintenanceWindow, 'id' | 'created_at' | 'updated_at'>): void {
    if (!validTimeZone(w.timezone)) throw new Invalid(`timezone: unknown time zone "${w.timezone}"`);
    if (w.cron === null) {
      if (w.duration_minutes !== null) throw new Invalid('duration_minutes: only a recurring window (cron) has one');
      if (w.starts_at === null || w.ends_at === null)
        throw new Invalid('starts_at and ends_at: a one-off window needs both (or give cron and duration_minutes)');
    } else {
      const err = cronError(w.cron, w.timezone);
      if (err) throw new Invalid(`cron: ${err}`);
      if (w.duration_minutes === null) throw new Invalid('duration_minutes: a recurring window needs one');
    }
    if (w.starts_at !== null && w.ends_at !== null && Date.parse(w.ends_at) <= Date.parse(w.starts_at))
      throw new Invalid('ends_at: must be after starts_at');
    if (!w.endpoint_ids.length && !w.domain_ids.length && !w.portfolio_ids.length)
      throw new Invalid('endpoint_ids, domain_ids, portfolio_ids: a window covers at least one of them');
  }

  /** Every named id is the team's (another team's id answers as one that does not exist). */
  async function checkTargets(
    teamId: string,
    w: Pick<MaintenanceWindow, 'endpoint_ids' | 'domain_ids' | 'portfolio_ids'>,
  ) {
    for (const id of w.endpoint_ids) if (!(await store.endpoints.get(teamId, id))) throw new NotFound('Endpoint');
    for (const id of w.domain_ids) if (!(await store.domains.get(teamId, id))) throw new NotFound('Domain');
    for (const id of w.portfolio_ids) if (!(await store.portfolios.get(teamId, id))) throw new NotFound('Portfolio');
  }

  // Two levels: the enabled windows (read again only when a window changes), and, only while there
  // are some, the endpoints they cover (read again when windows, endpoints or domains change).
  let windows: { stamp: string; list: MaintenanceWindow[] } | null = null;
  let coverage: Coverage | null = null;
  let loading: Promise<Coverage> | null = null;
  const NONE: Coverage = { stamp: '', byEndpoint: new Map() };

  async function load(list: MaintenanceWindow[], stamp: string): Promise<Coverage> {
    const byTeam = new Map<string, MaintenanceWindow[]>();
    for (const w of list) byTeam.set(w.team_id, [...(byTeam.get(w.team_id) ?? []), w]);
    const byEndpoint = new Map<string, MaintenanceWindow[]>();
    for (const [teamId, own] of byTeam) {
      const candidates = await store.maintenanceWindows.candidates(teamId, {
        endpoints: [...new Set(own.flatMap((w) => w.endpoint_ids))],
        domains: [...new Set(own.flatMap((w) => w.domain_ids))],
        portfolios: [...new Set(own.flatMap((w) => w.portfolio_ids))],
      });
      for (const c of candidates)
        for (const w of own)
          if (covers(w, c)) byEndpoint.set(c.endpoint_id, [...(byEndpoint.get(c.endpoint_id) ?? []), w]);
    }
    return { stamp, byEndpoint };
  }

  /** The enabled windows, read again only when a window changed. */
  async function enabled(): Promise<MaintenanceWindow[]> {
    const wStamp = store.readStamp('maintenanceWindows');
    if (windows?.stamp === wStamp) return windows.list;
    const list = await store.maintenanceWindows.enabled();
    // Kept only while nothing moved during the read (a write meanwhile makes the next call read again).
    if (store.readStamp('maintenanceWindows') === wStamp) windows = { stamp: wStamp, list };
    coverage = null;
    return list;
  }

  /** The coverage for the store's current stamps (concurrent misses share one read). */
  async function current(): Promise<Coverage> {
    const list = await enabled();
    if (!list.length) return NONE;
    const stamp = store.readStamp('maintenanceCoverage');
    if (coverage?.stamp === stamp) return coverage;
    const from = list;
    loading ??= load(from, stamp).finally(() => {
      loading = null;
    });
    const c = await loading;
    if (c.stamp === store.readStamp('maintenanceCoverage')) coverage = c;
    return c;
  }

  const byNewest = (a: { span: Span }, b: { span: Span }) => b.span.end - a.span.end;

  /** The window covering `endpointId` at `at` (epoch ms) with its occurrence; the one ending last when several do. */
  function windowIn(c: Coverage, endpointId: string, at: number): { window: MaintenanceWindow; span: Span } | null {
    const hits = (c.byEndpoint.get(endpointId) ?? []).flatMap((window) => {
      const span = activeSpan(window, at);
      return span ? [{ window, span }] : [];
    });
    return hits.sort(byNewest)[0] ?? null;
  }

  return {
    get,
    list: (teamId: string, page: Page): Promise<PageOf<MaintenanceWindow>> =>
      store.maintenanceWindows.list(teamId, page),

    async create(teamId: string, input: MaintenanceWindowInput): Promise<MaintenanceWindow> {
      const now = isoNow(clock);
      const w = {
        team_id: teamId,
        name: input.name.trim(),
        starts_at: iso(input.starts_at) ?? null,
        ends_at: iso(input.ends_at) ?? null,
        cron: input.cron?.trim() || null,
        duration_minutes: input.duration_minutes ?? null,
        timezone: input.timezone ?? 'UTC',
        endpoint_ids: lower(input.endpoint_ids) ?? [],
        domain_ids: lower(input.domain_ids) ?? [],
        portfolio_ids: lower(input.portfolio_ids) ?? [],
        is_enabled: input.is_enabled !== false,
        created_at: now,
        updated_at: now,
      };
      check(w);
      await checkTargets(teamId, w);
      return store.transaction(async (tx) => {
        const id = await tx.maintenanceWindows.insert(w);
        const after = (await tx.maintenanceWindows.get(teamId, id))!;
        await audit?.record(tx, teamId, { action: 'create', kind: 'maintenance_window', id, name: w.name, after });
        return after;
      });
    },

    async update(teamId: string, id: string, input: Partial<MaintenanceWindowInput>): Promise<MaintenanceWindow> {
      const before = await get(teamId, id);
      await guard(store, 'maintenance_window', id);
      const patch = {
        name: input.name?.trim(),
        starts_at: iso(input.starts_at),
        ends_at: iso(input.ends_at),
        cron: input.cron === undefined ? undefined : input.cron?.trim() || null,
        duration_minutes: input.duration_minutes,
        timezone: input.timezone,
        endpoint_ids: lower(input.endpoint_ids),
        domain_ids: lower(input.domain_ids),
        portfolio_ids: lower(input.portfolio_ids),
        is_enabled: input.is_enabled,
      };
      const after = { ...before };
      for (const [k, v] of Object.entries(patch)) if (v !== undefined) Object.assign(after, { [k]: v });
      check(after);
      await checkTargets(teamId, after);
      return store.transaction(async (tx) => {
        await tx.maintenanceWindows.update(teamId, id, { ...patch, updated_at: isoNow(clock) });
        const now = (await tx.maintenanceWindows.get(teamId, id))!;
        await audit?.record(tx, teamId, {
          action: 'update',
          kind: 'maintenance_window',
          id,
          name: now.name,
          before,
          after: now,
        });
        return now;
      });
    },

    async remove(teamId: string, id: string): Promise<MaintenanceWindow> {
      const w = await get(teamId, id);
      await guard(store, 'maintenance_window', id);
      await store.transaction(async (tx) => {
        await tx.maintenanceWindows.remove(teamId, id);
        await audit?.record(tx, teamId, { action: 'delete', kind: 'maintenance_window', id, name: w.name, before: w });
      });
      return w;
    },

    /** Whether the window is in effect at `at`, and its current or next occurrence. */
    occurrence(w: MaintenanceWindow, at = clock.now().getTime()): { active: boolean; span: Span | null } {
      const span = activeSpan(w, at);
      return span ? { active: true, span } : { active: false, span: nextSpan(w, at) };
    },

    /** The window covering each of `endpointIds` at `at` (those not covered are absent). */
    async covering(
      endpointIds: readonly string[],
      at = clock.now().getTime(),
    ): Promise<Map<string, { window: MaintenanceWindow; span: Span }>> {
      const c = await current();
      const out = new Map<string, { window: MaintenanceWindow; span: Span }>();
      if (!c.byEndpoint.size) return out;
      for (const id of endpointIds) {
        const hit = windowIn(c, id, at);
        if (hit) out.set(id, hit);
      }
      return out;
    },

    /** The window covering each item's endpoint at the item's time (null: none), in order. */
    async coveringEach(
      items: readonly { endpointId: string; at: number }[],
    ): Promise<({ window: MaintenanceWindow; span: Span } | null)[]> {
      const c = await current();
      return items.map((i) => (c.byEndpoint.size ? windowIn(c, i.endpointId, i.at) : null));
    },

    /**
     * The window covering a domain itself at `at` (epoch ms): one that names the domain or its
     * portfolio (a window naming only some of its endpoints does not); the one ending last when
     * several do. What holds back the alerts about the domain as a whole (its delegation).
     */
    async coveringDomain(
      d: { id: string; team_id: string; portfolio_id: string | null },
      at = clock.now().getTime(),
    ): Promise<{ window: MaintenanceWindow; span: Span } | null> {
      const hits = (await enabled()).flatMap((window) => {
        if (window.team_id !== d.team_id || !coversDomain(window, { domain_id: d.id, portfolio_id: d.portfolio_id }))
          return [];
        const span = activeSpan(window, at);
        return span ? [{ window, span }] : [];
      });
      return hits.sort(byNewest)[0] ?? null;
    },

    /** The spans of [from, to) during which some window covered the endpoint (sorted, merged). */
    async spansOf(endpointId: string, from: number, to: number): Promise<Span[]> {
      const c = await current();
      return mergeSpans((c.byEndpoint.get(endpointId) ?? []).flatMap((w) => spansIn(w, from, to)));
    },
  };
}

export type MaintenanceWindowService = ReturnType<typeof createMaintenanceWindowService>;
