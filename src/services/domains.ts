import { managedGuard } from './managed.js';
import { randomBytesPooled } from '../platform/random.js';
import { Conflict, Duplicate, Invalid, NotFound, PlanLimit, ServiceError } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import { normalizeDomainName } from '../domain/domain-name.js';
import { computeHealth } from '../domain/health.js';
import {
  DOMAIN_LEASE_KINDS,
  DOMAIN_REFRESH_KINDS,
  type Domain,
  type DomainFilter,
  type Page,
  type PageOf,
} from '../domain/types.js';
import type { Repos } from '../store/index.js';
import type { ServiceDeps } from './deps.js';
import { bulkCreateMany } from './bulk.js';

export interface DomainInput {
  domain: string;
  portfolio_id?: string | null;
  notes?: string | null;
  expiry_date?: string | null;
  dkim_selectors?: string[];
}

/** One item of createMany: the domain made, or the service error that refused it. */
type DomainOutcome = { ok: true; value: Domain } | { ok: false; error: ServiceError };

const VERIFY_PREFIX = 'dommon-verify-';
const newVerificationToken = (): string => `${VERIFY_PREFIX}${randomBytesPooled(16).toString('hex')}`;

function normalize(name: string): string {
  const r = normalizeDomainName(name);
  if (!r.ok) throw new Invalid(`domain: ${r.reason}`, 'INVALID_DOMAIN');
  return r.name;
}

async function checkPortfolio(tx: Repos, teamId: string, portfolioId: string | null | undefined): Promise<void> {
  if (portfolioId && !(await tx.portfolios.get(teamId, portfolioId))) throw new NotFound('Portfolio');
}

export function createDomainService({
  store,
  clock,
  limits,
  recomputeHealth,
  changes,
  audit,
  asConfigFile,
}: ServiceDeps) {
  const guard = managedGuard(asConfigFile);
  const totals = new Map<string, { stamp: string; total: number }>();
  async function get(teamId: string, id: string): Promise<Domain> {
    const d = await store.domains.get(teamId, id);
    if (!d) throw new NotFound('Domain');
    return d;
  }

  /**
   * Creates the domains in one transaction and gives each item's outcome in order: the domain, or the
   * service error that refuses it (the checks and messages of a single create, an earlier item of the
   * list counting as stored). Names and portfolios are looked up once for the list, and the audit
   * rows written together: a configuration file's thousand domains cost a few statements each.
   */
  async function createMany(teamId: string, inputs: readonly DomainInput[]): Promise<DomainOutcome[]> {
    const out: DomainOutcome[] = new Array<DomainOutcome>(inputs.length);
    const refuse = (i: number, err: unknown) => {
      // A unique index another writer got to first (Duplicate) has aborted the transaction on
      // PostgreSQL: the whole list fails, and the caller decides (a single create answers 409).
      if (!(err instanceof ServiceError) || err instanceof Duplicate) throw err;
      out[i] = { ok: false, error: err };
    };
    const named: { i: number; name: string; input: DomainInput }[] = [];
    for (const [i, input] of inputs.entries()) {
      try {
        named.push({ i, name: normalize(input.domain), input });
      } catch (err) {
        refuse(i, err);
      }
    }
    const made: { i: number; domain: Domain }[] = [];
    await store.transaction(async (tx) => {
      let count = limits.maxDomains !== null && named.length ? await tx.domains.count(teamId) : 0;
      const taken = await tx.domains.namesIn(
        teamId,
        named.map((n) => n.name),
      );
      const portfolios = new Map<string, boolean>();
      const now = isoNow(clock);
      for (const { i, name, input } of named) {
        try {
          if (limits.maxDomains !== null && count >= limits.maxDomains)
            throw new PlanLimit(`domain limit reached (${limits.maxDomains} per team)`, 'DOMAIN_LIMIT');
          const pid = input.portfolio_id;
          if (pid) {
            if (!portfolios.has(pid)) portfolios.set(pid, !!(await tx.portfolios.get(teamId, pid)));
            if (!portfolios.get(pid)) throw new NotFound('Portfolio');
          }
          if (taken.has(name)) throw new Conflict(`domain ${name} already exists in this team`, 'DOMAIN_EXISTS');
          const expiry = input.expiry_date ?? null;
          // A new domain's only possible health input is a manual expiry_date (no registration, certificate,
          // security or liveness data exists for a new id yet): its health is known without reading anything.
          const h = computeHealth(
            { expiry_date: expiry, certificates: [], security_score: null, liveness: [] },
            clock.now(),
          );
          const d = await tx.domains.insert({
            team_id: teamId,
            domain: name,
            portfolio_id: pid ?? null,
            notes: input.notes ?? null,
            is_verified: false,
            verified_at: null,
            verification_token: newVerificationToken(),
            health_score: h.score,
            health_grade: h.grade,
            overall_status: h.overall_status,
            exposure_monitoring_enabled: false,
            expiry_override: expiry,
            dkim_selectors: input.dkim_selectors ?? [],
            created_at: now,
            updated_at: now,
          });
          // Registration and DNS-security refreshes and the nameserver watch are due at once.
          await tx.schedule.addTarget(DOMAIN_REFRESH_KINDS, d.id, now);
          taken.add(name);
          count++;
          made.push({ i, domain: d });
        } catch (err) {
          refuse(i, err);
        }
      }
      await audit?.record(
        tx,
        teamId,
        ...made.map(({ domain: d }) => ({ action: 'create', kind: 'domain', id: d.id, name: d.domain, after: d })),
      );
    });
    for (const m of made) out[m.i] = { ok: true, value: m.domain };
    return out;
  }

  async function create(teamId: string, input: DomainInput): Promise<Domain> {
    let r: DomainOutcome;
    try {
      [r] = (await createMany(teamId, [input])) as [DomainOutcome];
    } catch (err) {
      // A name taken meanwhile (another writer on PostgreSQL) fails the (team_id, domain) unique index.
      if (err instanceof Duplicate)
        throw new Conflict(`domain ${normalize(input.domain)} already exists in this team`, 'DOMAIN_EXISTS');
      throw err;
    }
    if (!r.ok) throw r.error;
    return r.value;
  }

  return {
    get,
    create,
    createMany,
    /**
     * One page; the total for a (team, filter) is remembered until the domains table changes, so
     * paging through a large list costs one indexed page read, not a count over every row each time.
     */
    async list(teamId: string, f: DomainFilter, page: Page): Promise<PageOf<Domain>> {
      const key = `${teamId} ${f.domain ?? ''} ${f.portfolio_id ?? ''} ${f.ids?.join(',') ?? '*'}`;
      const stamp = store.readStamp('domainTotals');
      const hit = totals.get(key);
      const r = await store.domains.list(teamId, f, page, hit?.stamp === stamp ? hit.total : undefined);
      if (totals.size >= 1000) totals.clear();
      totals.set(key, { stamp, total: r.total });
      return r;
    },
    bulkCreate: bulkCreateMany(createMany, create),

    async update(teamId: string, id: string, input: Partial<DomainInput>): Promise<Domain> {
      const name = input.domain !== undefined ? normalize(input.domain) : undefined;
      let renamed = false;
      try {
        await store.transaction(async (tx) => {
          const cur = await tx.domains.get(teamId, id);
          if (!cur) throw new NotFound('Domain');
          await guard(tx, 'domain', id);
          if (name && name !== cur.domain && (await tx.domains.byName(teamId, name))) {
            throw new Conflict(`domain ${name} already exists in this team`, 'DOMAIN_EXISTS');
          }
          await checkPortfolio(tx, teamId, input.portfolio_id);
          renamed = name !== undefined && name !== cur.domain;
          await tx.domains.update(teamId, id, {
            domain: name,
            portfolio_id: input.portfolio_id,
            notes: input.notes,
            expiry_override: input.expiry_date,
            dkim_selectors: input.dkim_selectors,
            // A renamed domain must prove ownership again.
            ...(renamed ? { is_verified: false, verified_at: null, exposure_monitoring_enabled: false } : {}),
            updated_at: isoNow(clock),
          });
          if (renamed) {
            // Registration, DNS and delegation data belong to the old name: drop them and look the new one up now.
            await tx.registrations.remove(id);
            await tx.security.remove(id);
            await tx.delegations.remove(id);
            for (const kind of DOMAIN_REFRESH_KINDS) await tx.schedule.dueAt(kind, id, isoNow(clock));
          }
          // expiry_date (the manual override) or a rename that dropped the registration and DNS data.
          await recomputeHealth?.(tx, id);
          const after = (await tx.domains.get(teamId, id))!;
          await audit?.record(tx, teamId, {
            action: 'update',
            kind: 'domain',
            id,
            name: after.domain,
            before: cur,
            after,
          });
        });
      } catch (err) {
        if (err instanceof Duplicate) throw new Conflict(`domain ${name} already exists in this team`, 'DOMAIN_EXISTS');
        throw err;
      }
      // A new name moves every endpoint's host: the scheduler re-reads this domain's configs.
      if (renamed) changes?.emit({ domain: id });
      return get(teamId, id);
    },

    /** Deletes the domain; endpoints, liveness configs, results and findings cascade in one transaction. */
    async remove(teamId: string, id: string): Promise<Domain> {
      const removed = await store.transaction(async (tx) => {
        const d = await tx.domains.get(teamId, id);
        if (!d) throw new NotFound('Domain');
        await guard(tx, 'domain', id);
        await tx.domains.remove(teamId, id);
        await tx.schedule.removeTarget([...DOMAIN_REFRESH_KINDS, ...DOMAIN_LEASE_KINDS], id);
        await audit?.record(tx, teamId, { action: 'delete', kind: 'domain', id, name: d.domain, before: d });
        return d;
      });
      changes?.emit({ domain: id });
      return removed;
    },
  };
}

export type DomainService = ReturnType<typeof createDomainService>;
