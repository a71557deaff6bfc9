// Domain health: gathers the inputs (registration expiry, endpoint certificates, security score,
// liveness) and stores score, grade and overall status on the domain when they changed.
import { computeHealth, type HealthInputs, type HealthResult } from '../domain/health.js';
import type { Clock } from '../domain/clock.js';
import type { Domain } from '../domain/types.js';
import type { Store } from '../store/index.js';
import type { MonitorService } from './monitor.js';

export function createHealthService({ store, clock, monitor }: { store: Store; clock: Clock; monitor: MonitorService }) {
  async function inputs(d: Domain): Promise<HealthInputs> {
    const [reg, certs, sec, endpoints] = await Promise.all([
      store.registrations.get(d.id),
      store.renewals.domainCertificates(d.id),
      store.security.get(d.id),
      store.endpoints.forDomain(d.team_id, d.id),
    ]);
    const configs = await store.liveness.forEndpoints(endpoints.filter((e) => e.is_enabled).map((e) => e.id));
    const byEndpoint = new Map(configs.filter((c) => c.is_enabled).map((c) => [c.endpoint_id, c]));
    const statuses = await monitor.statusesOf([...byEndpoint.values()]);
    const liveness: HealthInputs['liveness'] = [];
    for (const e of endpoints) {
      const st = statuses.get(byEndpoint.get(e.id)?.id ?? '');
      if (st) liveness.push({ status: st.status, uptime_24h: st.uptime_24h });
    }
    return {
      expiry_date: d.expiry_override ?? reg?.expiry_date ?? null,
      certificates: certs.map((c) => c.ssl_status),
      security_score: sec?.security_score ?? null,
      liveness,
    };
  }

  async function save(d: Domain, h: HealthResult): Promise<boolean> {
    if (h.score === d.health_score && h.grade === d.health_grade && h.overall_status === d.overall_status) return false;
    await store.domains.update(d.team_id, d.id, { health_score: h.score, health_grade: h.grade, overall_status: h.overall_status });
    return true;
  }

  /** Recomputes one domain; writes only when the result differs. */
  async function recompute(d: Domain): Promise<HealthResult> {
    const h = computeHealth(await inputs(d), clock.now());
    await save(d, h);
    return h;
  }

  /** Every domain with a handful of bulk queries (the sweep); returns how many changed. */
  async function recomputeAll(domains: Domain[]): Promise<number> {
    const [scores, certs, configs, endpoints] = await Promise.all([
      store.security.scores(), store.renewals.allCertificates(), store.liveness.allEnabled(), store.endpoints.all(),
    ]);
    const endpointById = new Map(endpoints.map((e) => [e.id, e]));
    const liveness = new Map<string, HealthInputs['liveness']>();
    const live = configs.filter((cfg) => endpointById.get(cfg.endpoint_id)?.is_enabled);
    const statuses = await monitor.statusesOf(live);
    for (const cfg of live) {
      const domainId = endpointById.get(cfg.endpoint_id)!.domain_id;
      const st = statuses.get(cfg.id)!;
      const list = liveness.get(domainId);
      const item = { status: st.status, uptime_24h: st.uptime_24h };
      if (list) list.push(item);
      else liveness.set(domainId, [item]);
    }
    const now = clock.now();
    let changed = 0;
    for (const d of domains) {
      const h = computeHealth({
        expiry_date: d.expiry_override ?? d.registry_expiry_date,
        certificates: certs.get(d.id) ?? [],
        security_score: scores.get(d.id) ?? null,
        liveness: liveness.get(d.id) ?? [],
      }, now);
      if (await save(d, h)) changed++;
    }
    return changed;
  }

  return {
    inputs,
    recompute,
    recomputeAll,
    async recomputeById(teamId: string, id: string): Promise<HealthResult | null> {
      const d = await store.domains.get(teamId, id);
      return d ? recompute(d) : null;
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
