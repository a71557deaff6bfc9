// Status pages: the owner's CRUD (team-scoped, endpoints checked against the page's portfolio) and
// the public view of a slug, read at most once per STATUS_PAGE_CACHE_SECONDS per slug in this process
// (concurrent misses share one read; unknown slugs are cached alike, so a flood of made-up slugs costs
// no more than a flood of real ones). docs/status-pages.md.
import { managedGuard } from './managed.js';
import { Conflict, Duplicate, Invalid, NotFound } from '../domain/errors.js';
import { daysUntil, isoNow } from '../domain/clock.js';
import { dayOf, hourOf, round2 } from '../domain/liveness.js';
import {
  overallStatus,
  pairIncidents,
  STATUS_PAGE_CACHE_SECONDS,
  STATUS_PAGE_DAYS,
  STATUS_PAGE_INCIDENTS,
  uptimeDays,
  type PublicStatus,
  type StatusPage,
  type UptimeDay,
} from '../domain/status-page.js';
import type { Page, PageOf } from '../domain/types.js';
import type { Repos } from '../store/index.js';
import type { ServiceDeps } from './deps.js';
import type { MaintenanceWindowService } from './maintenance-windows.js';

/** Slugs whose answers (found or not) are held at once; past it the cache starts over. */
const MAX_CACHED_SLUGS = 1000;

interface EndpointChoice {
  endpoint_id: string;
  display_name?: string | null;
}

export interface StatusPageInput {
  portfolio_id: string;
  slug: string;
  title: string;
  description?: string | null;
  show_certificates?: boolean;
  enabled?: boolean;
  endpoints?: EndpointChoice[];
}

export interface PublicStatusPage {
  title: string;
  description: string | null;
  status: ReturnType<typeof overallStatus>;
  generated_at: string;
  endpoints: {
    name: string;
    status: PublicStatus;
    uptime_90d: number | null;
    days: UptimeDay[];
    certificate: { expires_on: string; days_left: number } | null;
  }[];
  incidents: {
    endpoint: string;
    started_at: string | null;
    resolved_at: string | null;
    duration_seconds: number | null;
  }[];
}

/**
 * What a badge shows of one endpoint of a public page: its status and certificate as the page shows
 * them, its uptime over the last 24 hours (hourly sums) and 7 and 30 UTC days (daily sums, today
 * included), and the response time of its last check (null while its status is not up or down).
 */
export interface PublicBadge {
  name: string;
  status: PublicStatus;
  uptime_24h: number | null;
  uptime_7d: number | null;
  uptime_30d: number | null;
  response_time_ms: number | null;
  certificate_days_left: number | null;
}

/** Uptime percent of the sums from bucket `from` on (null: no checks). */
function uptimeSince(rows: readonly { bucket: number; total: number; ok: number }[] | undefined, from: number) {
  let total = 0;
  let ok = 0;
  for (const r of rows ?? [])
    if (r.bucket >= from) {
      total += r.total;
      ok += r.ok;
    }
  return total ? round2((ok / total) * 100) : null;
}

const slugTaken = (slug: string) =>
  new Conflict(
    `slug "${slug}" is taken: a status page's slug is its public address (/status/<slug>), so it is unique across the installation, whichever team holds it`,
    'SLUG_TAKEN',
  );

/**
 * Refuses a slug another page holds, before the write: a failed insert would end a PostgreSQL
 * transaction (a configuration file's apply goes on to report its other errors in it).
 */
async function checkSlug(tx: Pick<Repos, 'statusPages'>, slug: string, self?: string): Promise<void> {
  const holder = await tx.statusPages.idOfSlug(slug);
  if (holder !== undefined && holder !== self) throw slugTaken(slug);
}

export function createStatusPageService({
  store,
  clock,
  maintenance,
  audit,
  asConfigFile,
}: ServiceDeps & { maintenance?: Pick<MaintenanceWindowService, 'covering'> }) {
  const guard = managedGuard(asConfigFile);
  async function get(teamId: string, id: string): Promise<StatusPage> {
    const p = await store.statusPages.get(teamId, id);
    if (!p) throw new NotFound('Status page');
    return p;
  }

  /** The portfolio is the team's, and every listed endpoint is an endpoint of a domain in it (once each). */
  async function checkChoice(tx: Repos, teamId: string, portfolioId: string, endpoints: EndpointChoice[]) {
    if (!(await tx.portfolios.get(teamId, portfolioId))) throw new NotFound('Portfolio');
    const ids = endpoints.map((e) => e.endpoint_id.toLowerCase());
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup !== undefined) throw new Invalid(`endpoints: endpoint ${dup} is listed twice`);
    const inPortfolio = await tx.statusPages.endpointsInPortfolio(teamId, portfolioId, ids);
    const missing = ids.findIndex((id) => !inPortfolio.has(id));
    if (missing >= 0) {
      // Another team's endpoint and one that does not exist answer alike; the team's own endpoint of
      // another portfolio is named as such.
      const own = await tx.endpoints.get(teamId, ids[missing]!);
      if (!own) throw new NotFound('Endpoint');
      throw new Invalid(
        `endpoints.${missing}.endpoint_id: the endpoint's domain is not in the page's portfolio`,
        'ENDPOINT_NOT_IN_PORTFOLIO',
      );
    }
    return endpoints.map((e, position) => ({
      endpoint_id: ids[position]!,
      position,
      display_name: e.display_name?.trim() || null,
    }));
  }

  // Public side: slug -> the answer's promise and when it was read (ms).
  const cache = new Map<string, { at: number; view: Promise<PublicStatusPage | null> }>();
  let reads = 0;
  // The badges of a read, by endpoint id, kept beside its view (the view itself carries no ids).
  const badgesOf = new WeakMap<PublicStatusPage, Map<string, PublicBadge>>();
  const forget = (...slugs: string[]) => {
    for (const s of slugs) cache.delete(s);
  };

  /**
   * The public view of `slug` (null: unknown or disabled), read at most once per
   * STATUS_PAGE_CACHE_SECONDS; the same object is returned until then (callers may memoize on it).
   */
  function publicView(slug: string): Promise<PublicStatusPage | null> {
    const now = clock.now().getTime();
    const hit = cache.get(slug);
    if (hit && now - hit.at < STATUS_PAGE_CACHE_SECONDS * 1000 && now >= hit.at) return hit.view;
    if (cache.size >= MAX_CACHED_SLUGS) cache.clear();
    const view = readPublic(slug);
    const entry = { at: now, view };
    cache.set(slug, entry);
    // A failed read is not kept: the next view tries again.
    view.catch(() => {
      if (cache.get(slug) === entry) cache.delete(slug);
    });
    return view;
  }

  async function readPublic(slug: string): Promise<PublicStatusPage | null> {
    reads++;
    const src = await store.statusPages.publicSource(slug);
    if (!src) return null;
    const now = clock.now();
    const today = dayOf(now.getTime());
    const monitored = src.endpoints.filter((e) => e.seq !== null);
    const since = new Date((today - STATUS_PAGE_DAYS + 1) * 86_400_000).toISOString();
    const fromHour = hourOf(now.getTime()) - 23;
    const [daily, hourly, transitions] = await Promise.all([
      store.statusPages.dailyRows(
        monitored.map((e) => e.seq!),
        today - STATUS_PAGE_DAYS + 1,
      ),
      store.statusPages.hourlyRows(
        monitored.map((e) => e.seq!),
        fromHour,
      ),
      store.statusPages.transitions(
        src.team_id,
        src.endpoints.map((e) => e.endpoint_id),
        since,
        STATUS_PAGE_INCIDENTS * 4,
      ),
    ]);
    const covered = maintenance
      ? await maintenance.covering(
          src.endpoints.map((e) => e.endpoint_id),
          now.getTime(),
        )
      : new Map();
    const nameOf = new Map(src.endpoints.map((e) => [e.endpoint_id, e.name]));
    const dailyOf = new Map<number, typeof daily>();
    for (const r of daily) dailyOf.set(r.cfg, [...(dailyOf.get(r.cfg) ?? []), r]);
    const hourlyOf = new Map<number, typeof hourly>();
    for (const r of hourly) hourlyOf.set(r.cfg, [...(hourlyOf.get(r.cfg) ?? []), r]);
    const endpoints = src.endpoints.map((e) => {
      const { days, uptime } = uptimeDays(today, e.seq === null ? [] : (dailyOf.get(e.seq) ?? []));
      const live = e.enabled && e.config_enabled && (e.status === 'up' || e.status === 'down');
      return {
        name: e.name,
        status: (live ? (covered.has(e.endpoint_id) ? 'maintenance' : e.status) : 'unknown') as PublicStatus,
        uptime_90d: uptime,
        days,
        certificate:
          src.show_certificates && e.not_after
            ? { expires_on: e.not_after.slice(0, 10), days_left: daysUntil(e.not_after, now) }
            : null,
      };
    });
    const incidents = pairIncidents(
      transitions.map((t) => ({
        key: t.endpoint_id!,
        kind: t.category === 'endpoint_down' ? ('down' as const) : ('recovery' as const),
        at: t.created_at,
      })),
    ).map((i) => ({
      endpoint: nameOf.get(i.key) ?? '',
      started_at: i.started_at,
      resolved_at: i.resolved_at,
      duration_seconds: i.duration_seconds,
    }));
    const view: PublicStatusPage = {
      title: src.title,
      description: src.description,
      status: overallStatus(endpoints.map((e) => e.status)),
      generated_at: now.toISOString(),
      endpoints,
      incidents,
    };
    const badges = new Map<string, PublicBadge>();
    src.endpoints.forEach((e, i) => {
      const shown = endpoints[i]!;
      const days = e.seq === null ? undefined : dailyOf.get(e.seq);
      badges.set(e.endpoint_id, {
        name: shown.name,
        status: shown.status,
        uptime_24h: uptimeSince(e.seq === null ? undefined : hourlyOf.get(e.seq), fromHour),
        uptime_7d: uptimeSince(days, today - 6),
        uptime_30d: uptimeSince(days, today - 29),
        response_time_ms: shown.status === 'up' || shown.status === 'down' ? e.response_time_ms : null,
        certificate_days_left: shown.certificate?.days_left ?? null,
      });
    });
    badgesOf.set(view, badges);
    return view;
  }

  return {
    get,
    list: (teamId: string, f: { portfolio_id?: string }, page: Page): Promise<PageOf<StatusPage>> =>
      store.statusPages.list(teamId, f, page),

    async create(teamId: string, input: StatusPageInput): Promise<StatusPage> {
      let id = '';
      const now = isoNow(clock);
      try {
        await store.transaction(async (tx) => {
          const rows = await checkChoice(tx, teamId, input.portfolio_id.toLowerCase(), input.endpoints ?? []);
          await checkSlug(tx, input.slug);
          id = await tx.statusPages.insert({
            team_id: teamId,
            portfolio_id: input.portfolio_id.toLowerCase(),
            slug: input.slug,
            title: input.title.trim(),
            description: input.description ?? null,
            show_certificates: input.show_certificates !== false,
            enabled: input.enabled !== false,
            created_at: now,
            updated_at: now,
          });
          await tx.statusPages.setEndpoints(id, rows);
          const after = await tx.statusPages.get(teamId, id);
          await audit?.record(tx, teamId, { action: 'create', kind: 'status_page', id, name: input.slug, after });
        });
      } catch (err) {
        if (err instanceof Duplicate) throw slugTaken(input.slug);
        throw err;
      }
      forget(input.slug);
      return get(teamId, id);
    },

    async update(teamId: string, id: string, input: Partial<StatusPageInput>): Promise<StatusPage> {
      let before: StatusPage | undefined;
      try {
        await store.transaction(async (tx) => {
          before = await tx.statusPages.get(teamId, id);
          if (!before) throw new NotFound('Status page');
          await guard(tx, 'status_page', id);
          if (input.slug !== undefined && input.slug !== before.slug) await checkSlug(tx, input.slug, id);
          const portfolio = input.portfolio_id?.toLowerCase() ?? before.portfolio_id;
          // A new portfolio or a new list: the list (given or kept) is checked against the portfolio.
          const rows =
            input.endpoints !== undefined || portfolio !== before.portfolio_id
              ? await checkChoice(tx, teamId, portfolio, input.endpoints ?? before.endpoints)
              : undefined;
          await tx.statusPages.update(teamId, id, {
            portfolio_id: input.portfolio_id === undefined ? undefined : portfolio,
            slug: input.slug,
            title: input.title?.trim(),
            description: input.description,
            show_certificates: input.show_certificates,
            enabled: input.enabled,
            updated_at: isoNow(clock),
          });
          if (rows) await tx.statusPages.setEndpoints(id, rows);
          const after = await tx.statusPages.get(teamId, id);
          await audit?.record(tx, teamId, {
            action: 'update',
            kind: 'status_page',
            id,
            name: after?.slug,
            before,
            after,
          });
        });
      } catch (err) {
        if (err instanceof Duplicate) throw slugTaken(input.slug ?? before?.slug ?? '');
        throw err;
      }
      forget(before!.slug, ...(input.slug ? [input.slug] : []));
      return get(teamId, id);
    },

    async remove(teamId: string, id: string): Promise<StatusPage> {
      const p = await store.transaction(async (tx) => {
        const cur = await tx.statusPages.get(teamId, id);
        if (!cur) throw new NotFound('Status page');
        await guard(tx, 'status_page', id);
        await tx.statusPages.remove(teamId, id);
        await audit?.record(tx, teamId, { action: 'delete', kind: 'status_page', id, name: cur.slug, before: cur });
        return cur;
      });
      forget(p.slug);
      return p;
    },

    publicView,

    /**
     * The badge of `endpointId` on the public page at `slug`, from the same cached read as the page
     * (null: no such page, or the endpoint is not on it).
     */
    async publicBadge(slug: string, endpointId: string): Promise<PublicBadge | null> {
      const view = await publicView(slug);
      return (view && badgesOf.get(view)?.get(endpointId.toLowerCase())) ?? null;
    },

    /** Public reads made so far (each is one page's worth of queries): tests and metrics. */
    publicReads: (): number => reads,
  };
}
