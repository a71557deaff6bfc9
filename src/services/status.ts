// Combined status views (endpoint and, later, domain): certificate + liveness + health, both spec variants.
import { daysUntil, type Clock } from '../domain/clock.js';
import { alwaysCarriesCertificate, endpointHealth, endpointScore, fullUrl, worstHealth } from '../domain/endpoint.js';
import { certificateSummary } from '../domain/certificate.js';
import { first24hBucket, first30dBucket, uptimePercent } from '../domain/liveness.js';
import type { EndpointDetail, StatusFilter } from '../domain/types.js';
import type { DomainService } from './domains.js';
import type { Store } from '../store/index.js';
import { toDetail, type EndpointService } from './endpoints.js';
import type { LivenessStatus, MonitorService } from './monitor.js';
import { takeTurns } from './turns.js';

/** Health and score of an endpoint from its detail and its liveness configuration's status (null: none). */
function summarize(d: EndpointDetail, live: LivenessStatus | null, seq: number | null = null) {
  const health = endpointHealth(
    d.ssl_status,
    d.liveness_enabled ? (live?.status ?? 'unknown') : null,
    live?.uptime_24h ?? null,
  );
  return { d, live, health, score: endpointScore(health), seq };
}

type Summary = ReturnType<typeof summarize>;

export function createStatusService(deps: {
  store: Store;
  clock: Clock;
  endpoints: EndpointService;
  monitor: MonitorService;
  domains: DomainService;
}) {
  const { store, clock, endpoints, monitor, domains } = deps;
  // Lists and domain views read every endpoint of a team or domain: a team's such reads take turns (turns.ts).
  const turn = takeTurns();

  async function endpointSummary(teamId: string, id: string): Promise<Summary> {
    const d = await endpoints.detail(teamId, id);
    const cfg = d.liveness_id ? await store.liveness.byId(d.liveness_id) : undefined;
    return summarize(d, cfg ? await monitor.statusOf(cfg) : null);
  }

  /**
   * Status views (both variants) with `liveness.uptime_30d`: today and the 29 days before, from the
   * daily aggregates, one grouped query for all of them (null without a liveness configuration).
   */
  async function withUptime30d(list: Summary[], now: number) {
    const seqs = list.flatMap((x) => (x.seq === null ? [] : [x.seq]));
    const days30 = seqs.length ? await store.livenessData.dailySums(seqs, first30dBucket(now)) : null;
    return list.map((x) => {
      const v = view(x);
      const uptime_30d = x.seq !== null && days30 ? uptimePercent(days30(x.seq)) : null;
      return { ...v, liveness: { ...v.liveness, uptime_30d } };
    });
  }

  async function endpointView(teamId: string, id: string) {
    const d = await endpoints.detail(teamId, id);
    const cfg = d.liveness_id ? await store.liveness.byId(d.liveness_id) : undefined;
    const live = cfg ? await monitor.statusOf(cfg) : null;
    return (await withUptime30d([summarize(d, live, cfg?.seq ?? null)], clock.now().getTime()))[0]!;
  }

  /**
   * Summaries of many endpoints at once (a list page, a domain's endpoints): one query for the rows,
   * then three for every liveness status among them, at `now`.
   */
  async function summaries(
    teamId: string,
    f: StatusFilter,
    now: number,
    page?: { limit: number; offset: number },
  ): Promise<Summary[]> {
    const rows = await store.endpoints.statusRows(teamId, f, first24hBucket(now), page);
    const live = await monitor.statusesOf(
      rows.flatMap((r) => (r.liveness ? [{ ...r.liveness, endpoint_id: r.endpoint.id }] : [])),
      now,
    );
    return rows.map((r) =>
      summarize(
        toDetail(r.endpoint, r.certificate, r.liveness),
        r.liveness ? live.get(r.liveness.id)! : null,
        r.liveness?.seq ?? null,
      ),
    );
  }

  /** Both variants of an endpoint's status. */
  function view({ d, live, health }: Summary) {
    const e = d.endpoint;
    const days = d.ssl_expiry_date ? daysUntil(d.ssl_expiry_date, clock.now()) : null;
    return {
      // variant A
      endpoint_id: e.id,
      cert_expiry: d.ssl_expiry_date,
      issuer: d.ssl_issuer,
      subject: d.ssl_subject,
      last_checked_at: d.ssl_checked_at ?? live?.last_check ?? null,
      // variant B
      endpoint: {
        id: e.id,
        name: e.name,
        full_url: fullUrl(e),
        endpoint_type: e.endpoint_type,
        is_enabled: e.is_enabled,
      },
      ssl: { status: d.ssl_status, expiry_date: d.ssl_expiry_date, days_until_expiry: days, issuer: d.ssl_issuer },
      liveness: live
        ? {
            enabled: d.liveness_enabled,
            status: live.status,
            uptime_24h: live.uptime_24h,
            uptime_7d: live.uptime_7d,
            avg_response_time_ms: live.avg_response_time_ms,
            last_check: live.last_check,
            consecutive_failures: live.consecutive_failures,
          }
        : {
            enabled: false,
            status: 'unknown',
            uptime_24h: null,
            uptime_7d: null,
            avg_response_time_ms: null,
            last_check: null,
            consecutive_failures: 0,
          },
      overall_health: health,
    };
  }

  return {
    endpointSummary,
    endpoint: endpointView,

    /**
     * One page of every endpoint's status (User API), in list order, with `summary` counts of every
     * endpoint (of `domain_id`, before the `health` filter). Health is filtered and counted in SQL
     * (healthSql, which mirrors endpointHealth): a fixed number of queries per page, whatever the
     * team's size: the counts aggregate, the page, and the page's liveness statuses, all at one `now`.
     */
    async endpointList(teamId: string, f: StatusFilter, page: { limit: number; offset: number }) {
      const now = clock.now().getTime();
      const counts = await turn(teamId, () =>
        store.endpoints.healthCounts(teamId, { domain_id: f.domain_id }, first24hBucket(now)),
      );
      const summary = { ...counts, total: counts.healthy + counts.warning + counts.critical + counts.unknown };
      const total = f.health ? counts[f.health] : summary.total;
      const items =
        page.offset < total ? await withUptime30d(await turn(teamId, () => summaries(teamId, f, now, page)), now) : [];
      return { items, total, summary };
    },

    /** Domain status: variant A (`domain_id`, `whois_expiry`, `registrar`, `last_checked_at`) and B. */
    async domain(teamId: string, id: string) {
      const d = await domains.get(teamId, id);
      const all = await turn(teamId, () => summaries(teamId, { domain_id: id }, clock.now().getTime()));
      const { status: worst, soonest } = certificateSummary(
        all.map((x) => ({
          status: x.d.ssl_status,
          expiry: x.d.ssl_expiry_date,
          carries: x.d.ssl_status !== 'unknown' || alwaysCarriesCertificate(x.d.endpoint.endpoint_type),
        })),
      );
      const expiry = d.expiry_override ?? d.registry_expiry_date;
      const endpointWorst = worstHealth(all.map((x) => x.health));
      const now = clock.now();
      return {
        // variant A
        domain_id: d.id,
        whois_expiry: expiry,
        registrar: d.registrar,
        last_checked_at: d.registration_checked_at,
        // variant B
        domain: d.domain,
        is_verified: d.is_verified,
        health_score: d.health_score,
        health_grade: d.health_grade,
        overall_status: d.overall_status ?? (endpointWorst === 'unknown' ? 'unknown' : endpointWorst),
        whois: {
          registrar: d.registrar,
          expiry_date: expiry,
          days_until_expiry: expiry ? daysUntil(expiry, now) : null,
          nameservers: d.nameservers,
        },
        ssl: {
          status: worst ?? 'unknown',
          expiry_date: soonest,
          days_until_expiry: soonest ? daysUntil(soonest, now) : null,
        },
        endpoints: all.map((x) => ({
          id: x.d.endpoint.id,
          name: x.d.endpoint.name,
          full_url: fullUrl(x.d.endpoint),
          health: x.health,
        })),
      };
    },
  };
}
