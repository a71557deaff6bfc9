// DNS-security checks of a domain (SPF, DMARC, DKIM, CAA, DNSSEC) through the configured resolvers,
// plus the transfer lock from registration data; stored with score, details and recommendations.
import { mapLimit } from '../domain/concurrency.js';
import { isoNow, type Clock } from '../domain/clock.js';
import { registrableDomain } from '../domain/domain-name.js';
import {
  COMMON_DKIM_SELECTORS, SPF_MAX_LOOKUPS, evaluateCaa, evaluateDkim, evaluateDmarc, evaluateDnssec, evaluateSpf,
  isDkimKey, isSpf, parseSpf, recommendations, securityScore, spfLookupTerms,
} from '../domain/security.js';
import type { Domain } from '../domain/types.js';
import type { DnsResolver } from '../probes/dns.js';
import type { Store } from '../store/index.js';
import type { SecurityRecord } from '../store/repos/security.js';
import type { HealthHook } from './deps.js';
import { singleFlight, teamDomain } from './refresh.js';

export interface SecurityDeps {
  store: Store;
  clock: Clock;
  dns: DnsResolver;
  checkInterval: number;
  /** Stores the domain's new health in the check's transaction. */
  recomputeHealth?: HealthHook;
}

const errText = (err: unknown) => (err as Error)?.message ?? String(err);

export function securityView(d: Domain, s: SecurityRecord | undefined, transferLock: boolean | null) {
  return {
    domain: d.domain,
    domain_id: d.id,
    transfer_lock: transferLock ?? false,
    transfer_lock_known: transferLock !== null,
    dnssec_enabled: s?.dnssec_enabled ?? false,
    security_score: s?.security_score ?? null,
    checks: s ? { spf: s.spf, dmarc: s.dmarc, dkim: s.dkim, caa: s.caa } : null,
    recommendations: s?.recommendations ?? [],
    details: s?.details ?? {},
    checked_at: s?.checked_at ?? null,
    next_check_at: s?.next_check_at ?? null,
  };
}

/** Registration facts the security checks use (transfer lock, registry DNSSEC flag), when known. */
export type SecurityRegistration = { transfer_lock: boolean | null; dnssec_signed: boolean | null; statuses: string[]; source: string | null };

/** SPF, DMARC, DKIM, CAA and DNSSEC of a name through the resolver; stores nothing (the service stores, `dommon check` prints). */
export function createSecurityEvaluator(dns: DnsResolver) {
  /** Total DNS-querying terms of an SPF record, following include/redirect (stops once past the limit). */
  async function spfLookups(record: string, seen: Set<string>, depth: number): Promise<number> {
    let n = 0;
    for (const t of spfLookupTerms(parseSpf(record))) {
      n++;
      if (n > SPF_MAX_LOOKUPS || depth > SPF_MAX_LOOKUPS) return n;
      if ((t.name === 'include' || t.name === 'redirect') && t.value && !seen.has(t.value.toLowerCase())) {
        seen.add(t.value.toLowerCase());
        const inner = (await dns.txt(t.value).catch(() => [] as string[])).filter(isSpf)[0];
        if (inner) n += await spfLookups(inner, seen, depth + 1);
      }
    }
    return n;
  }

  /** Runs every check for a name without storing anything (also what a one-shot `dommon check` needs). */
  async function evaluate(name: string, dkimSelectors: string[], reg: SecurityRegistration | undefined) {
    const transferLock = reg?.transfer_lock ?? null;
    const errors: Record<string, string> = {};

    const spfP = (async () => {
      try {
        const records = (await dns.txt(name)).filter(isSpf);
        const lookups = records.length === 1 ? await spfLookups(records[0]!, new Set([name]), 0) : 0;
        return evaluateSpf(records, lookups);
      } catch (err) {
        errors.spf = errText(err);
        return { ...evaluateSpf([], 0), problems: [`lookup failed: ${errText(err)}`] };
      }
    })();
    const dmarcP = dns.txt(`_dmarc.${name}`).then(evaluateDmarc, (err) => {
      errors.dmarc = errText(err);
      return evaluateDmarc([]);
    });
    const selectors = [...new Set([...dkimSelectors, ...COMMON_DKIM_SELECTORS])];
    const dkimP = mapLimit(selectors, 8, async (sel) => {
      try {
        return (await dns.txt(`${sel}._domainkey.${name}`)).some(isDkimKey) ? sel : null;
      } catch {
        return null;
      }
    }).then((found) => evaluateDkim(selectors, found.filter((x): x is string => x !== null)));
    const caaP = dns.caa(name).then(evaluateCaa, (err) => {
      errors.caa = errText(err);
      return evaluateCaa([]);
    });
    const dnssecP = Promise.all([
      dns.ds(name).catch((err) => { errors.dnssec = errText(err); return []; }),
      dns.dnskey(name).catch((err) => { errors.dnssec = errText(err); return []; }),
    ]).then(([ds, keys]) => evaluateDnssec(ds.length, keys.length, reg?.dnssec_signed ?? null));

    const [spf, dmarc, dkim, caa, dnssec] = await Promise.all([spfP, dmarcP, dkimP, caaP, dnssecP]);
    return {
      spf, dmarc, dkim, caa, dnssec, transfer_lock: transferLock,
      security_score: securityScore({ spf: spf.status, dmarc: dmarc.status, dkim: dkim.status, caa: caa.status, dnssec: dnssec.enabled, transfer_lock: transferLock }),
      recommendations: recommendations({ domain: name, spf, dmarc, dkim, caa, dnssec, transfer_lock: transferLock }),
      details: {
        spf, dmarc, dkim, caa, dnssec,
        transfer_lock: { locked: transferLock, statuses: reg?.statuses ?? [], source: reg?.source ?? null },
        ...(Object.keys(errors).length ? { lookup_errors: errors } : {}),
        resolvers: dns.servers.length ? dns.servers : 'system',
      },
    };
  }

  return evaluate;
}

export type SecurityEvaluator = ReturnType<typeof createSecurityEvaluator>;

export function createSecurityService(deps: SecurityDeps) {
  const { store, clock, dns } = deps;
  const inflight = new Map<string, Promise<SecurityRecord>>();
  const evaluate = createSecurityEvaluator(dns);

  async function run(d: Domain): Promise<SecurityRecord> {
    const name = registrableDomain(d.domain) ?? d.domain;
    const reg = await store.registrations.get(d.id);
    const r = await evaluate(name, d.dkim_selectors, reg);
    const now = clock.now();
    const record: SecurityRecord = {
      domain_id: d.id,
      spf: r.spf.status,
      dmarc: r.dmarc.status,
      dkim: r.dkim.status,
      caa: r.caa.status,
      dnssec_enabled: r.dnssec.enabled,
      security_score: r.security_score,
      details: r.details,
      recommendations: r.recommendations,
      checked_at: now.toISOString(),
      next_check_at: new Date(now.getTime() + deps.checkInterval * 1000).toISOString(),
    };
    await store.transaction(async (tx) => {
      if (!(await tx.domains.get(d.team_id, d.id))) return;
      await tx.security.save(record);
      await tx.schedule.dueAt('security', d.id, record.next_check_at!);
      await deps.recomputeHealth?.(tx, d.id);
    });
    return record;
  }

  const refresh = singleFlight(run);
  const domain = (teamId: string, id: string) => teamDomain(store, teamId, id);

  return {
    refresh,
    evaluate,
    /** The stored result; checks the domain now when it has never been checked. */
    async get(teamId: string, id: string) {
      const d = await domain(teamId, id);
      const s = (await store.security.get(d.id)) ?? (await refresh(d));
      const reg = await store.registrations.get(d.id);
      return securityView(d, s, reg?.transfer_lock ?? null);
    },
    async checkNow(teamId: string, id: string) {
      const d = await domain(teamId, id);
      const s = await refresh(d, { fresh: true });
      const reg = await store.registrations.get(d.id);
      return securityView(d, s, reg?.transfer_lock ?? null);
    },
    now: () => isoNow(clock),
  };
}

export type SecurityService = ReturnType<typeof createSecurityService>;
