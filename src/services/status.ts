// Combined status views (endpoint and, later, domain): certificate + liveness + health, both spec variants.
import { daysUntil, type Clock } from '../domain/clock.js';
import { endpointHealth, endpointScore, fullUrl } from '../domain/endpoint.js';
import type { Store } from '../store/index.js';
import type { EndpointService } from './endpoints.js';
import type { MonitorService } from './monitor.js';

export function createStatusService(deps: { store: Store; clock: Clock; endpoints: EndpointService; monitor: MonitorService }) {
  const { store, clock, endpoints, monitor } = deps;

  async function endpointSummary(teamId: string, id: string) {
    const d = await endpoints.detail(teamId, id);
    const cfg = d.liveness_id ? await store.liveness.byId(d.liveness_id) : undefined;
    const live = cfg ? await monitor.statusOf(cfg) : null;
    const health = endpointHealth(d.ssl_status, cfg?.is_enabled ? (live?.status ?? 'unknown') : null, live?.uptime_24h ?? null);
    return { d, live, health, score: endpointScore(health) };
  }

  return {
    endpointSummary,
    async endpoint(teamId: string, id: string) {
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
    },
  };
}

export type StatusService = ReturnType<typeof createStatusService>;
