// Registration data use cases: look a domain up (RDAP first, WHOIS fallback, per-server limits,
// 20 s budget), store the result with its history, and write change and expiry-window events in the
// same transaction.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { daysUntil, isoNow, type Clock } from '../domain/clock.js';
import { NotFound } from '../domain/errors.js';
import { registrableDomain } from '../domain/domain-name.js';
import {
  EMPTY_REGISTRATION,
  REGISTRATION_SOURCES,
  hasRegistrationData,
  isStale,
  WINDOW_SEVERITY,
  changeMessage,
  expiryWindow,
  registrationCadence,
  registrationChanges,
  type LookupOutcome,
  type Registration,
  type RegistrationState,
} from '../domain/registration.js';
import type { Domain } from '../domain/types.js';
import type { Repos, Store } from '../store/index.js';
import type { RegistrationProbes } from '../probes/registration.js';
import type { ServerLimiter } from '../probes/limiter.js';
import type { HealthHook } from './deps.js';
import { singleFlight, teamDomain, type RefreshOptions } from './refresh.js';

const LOOKUP_BUDGET_MS = 20_000;

interface RegistrationDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  probes: RegistrationProbes;
  limiter: ServerLimiter;
  /** DOMMON_CHECK_INTERVAL, seconds. */
  checkInterval: number;
  budgetMs?: number;
  /** Stores the domain's new health in the refresh's transaction. */
  recomputeHealth?: HealthHook;
}

type LookupResult = LookupOutcome & { attempts: string[] };

function registrationView(r: Registration | undefined) {
  return {
    state: r?.state ?? 'unknown',
    reason: r?.reason ?? null,
    source: r?.source ?? null,
    registrar: r?.registrar ?? null,
    expiry_date: r?.expiry_date ?? null,
    creation_date: r?.creation_date ?? null,
    updated_date: r?.updated_date ?? null,
    nameservers: r?.nameservers ?? [],
    statuses: r?.statuses ?? [],
    transfer_lock: r?.transfer_lock ?? null,
    dnssec_signed: r?.dnssec_signed ?? null,
    /** When the fields above were read from the registry (for a stale record: the last look-up that answered). */
    checked_at: r?.checked_at ?? null,
    next_check_at: r?.next_check_at ?? null,
    /** The last look-up failed; the fields are the last known ones (reason says why). */
    stale: r ? isStale(r) : false,
  };
}

/** Writes the domain_expiry alert of the window the effective expiry date is in, once per window and date. */
async function writeExpiryAlert(tx: Repos, d: Domain, reg: Registration | undefined, now: Date): Promise<boolean> {
  const expiry = d.expiry_override ?? reg?.expiry_date ?? null;
  if (!expiry) return false;
  const window = expiryWindow(expiry, now);
  if (window === null) return false;
  const days = daysUntil(expiry, now);
  const message =
    window === 0
      ? `${d.domain} registration EXPIRED on ${expiry}; renew it now or lose the domain`
      : `${d.domain} registration expires on ${expiry} (in ${days} day${days === 1 ? '' : 's'}, within the ${window}-day window)`;
  const id = await tx.events.add(
    {
      team_id: d.team_id,
      event_type: 'domain_expiry',
      severity: WINDOW_SEVERITY[window],
      category: window === 0 ? 'domain_expired' : 'domain_expiring',
      domain_id: d.id,
      message,
      details: {
        expiry_date: expiry,
        days_until_expiry: days,
        window_days: window,
        source: d.expiry_override ? 'manual' : (reg?.source ?? null),
        registrar: reg?.registrar ?? null,
      },
      dedupe_key: `domain_expiry:${d.id}:${expiry}:${window}`,
    },
    now.toISOString(),
  );
  return id !== null;
}

/** What a registration look-up needs: no database (the service stores its results; `dommon check` does not). */
type RegistrationLookupDeps = Pick<RegistrationDeps, 'clock' | 'probes' | 'limiter' | 'budgetMs'>;

/** RDAP, then WHOIS, within the budget and the per-server limits; `abort()` abandons running look-ups. */
export function createRegistrationLookup(deps: RegistrationLookupDeps) {
  const { clock, probes, limiter } = deps;
  const budget = deps.budgetMs ?? LOOKUP_BUDGET_MS;
  const shutdown = new AbortController();
  // Every look-up in flight (the daemon's workers, a `dommon check` of many names) listens on it.
  setMaxListeners(1000, shutdown.signal);

  /** RDAP, then WHOIS; the first answer wins, failures are collected into the reason. */
  async function lookup(name: string): Promise<LookupResult> {
    const deadline = performance.now() + budget;
    const signal = AbortSignal.any([AbortSignal.timeout(budget), shutdown.signal]);
    const attempts: string[] = [];
    const failures: LookupOutcome[] = [];
    let anyServer = false;
    for (const kind of REGISTRATION_SOURCES) {
      const probe = probes[kind];
      const choice = await probe.serverFor(name, signal, Math.max(500, deadline - performance.now()));
      if ('none' in choice) {
        attempts.push(choice.none);
        continue;
      }
      anyServer = true;
      if ('error' in choice) {
        // Nobody to ask because finding the server failed (IANA unreachable): an error, not unsupported.
        attempts.push(choice.error);
        failures.push({ kind: 'error', source: kind, server: '', reason: choice.error });
        continue;
      }
      const server = choice.server;
      const key = `${kind}:${server}`;
      const blocked = limiter.blockedUntil(key);
      if (blocked) {
        const f: LookupOutcome = {
          kind: 'rate_limited',
          source: kind,
          server,
          reason: `${kind.toUpperCase()} ${server}: backing off until ${new Date(blocked).toISOString()}`,
          retryAfterMs: blocked - clock.now().getTime(),
        };
        attempts.push(f.reason);
        failures.push(f);
        continue;
      }
      const left = deadline - performance.now();
      if (left < 500 || !(await limiter.acquire(key, left - 500, signal))) {
        attempts.push(`${kind.toUpperCase()} ${server}: no time left in the ${budget / 1000} s budget`);
        continue;
      }
      const out = await probe.lookup(name, server, signal, Math.max(500, deadline - performance.now()));
      if (out.kind === 'ok' || out.kind === 'not_found') {
        limiter.success(key);
        return { ...out, attempts };
      }
      if (out.kind === 'rate_limited') {
        const ms = limiter.penalize(key, out.retryAfterMs);
        failures.push({ ...out, retryAfterMs: ms });
      } else failures.push(out);
      attempts.push(out.kind === 'unsupported' ? out.reason : out.reason);
    }
    if (!anyServer)
      return {
        kind: 'unsupported',
        reason: `${attempts.join('; ')}; set expiry_date on the domain to track its expiry manually`,
        attempts,
      };
    const limited = failures.find((f) => f.kind === 'rate_limited');
    const base = limited ?? failures[failures.length - 1];
    const reason = attempts.join('; ') || 'lookup failed';
    if (base && base.kind === 'rate_limited') return { ...base, reason, attempts };
    if (base && base.kind === 'error') return { ...base, reason, attempts };
    return { kind: 'error', source: 'rdap', server: '', reason, attempts };
  }

  return { lookup, abort: () => shutdown.abort(), aborted: () => shutdown.signal.aborted };
}

export type RegistrationLookup = ReturnType<typeof createRegistrationLookup>;

export function createRegistrationService(deps: RegistrationDeps) {
  const { store, clock, log } = deps;
  const { lookup, abort, aborted } = createRegistrationLookup(deps);

  async function doRefresh(d: Domain, opts: RefreshOptions): Promise<Registration> {
    const name = registrableDomain(d.domain) ?? d.domain;
    const outcome = await lookup(name).catch((err: Error): LookupResult => ({
      kind: 'error',
      source: 'rdap',
      server: '',
      reason: `lookup failed: ${err.message}`,
      attempts: [],
    }));
    // Cut short by a shutdown: the answer says nothing about the domain, so nothing is stored.
    if (aborted()) throw new Error('lookup cancelled: shutting down');
    const now = clock.now();
    const at = now.toISOString();
    return store.transaction(async (tx) => {
      const cur = await tx.domains.get(d.team_id, d.id);
      if (!cur) throw new NotFound('Domain');
      const prev = await tx.registrations.get(d.id);
      let next: Registration;
      if (outcome.kind === 'ok') {
        const data = outcome.data;
        next = {
          ...data,
          domain_id: d.id,
          source: outcome.source,
          state: 'ok',
          reason: outcome.reason ?? null,
          checked_at: at,
          next_check_at: null,
        };
        const changes = prev ? registrationChanges(prev, data) : [];
        await tx.registrations.addHistory(d.id, changes, at);
        for (const c of changes) {
          const { message, severity } = changeMessage(cur.domain, c);
          await tx.events.add(
            {
              team_id: d.team_id,
              event_type: 'whois',
              severity,
              category: 'registration_change',
              domain_id: d.id,
              message,
              details: { field: c.field, old_value: c.old_value, new_value: c.new_value, source: outcome.source },
            },
            at,
          );
        }
      } else {
        const state: RegistrationState = outcome.kind === 'unsupported' ? 'unsupported' : 'error';
        // Keep the last good data and when it was read: an expiry date seen once is still the best we
        // know (the view marks it stale). Without earlier data, checked_at is this attempt.
        const kept = prev && hasRegistrationData(prev) ? prev.checked_at : null;
        next = {
          ...EMPTY_REGISTRATION,
          ...(prev ?? {}),
          domain_id: d.id,
          source: prev?.source ?? null,
          state,
          reason: outcome.reason,
          checked_at: kept ?? at,
          next_check_at: null,
        };
        if (prev?.state !== state || prev?.reason !== next.reason) {
          // Logged once per change of state or reason, not on every retry.
          log.warn({ domain: cur.domain, state, reason: next.reason }, 'registration lookup failed');
        }
        if (prev?.state === 'ok' || (prev === undefined && state === 'unsupported')) {
          await tx.events.add(
            {
              team_id: d.team_id,
              event_type: 'whois',
              severity: state === 'unsupported' ? 'info' : 'low',
              category: state === 'unsupported' ? 'registration_unsupported' : 'registration_lookup_failed',
              domain_id: d.id,
              message: `${cur.domain}: registration data unavailable (${state}): ${next.reason}`,
              details: { state, reason: next.reason },
            },
            at,
          );
        }
      }
      const retry = outcome.kind === 'rate_limited' ? outcome.retryAfterMs : null;
      const delay = registrationCadence(
        deps.checkInterval,
        next.state,
        cur.expiry_override ?? next.expiry_date,
        now,
        retry,
      );
      next.next_check_at = new Date(now.getTime() + delay * 1000).toISOString();
      await tx.registrations.save(next);
      await tx.schedule.done('registration', d.id, {
        at: now.toISOString(),
        next: next.next_check_at,
        outcome: next.state,
      });
      await writeExpiryAlert(tx, cur, next, now);
      if (!opts.deferHealth) await deps.recomputeHealth?.(tx, d.id);
      return next;
    });
  }

  /** One refresh per domain at a time: a second caller joins the running one. */
  const refresh = singleFlight(doRefresh);
  const domain = (teamId: string, id: string) => teamDomain(store, teamId, id);

  async function view(d: Domain) {
    const reg = await store.registrations.get(d.id);
    return {
      id: d.id,
      domain: d.domain,
      ...registrationView(reg),
      expiry_override: d.expiry_override,
      effective_expiry_date: d.expiry_override ?? reg?.expiry_date ?? null,
      /** Where effective_expiry_date comes from: `manual` (the domain's expiry_date) or the registry source. */
      expiry_source: d.expiry_override ? 'manual' : reg?.expiry_date ? reg.source : null,
      history: await store.registrations.history(d.id),
    };
  }

  return {
    lookup,
    refresh,
    /** Shutdown: abandons running look-ups (they end as errors and are retried after restart). */
    abort,
    async get(teamId: string, id: string) {
      return view(await domain(teamId, id));
    },
    async checkNow(teamId: string, id: string) {
      await refresh(await domain(teamId, id), { fresh: true });
      return view(await domain(teamId, id));
    },
    /** Writes any due expiry-window alert of a domain (the sweep calls this as days pass). */
    async expiryAlert(d: Domain): Promise<boolean> {
      return store.transaction(async (tx) => writeExpiryAlert(tx, d, await tx.registrations.get(d.id), clock.now()));
    },
    now: () => isoNow(clock),
  };
}
