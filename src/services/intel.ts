// Domain intelligence wiring: registration data, DNS security, health, renewals and ownership
// verification, built from the I/O that app.ts hands over (resolver, registration probes, limiter).
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { expiryWindow } from '../domain/registration.js';
import type { Domain, DomainRefreshKind } from '../domain/types.js';
import { DnsError, type DnsResolver } from '../probes/dns.js';
import type { RegistrationProbes } from '../probes/registration.js';
import type { ServerLimiter } from '../probes/limiter.js';
import type { BootstrapStore } from '../probes/rdap.js';
import type { Store } from '../store/index.js';
import type { AuditService } from './audit.js';
import { createRegistrationService } from './registration.js';
import { createSecurityService } from './security.js';
import type { HealthService } from './health.js';
import { createRenewalService } from './renewals.js';
import { createVerificationService } from './verification.js';
import { createNameCheck } from './check.js';
import type { MaintenanceWindowService } from './maintenance-windows.js';
import { createNameserverWatch } from './nameservers.js';
import type { ProbeDeps } from '../probes/types.js';
import type { RefreshOptions } from './refresh.js';

/** The outside world the intelligence services talk to; app.ts builds the real one. */
export interface IntelIo {
  dns: DnsResolver;
  probes: RegistrationProbes;
  limiter: ServerLimiter;
  bootstrap: BootstrapStore | null;
  /** DOMMON_CHECK_INTERVAL, seconds. */
  checkInterval: number;
  /** DOMMON_NS_WATCH_INTERVAL, seconds (default 300). */
  nsWatchInterval?: number;
  log: Logger;
}

/** For processes built without I/O (unit use of createServices): every look-up reports it is not configured. */
export function unconfiguredIo(log: Logger): IntelIo {
  const fail = async (): Promise<never> => {
    throw new DnsError('DNS look-ups are not configured in this process', 'ENOTCONFIGURED');
  };
  const none = {
    serverFor: () => ({ none: 'registration look-ups are not configured in this process' }),
    lookup: fail,
  };
  return {
    dns: {
      txt: fail,
      caa: fail,
      mx: fail,
      ns: fail,
      cname: fail,
      ds: fail,
      dnskey: fail,
      servers: [],
      lookup: { a: fail, aaaa: fail, cname: fail, ns: fail, txt: fail, caa: fail, mx: fail },
      axfr: async () => ({ ok: false, error: 'DNS look-ups are not configured in this process' }),
    },
    probes: { rdap: none, whois: none },
    limiter: { blockedUntil: () => null, acquire: async () => true, penalize: () => 0, success: () => undefined },
    bootstrap: null,
    checkInterval: 21600,
    log,
  };
}

/**
 * health: the domain health service; registration, security and verification recompute through it as
 * they store. probes: what the nameserver watch asks the parent zones' servers through.
 */
export function createIntelServices(deps: {
  store: Store;
  clock: Clock;
  health: HealthService;
  io: IntelIo;
  probes: ProbeDeps;
  audit?: AuditService;
  /** Maintenance windows: a delegation change in one is recorded, not notified. */
  maintenance?: Pick<MaintenanceWindowService, 'coveringDomain'>;
}) {
  const { store, clock, health, io } = deps;
  const nsWatchInterval = io.nsWatchInterval ?? 300;
  const recomputeHealth = health.recomputeNotLiveness;
  const registration = createRegistrationService({
    store,
    clock,
    log: io.log,
    probes: io.probes,
    limiter: io.limiter,
    checkInterval: io.checkInterval,
    recomputeHealth,
  });
  const security = createSecurityService({
    store,
    clock,
    dns: io.dns,
    checkInterval: io.checkInterval,
    recomputeHealth,
  });
  const renewals = createRenewalService({ store, clock });
  const shutdown = new AbortController();
  const verification = createVerificationService({
    store,
    clock,
    txt: (name) => io.dns.txt(name),
    recomputeHealth,
    audit: deps.audit,
    signal: shutdown.signal,
  });
  const nameservers = createNameserverWatch({
    store,
    clock,
    probes: deps.probes,
    interval: nsWatchInterval,
    log: io.log,
    signal: shutdown.signal,
    maintenance: deps.maintenance,
  });

  const refreshed = (d: Domain, what: string) =>
    deps.audit?.note(d.team_id, {
      action: 'refresh',
      kind: 'domain',
      id: d.id,
      name: d.domain,
      after: { refreshed: what },
    });

  return {
    registration,
    security,
    health,
    renewals,
    verification,
    /** The nameserver watch: each domain's delegation at its parent zone's servers. */
    nameservers,
    bootstrap: io.bootstrap,
    /** Shutdown: abandons running look-ups. */
    abort() {
      shutdown.abort();
      registration.abort();
      io.dns.cancel?.();
      io.bootstrap?.stop();
    },
    /** Registration refresh (it stores the health it feeds in the same transaction, unless `deferHealth`). */
    refreshRegistration: async (d: Domain, opts: RefreshOptions = {}) => {
      const r = await registration.refresh(d, opts);
      // `fresh`: a person asked for it now (the scheduler's refreshes are not theirs).
      if (opts.fresh) await refreshed(d, 'registration');
      return r;
    },
    /** DNS-security refresh (likewise). */
    refreshSecurity: async (d: Domain, opts: RefreshOptions = {}) => {
      const r = await security.refresh(d, opts);
      if (opts.fresh) await refreshed(d, 'security');
      return r;
    },
    /** One look at the domain's delegation (the nameserver watch's round for it). */
    refreshNameservers: (d: Domain) => nameservers.refresh(d),
    /** The refresh schedule (the check_schedule table), as the intel scheduler works it. */
    schedule: {
      /** Rows for domains without one (the domain service writes them with the domain: this repairs). */
      async sync(kinds: readonly DomainRefreshKind[], now: string): Promise<void> {
        for (const kind of kinds) await store.schedule.syncDomains(kind, now);
      },
      /** The kinds with a row due (one read for all). */
      dueKinds: (kinds: readonly DomainRefreshKind[], now: string) => store.schedule.dueKinds(kinds, now),
      /** Takes up to `limit` due rows of a kind under a lease until `leaseUntil`: their domains' ids. */
      async claimDue(kind: DomainRefreshKind, now: string, limit: number, leaseUntil: string): Promise<string[]> {
        return (await store.schedule.claimDue(kind, now, limit, leaseUntil)).map((r) => r.target_id);
      },
      /** Domains by id, at most 500 (one deleted since it was claimed is left out). */
      domains: (ids: readonly string[]) => store.domains.byIds(ids),
    },
    /**
     * A scheduled refresh that crashed: tried again after a tenth of the interval (at least a minute);
     * the nameserver watch at its next round.
     */
    async refreshFailed(kind: DomainRefreshKind, domainId: string, message: string): Promise<void> {
      const now = clock.now();
      const wait = kind === 'nameservers' ? nsWatchInterval : Math.max(60, io.checkInterval / 10);
      const next = new Date(now.getTime() + wait * 1000).toISOString();
      await store.schedule.done(kind, domainId, { at: now.toISOString(), next, outcome: `failed: ${message}` });
    },
    /**
     * One-shot check of a name without storing anything (the same code `dommon check` runs): registration
     * lookup, DNS security and the health they give (certificates and liveness are the caller's to add).
     */
    checkName: createNameCheck({ clock, lookup: registration.lookup, evaluate: security.evaluate }),
    /**
     * Safety net and time: inputs recompute health as they change, but days passing move the registration
     * score and the 24 h uptime window by themselves; also writes any expiry-window alert time has made due.
     */
    async sweep(): Promise<{ domains: number; alerts: number }> {
      let alerts = 0;
      let count = 0;
      const now = clock.now();
      const expiring: Domain[] = [];
      // 500 domains at a time: at 10,000 the sweep no longer holds the event loop (and the API) for one long read.
      async function* walk() {
        for await (const chunk of store.domains.chunks(500)) {
          count += chunk.length;
          for (const d of chunk) {
            const expiry = d.expiry_override ?? d.registry_expiry_date;
            if (expiry && expiryWindow(expiry, now) !== null) expiring.push(d);
          }
          yield chunk;
        }
      }
      await health.recomputeAll(walk());
      for (const d of expiring) if (await registration.expiryAlert(d)) alerts++;
      return { domains: count, alerts };
    },
  };
}

export type IntelServices = ReturnType<typeof createIntelServices>;
