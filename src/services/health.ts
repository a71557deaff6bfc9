// Domain health: gathers the inputs (registration expiry, endpoint certificates, security score,
// liveness) and stores score, grade and overall status on the domain when they changed.
// Every service that changes an input calls `recompute` (as the HealthHook of deps.ts) inside its own
// transaction; the monitor's liveness flips and the intel scheduler's rounds call `recomputeMany` for
// many domains at once, right after; the sweep is only a safety net for time passing.
import { computeHealth, type HealthInputs, type HealthResult } from '../domain/health.js';
import type { Clock } from '../domain/clock.js';
import { first24hBucket, uptimePercent } from '../domain/liveness.js';
import { securityParts } from '../domain/security.js';
import type { Domain } from '../domain/types.js';
import type { Repos, Store } from '../store/index.js';

/** How long a domain's liveness input is reused by recomputes whose cause is not liveness. */
const LIVENESS_REUSE_MS = 60_000;

export function createHealthService({ store, clock }: { store: Store; clock: Clock }) {
  /** Status and 24 h uptime of each enabled configuration, grouped by domain, in one query (one domain's recompute, a batch, or the sweep). */
  async function livenessInputs(
    repos: Pick<Repos, 'livenessData'>,
    domainIds?: string | readonly string[],
  ): Promise<Map<string, HealthInputs['liveness']>> {
    const rows = await repos.livenessData.healthInputs(first24hBucket(clock.now().getTime()), domainIds);
    const out = new Map<string, HealthInputs['liveness']>();
    for (const r of rows) {
      const item = {
        status: (r.status ?? 'unknown') as HealthInputs['liveness'][number]['status'],
        uptime_24h: uptimePercent(r),
      };
      const list = out.get(r.domain_id);
      if (list) list.push(item);
      else out.set(r.domain_id, [item]);
    }
    return out;
  }

  // A domain's liveness input (every config's status and 24 h uptime) as last read outside a
  // transaction, for recomputes whose cause is not liveness (a registration, DNS-security or
  // verification result): the first intelligence round of a large import recomputes each domain
  // several times, and re-summing 24 hourly rows of each of its configs every time cost more than
  // the rest of the recompute. Kept LIVENESS_REUSE_MS; a recompute for a liveness cause reads afresh.
  const livenessSeen = new Map<string, { at: number; list: HealthInputs['liveness'] }>();

  async function domainLiveness(repos: Repos, domainId: string, reuse: boolean): Promise<HealthInputs['liveness']> {
    const t = clock.now().getTime();
    if (reuse) {
      const hit = livenessSeen.get(domainId);
      if (hit && t - hit.at < LIVENESS_REUSE_MS) return hit.list;
    }
    const list = (await livenessInputs(repos, domainId)).get(domainId) ?? [];
    // Inside a transaction the read may see writes that roll back: it is not kept, and an older one is dropped.
    if (repos === store || reuse) keepLiveness(domainId, list, t);
    else livenessSeen.delete(domainId);
    return list;
  }

  function keepLiveness(domainId: string, list: HealthInputs['liveness'], t: number): void {
    if (livenessSeen.size >= 10_000)
      for (const [k, v] of livenessSeen) if (t - v.at >= LIVENESS_REUSE_MS) livenessSeen.delete(k);
    livenessSeen.set(domainId, { at: t, list });
  }

  /**
   * `fresh`: `d` was just read through `repos`, so its registration columns (the domain row's join:
   * null without a registration row) are the registration's own and that row is not read again.
   */
  async function inputs(repos: Repos, d: Domain, reuseLiveness = false, fresh = false): Promise<HealthInputs> {
    const [reg, certs, sec, liveness] = await Promise.all([
      fresh ? { expiry_date: d.registry_expiry_date, reason: d.registration_reason } : repos.registrations.get(d.id),
      repos.renewals.domainCertificates(d.id),
      repos.security.get(d.id),
      domainLiveness(repos, d.id, reuseLiveness),
    ]);
    return {
      expiry_date: d.expiry_override ?? reg?.expiry_date ?? null,
      certificates: certs.map((c) => c.ssl_status),
      security_score: sec?.security_score ?? null,
      liveness,
      registration_cause: reg ? reg.reason : null,
      security_parts: sec ? securityParts(sec.details) : null,
    };
  }

  const same = (d: Domain, h: HealthResult) =>
    h.score === d.health_score && h.grade === d.health_grade && h.overall_status === d.overall_status;

  async function save(repos: Repos, d: Domain, h: HealthResult): Promise<boolean> {
    if (same(d, h)) return false;
    await repos.domains.update(d.team_id, d.id, {
      health_score: h.score,
      health_grade: h.grade,
      overall_status: h.overall_status,
    });
    return true;
  }

  /**
   * Recomputes one domain from its current inputs and stores the result when it differs; `repos`
   * is the transaction that changed an input (or the store). Null when the domain is gone.
   * `reuseLiveness`: the cause is not liveness, so a liveness input read in the last minute will do.
   */
  async function recompute(repos: Repos, domainId: string, reuseLiveness = false): Promise<HealthResult | null> {
    const d = await repos.domains.byId(domainId);
    if (!d) return null;
    const h = computeHealth(await inputs(repos, d, reuseLiveness, true), clock.now());
    await save(repos, d, h);
    return h;
  }

  /** What the stored health needs of a domain whose other inputs were read for many at once. */
  const stored = (
    d: Domain,
    certs: Map<string, string[]>,
    scores: Map<string, number>,
    liveness: Map<string, HealthInputs['liveness']>,
    now: Date,
  ) =>
    computeHealth(
      {
        expiry_date: d.expiry_override ?? d.registry_expiry_date,
        certificates: certs.get(d.id) ?? [],
        security_score: scores.get(d.id) ?? null,
        liveness: liveness.get(d.id) ?? [],
      },
      now,
    );

  /**
   * Recomputes many domains outside any transaction, as `recompute(store, id)` does each (the same
   * stored health), with each input read once per 500 domains instead of once per domain: a burst
   * of liveness flips, or a round of intelligence refreshes. The liveness input is read afresh and
   * kept for the recomputes that may reuse it. Returns how many changed.
   */
  async function recomputeMany(domainIds: Iterable<string>): Promise<number> {
    const ids = [...new Set(domainIds)];
    let changed = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const t = clock.now().getTime();
      const [domains, certs, scores, liveness] = await Promise.all([
        store.domains.byIds(chunk),
        store.renewals.certificatesOf(chunk),
        store.security.scoresOf(chunk),
        livenessInputs(store, chunk),
      ]);
      const now = clock.now();
      const results = domains.map((d) => {
        keepLiveness(d.id, liveness.get(d.id) ?? [], t);
        return { d, h: stored(d, certs, scores, liveness, now) };
      });
      const moved = results.filter(({ d, h }) => !same(d, h));
      // The changed ones in one transaction: one commit for the lot, not one per domain.
      if (moved.length)
        await store.transaction(async (tx) => {
          for (const r of moved) await save(tx, r.d, r.h);
        });
      changed += moved.length;
    }
    return changed;
  }

  /** Every domain, chunk by chunk (the other inputs are read once, up front); returns how many changed. */
  async function recomputeAll(chunks: AsyncIterable<Domain[]> | Iterable<Domain[]>): Promise<number> {
    const [scores, certs, liveness] = await Promise.all([
      store.security.scores(),
      store.renewals.allCertificates(),
      livenessInputs(store),
    ]);
    const now = clock.now();
    let changed = 0;
    for await (const domains of chunks) {
      for (const d of domains) if (await save(store, d, stored(d, certs, scores, liveness, now))) changed++;
    }
    return changed;
  }

  return {
    inputs: (d: Domain) => inputs(store, d),
    /** The domain's health from its current inputs, with the reasons of its grade (nothing is stored). */
    explain: async (d: Domain) => computeHealth(await inputs(store, d), clock.now()),
    recompute,
    recomputeMany,
    /** The HealthHook of the intelligence services: their results never move the liveness input. */
    recomputeNotLiveness: (repos: Repos, domainId: string) => recompute(repos, domainId, true),
    recomputeAll,
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
