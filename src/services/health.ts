// Domain health: gathers the inputs (registration expiry, endpoint certificates, security score,
// liveness) and stores score, grade and overall status on the domain when they changed.
// Every service that changes an input calls `recompute` (as the HealthHook of deps.ts) inside its own
// transaction; the monitor's liveness flips and the intel scheduler's rounds call `recomputeMany` for
// many domains at once, right after; the sweep is only a safety net for time passing.
//
// Rule: a health is written only from inputs read in the writing transaction, after the domain's row
// is locked (PostgreSQL: `for update`; SQLite: the transaction excludes every other writer). A health
// computed from an earlier read would overwrite a newer one that a transaction (this node's or
// another's) committed in between. The batch paths read outside any transaction to find what moved
// (most often nothing) and read again, locked, only for those.
import { computeHealth, type HealthInputs, type HealthResult } from '../domain/health.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../domain/clock.js';
import { first24hBucket, uptimePercent } from '../domain/liveness.js';
import { securityParts } from '../domain/security.js';
import type { Domain } from '../domain/types.js';
import type { Repos, Store } from '../store/index.js';

/** How long a domain's liveness input is reused by recomputes whose cause is not liveness. */
const LIVENESS_REUSE_MS = 60_000;
/** Tries at a batch write's rows that other transactions hold (50 ms, 100 ms, ... apart); then they are left to those transactions' own recomputes and the sweep. */
const LOCKED_TRIES = 5;

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
    if (repos !== store) await repos.domains.lockForHealth([domainId]);
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

  /** These domains (at most 500; gone ones left out) with the health their inputs give now, each input read once through `repos`. */
  async function healthsOf(repos: Repos, ids: readonly string[]) {
    if (!ids.length) return [];
    const [domains, certs, scores, liveness] = await Promise.all([
      repos.domains.byIds(ids),
      repos.renewals.certificatesOf(ids),
      repos.security.scoresOf(ids),
      livenessInputs(repos, ids),
    ]);
    const now = clock.now();
    return domains.map((d) => ({ d, h: stored(d, certs, scores, liveness, now), liveness: liveness.get(d.id) ?? [] }));
  }

  /**
   * Recomputes many domains, as `recompute(store, id)` does each (the same stored health), with each
   * input read once per 500 domains instead of once per domain: a burst of liveness flips, or a round
   * of intelligence refreshes. That read is outside any transaction and only finds the domains whose
   * health moved; those are read again and written under their locks (`settle`). The liveness input
   * is read afresh and kept for the recomputes that may reuse it. Returns how many changed.
   */
  async function recomputeMany(domainIds: Iterable<string>): Promise<number> {
    const ids = [...new Set(domainIds)];
    let changed = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const t = clock.now().getTime();
      const moved: string[] = [];
      for (const { d, h, liveness } of await healthsOf(store, chunk)) {
        keepLiveness(d.id, liveness, t);
        if (!same(d, h)) moved.push(d.id);
      }
      if (moved.length) changed += await settle(moved);
    }
    return changed;
  }

  /**
   * Stores the health of these domains (at most 500) from inputs read under their rows' locks, all in
   * one transaction (one commit for the lot). Rows another transaction holds are not waited for (a
   * batch that waited while holding others could close a cycle): they are tried again a few times,
   * after which that transaction's own recompute or the sweep has them. Returns how many changed.
   */
  async function settle(ids: readonly string[]): Promise<number> {
    let changed = 0;
    let left = ids;
    for (let attempt = 0; left.length && attempt < LOCKED_TRIES; attempt++) {
      if (attempt) await sleep(50 * attempt);
      left = await store.transaction(async (tx) => {
        const held = await tx.domains.lockForHealth(left, { skipLocked: true });
        for (const { d, h } of await healthsOf(tx, held)) if (await save(tx, d, h)) changed++;
        const got = new Set(held);
        return left.filter((id) => !got.has(id));
      });
    }
    return changed;
  }

  /**
   * Every domain, chunk by chunk (the other inputs are read once, up front, to find what moved; those
   * are written as `recomputeMany` writes them); returns how many changed.
   */
  async function recomputeAll(chunks: AsyncIterable<Domain[]> | Iterable<Domain[]>): Promise<number> {
    const [scores, certs, liveness] = await Promise.all([
      store.security.scores(),
      store.renewals.allCertificates(),
      livenessInputs(store),
    ]);
    const now = clock.now();
    let changed = 0;
    for await (const domains of chunks) {
      const moved = domains.filter((d) => !same(d, stored(d, certs, scores, liveness, now))).map((d) => d.id);
      for (let i = 0; i < moved.length; i += 500) changed += await settle(moved.slice(i, i + 500));
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
