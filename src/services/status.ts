// Combined status views (endpoint and, later, domain): certificate + liveness + health, both spec variants.
import { daysUntil, type Clock } from '../domain/clock.js';
import { endpointHealth, endpointScore, fullUrl, type Health } from '../domain/endpoint.js';
import type { DomainService } from './domains.js';
import type { Store } from '../store/index.js';
import type { EndpointService } from './endpoints.js';
import type { MonitorService } from './monitor.js';

const SSL_RANK: Record<string, number> = { error: 5, invalid: 4, expired: 4, expiring_soon: 3, valid: 1, unknown: 0 };
const HEALTH_RANK: Record<Health, number> = { critical: 3, warning: 2, healthy: 1, unknown: 0 };

export interface EndpointStatusFilter {
  domain_id?: string;
  health?: Health;
}

export function createStatusService(deps: { store: Store; clock: Clock; endpoints: EndpointService; monitor: MonitorService; domains: DomainService }) {
  const { store, clock, endpoints, monitor, domains } = deps;

  async function endpointSummary(teamId: string, id: string) {
    const d = await endpoints.detail(teamId, id);
    const cfg = d.liveness_id ? await store.liveness.byId(d.liveness_id) : undefined;
    const live = cfg ? await monitor.statusOf(cfg) : null;
    const health = endpointHealth(d.ssl_status, cfg?.is_enabled ? (live?.status ?? 'unknown') : null, live?.uptime_24h ?? null);
    return { d, live, health, score: endpointScore(health) };
  }

  async function endpointStatus(teamId: string, id: string) {
      const { d, live, health } = await endpointSummary(teamId, id);
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
        endpoint: { id: e.id, name: e.name, full_url: fullUrl(e), endpoint_type: e.endpoint_type, is_enabled: e.is_enabled },
        ssl: { status: d.ssl_status, expiry_date: d.ssl_expiry_date, days_until_expiry: days, issuer: d.ssl_issuer },
        liveness: live
          ? { enabled: d.liveness_enabled, status: live.status, uptime_24h: live.uptime_24h, uptime_7d: live.uptime_7d, avg_response_time_ms: live.avg_response_time_ms, last_check: live.last_check, consecutive_failures: live.consecutive_failures }
          : { enabled: false, status: 'unknown', uptime_24h: null, uptime_7d: null, avg_response_time_ms: null, last_check: null, consecutive_failures: 0 },
        overall_health: health,
      };
  }

  return {
    endpointSummary,
    endpoint: endpointStatus,

    /** Every endpoint's status with `summary` counts; `health` filters after computing (User API). */
    async endpointList(teamId: string, f: EndpointStatusFilter, page: { limit: number; offset: number }) {
      const all = await store.endpoints.list(teamId, { domain_id: f.domain_id }, { limit: 1_000_000, offset: 0 });
      const rows = await Promise.all(all.items.map((e) => endpointStatus(teamId, e.id)));
      const summary = { healthy: 0, warning: 0, critical: 0, unknown: 0, total: rows.length };
      for (const r of rows) summary[r.overall_health]++;
      const matching = f.health ? rows.filter((r) => r.overall_health === f.health) : rows;
      return { items: matching.slice(page.offset, page.offset + page.limit), total: matching.length, summary };
    },

    /** Domain status: variant A (`domain_id`, `whois_expiry`, `registrar`, `last_checked_at`) and B. */
    async domain(teamId: string, id: string) {
      const d = await domains.get(teamId, id);
      const eps = await store.endpoints.forDomain(teamId, id);
      const summaries = await Promise.all(eps.map((e) => endpointSummary(teamId, e.id)));
      const certs = summaries.filter((x) => x.d.ssl_status !== 'unknown' || x.d.endpoint.endpoint_type === 'https');
      const worst = certs.reduce<string | null>((w, x) => (w === null || (SSL_RANK[x.d.ssl_status] ?? 0) > (SSL_RANK[w] ?? 0) ? x.d.ssl_status : w), null);
      const soonest = certs.map((x) => x.d.ssl_expiry_date).filter((x): x is string => !!x).sort()[0] ?? null;
      const expiry = d.expiry_override ?? d.registry_expiry_date;
      const endpointWorst = summaries.reduce<Health>((w, x) => (HEALTH_RANK[x.health] > HEALTH_RANK[w] ? x.health : w), 'unknown');
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
        whois: { registrar: d.registrar, expiry_date: expiry, days_until_expiry: expiry ? daysUntil(expiry, now) : null, nameservers: d.nameservers },
        ssl: { status: worst ?? 'unknown', expiry_date: soonest, days_until_expiry: soonest ? daysUntil(soonest, now) : null },
        endpoints: summaries.map((x) => ({ id: x.d.endpoint.id, name: x.d.endpoint.name, full_url: fullUrl(x.d.endpoint), health: x.health })),
      };
    },
  };
}

export type StatusService = ReturnType<typeof createStatusService>;
