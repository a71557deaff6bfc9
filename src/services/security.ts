// DNS-security checks of a domain (SPF, DMARC, DKIM, CAA, DNSSEC) through the configured resolvers,
// plus the transfer lock from registration data; stored with score, details and recommendations.
import { mapLimit } from '../domain/concurrency.js';
import { isoNow, type Clock } from '../domain/clock.js';
import { registrableDomain } from '../domain/domain-name.js';
import { dmarcTempError } from '../domain/dmarc.js';
import {
  COMMON_DKIM_SELECTORS,
  SECURITY_CHECKS,
  evaluateCaa,
  evaluateDkim,
  evaluateDnssec,
  isDkimKey,
  mergeLastKnown,
  recommendations,
  scoringValues,
  securityScore,
  unknownResult,
  type LastKnown,
  type SecurityCheck,
  type SecurityRecord,
} from '../domain/security.js';
import { isSpf, judgeSpf, type SpfWalk } from '../domain/spf.js';
import type { Domain } from '../domain/types.js';
import type { DnsResolver } from '../probes/dns.js';
import type { Store } from '../store/index.js';
import type { HealthHook } from './deps.js';
import { lookUpDmarc } from './dmarc.js';
import { singleFlight, teamDomain, type RefreshOptions } from './refresh.js';
import { walkSpf } from './spf.js';

interface SecurityDeps {
  store: Store;
  clock: Clock;
  dns: DnsResolver;
  checkInterval: number;
  /** Stores the domain's new health in the check's transaction. */
  recomputeHealth?: HealthHook;
}

const errText = (err: unknown) => (err as Error)?.message ?? String(err);

/** The walk of a name whose SPF look-up could not be made (nothing known). */
const NO_SPF: SpfWalk = {
  records: [],
  failed: null,
  errors: [],
  warnings: [],
  temperror: null,
  lookups: 0,
  void_lookups: 0,
  all: null,
};

/** Failures that say the resolver is not answering at all (not that one name is broken). */
const UNREACHABLE = new Set(['ETIMEOUT', 'ECONNREFUSED', 'ECANCELLED']);

function securityView(d: Domain, s: SecurityRecord | undefined, transferLock: boolean | null) {
  return {
    domain: d.domain,
    domain_id: d.id,
    transfer_lock: transferLock ?? false,
    transfer_lock_known: transferLock !== null,
    dnssec_enabled: s ? s.dnssec_enabled : false,
    security_score: s?.security_score ?? null,
    checks: s ? { spf: s.spf, dmarc: s.dmarc, dkim: s.dkim, caa: s.caa } : null,
    recommendations: s?.recommendations ?? [],
    details: s?.details ?? {},
    checked_at: s?.checked_at ?? null,
    next_check_at: s?.next_check_at ?? null,
  };
}

/** Registration facts the security checks use (transfer lock, registry DNSSEC flag), when known. */
type SecurityRegistration = {
  transfer_lock: boolean | null;
  dnssec_signed: boolean | null;
  statuses: string[];
  source: string | null;
};

/** SPF, DMARC, DKIM, CAA and DNSSEC of a name through the resolver; stores nothing (the service stores, `dommon check` prints). */
export function createSecurityEvaluator(dns: DnsResolver) {
  /**
   * Runs every check for a name without storing anything (also what a one-shot `dommon check` needs).
   * A failed look-up (SERVFAIL, REFUSED, timeout) makes its check `unknown`, never `fail`; `last`
   * holds the last known results, which stand in for unknown ones in the score.
   */
  async function evaluate(
    name: string,
    dkimSelectors: string[],
    reg: SecurityRegistration | undefined,
    last: LastKnown,
    at: string,
  ) {
    const transferLock = reg?.transfer_lock ?? null;
    const errors: Record<string, string> = {};
    const failed = (check: SecurityCheck, err: unknown) => {
      errors[check] = errText(err);
      return `lookup failed: ${errText(err)}`;
    };

    const spfP = (async () => {
      try {
        const records = (await dns.txt(name)).filter(isSpf);
        const spf = judgeSpf(await walkSpf(name, records, dns.lookup));
        // A look-up inside the tree failed: unknown (a receiver would answer temperror), never a broken record.
        return spf.status === 'unknown' ? { ...spf, reason: failed('spf', spf.reason) } : spf;
      } catch (err) {
        return unknownResult(judgeSpf({ ...NO_SPF, failed: errText(err) }), failed('spf', err));
      }
    })();
    const dmarcP = lookUpDmarc(dns, name).catch((err: unknown) => dmarcTempError(failed('dmarc', err)));
    const selectors = [...new Set([...dkimSelectors, ...COMMON_DKIM_SELECTORS])];
    let dkimError: unknown;
    let unreachable = false;
    const dkimP = mapLimit(selectors, 8, async (sel) => {
      // Once the resolver did not answer at all (timeout, refused connection), the remaining selectors
      // are not asked: each would wait out the same timeout, and none found stays unknown.
      if (unreachable) return null;
      try {
        return (await dns.txt(`${sel}._domainkey.${name}`)).some(isDkimKey) ? sel : null;
      } catch (err) {
        dkimError ??= err;
        if (UNREACHABLE.has((err as { code?: string }).code ?? '')) unreachable = true;
        return null;
      }
    }).then((found) => {
      const r = evaluateDkim(
        selectors,
        found.filter((x): x is string => x !== null),
      );
      // A key found is a pass; none found while some selector's look-up failed is not an absence.
      return r.status === 'fail' && dkimError !== undefined ? unknownResult(r, failed('dkim', dkimError)) : r;
    });
    const caaP = dns.caa(name).then(evaluateCaa, (err) => unknownResult(evaluateCaa([]), failed('caa', err)));
    const dnssecP = Promise.allSettled([dns.ds(name), dns.dnskey(name)]).then(([ds, keys]) => {
      if (ds.status === 'fulfilled' && keys.status === 'fulfilled')
        return evaluateDnssec(ds.value.length, keys.value.length, reg?.dnssec_signed ?? null);
      const err: unknown = ds.status === 'rejected' ? ds.reason : (keys as PromiseRejectedResult).reason;
      return {
        ...unknownResult(evaluateDnssec(0, 0, reg?.dnssec_signed ?? null), failed('dnssec', err)),
        enabled: null,
      };
    });

    const [spf, dmarc, dkim, caa, dnssec] = await Promise.all([spfP, dmarcP, dkimP, caaP, dnssecP]);
    const current = { spf: spf.status, dmarc: dmarc.status, dkim: dkim.status, caa: caa.status, dnssec: dnssec.status };
    const lastKnown = mergeLastKnown(last, current, at);
    const scoring = scoringValues(current, lastKnown);
    const unknown = SECURITY_CHECKS.filter((k) => current[k] === 'unknown');
    return {
      spf,
      dmarc,
      dkim,
      caa,
      dnssec,
      transfer_lock: transferLock,
      security_score: securityScore({
        ...scoring,
        dnssec: scoring.dnssec === 'unknown' ? null : scoring.dnssec === 'pass',
        transfer_lock: transferLock,
      }),
      recommendations: recommendations({ domain: name, spf, dmarc, dkim, caa, dnssec, transfer_lock: transferLock }),
      details: {
        spf,
        dmarc,
        dkim,
        caa,
        dnssec,
        transfer_lock: { locked: transferLock, statuses: reg?.statuses ?? [], source: reg?.source ?? null },
        // In the checks' fixed order, whatever order the look-ups failed in.
        ...(Object.keys(errors).length
          ? { lookup_errors: Object.fromEntries(SECURITY_CHECKS.filter((k) => errors[k]).map((k) => [k, errors[k]])) }
          : {}),
        // Unknown checks: what they last were; the score counts those results.
        ...(unknown.length
          ? { stale: Object.fromEntries(unknown.filter((k) => lastKnown[k]).map((k) => [k, lastKnown[k]])) }
          : {}),
        last_known: lastKnown,
        resolvers: dns.servers.length ? dns.servers : 'system',
      },
    };
  }

  return evaluate;
}

export type SecurityEvaluator = ReturnType<typeof createSecurityEvaluator>;

/** The last known results of a stored check (records from before last_known existed: their own values). */
function lastKnownOf(prev: SecurityRecord | undefined): LastKnown {
  if (!prev) return {};
  const saved = (prev.details as { last_known?: LastKnown }).last_known;
  if (saved) return saved;
  const out: LastKnown = {};
  const values = {
    spf: prev.spf,
    dmarc: prev.dmarc,
    dkim: prev.dkim,
    caa: prev.caa,
    dnssec: prev.dnssec_enabled === null ? 'unknown' : prev.dnssec_enabled ? 'pass' : 'fail',
  } as const;
  for (const k of SECURITY_CHECKS) {
    const v = values[k];
    if (v === 'pass' || v === 'fail') out[k] = { status: v, checked_at: prev.checked_at };
  }
  return out;
}

export function createSecurityService(deps: SecurityDeps) {
  const { store, clock, dns } = deps;
  const evaluate = createSecurityEvaluator(dns);

  async function run(d: Domain, opts: RefreshOptions): Promise<SecurityRecord> {
    const name = registrableDomain(d.domain) ?? d.domain;
    const [reg, prev] = await Promise.all([store.registrations.get(d.id), store.security.get(d.id)]);
    const now = clock.now();
    const r = await evaluate(name, d.dkim_selectors, reg, lastKnownOf(prev), now.toISOString());
    const record: SecurityRecord = {
      domain_id: d.id,
      spf: r.spf.status,
      dmarc: r.dmarc.status,
      dkim: r.dkim.status,
      caa: r.caa.status,
      // DNSSEC unknown now: the last known state stands (the details say it is stale).
      dnssec_enabled:
        r.dnssec.enabled ?? (r.details.last_known.dnssec ? r.details.last_known.dnssec.status === 'pass' : null),
      security_score: r.security_score,
      details: r.details,
      recommendations: r.recommendations,
      checked_at: now.toISOString(),
      next_check_at: new Date(now.getTime() + deps.checkInterval * 1000).toISOString(),
    };
    await store.transaction(async (tx) => {
      if (!(await tx.domains.get(d.team_id, d.id))) return;
      await tx.security.save(record);
      await tx.schedule.done('security', d.id, {
        at: record.checked_at,
        next: record.next_check_at!,
        outcome: `score ${record.security_score}`,
      });
      if (!opts.deferHealth) await deps.recomputeHealth?.(tx, d.id);
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
