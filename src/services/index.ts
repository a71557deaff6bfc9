// Builds every service from the same dependencies; api and cli receive this object.
import { createAccessService } from './access.js';
import { createSessionService } from './sessions.js';
import { createAccountService } from './accounts.js';
import { createLinkService, type MailContext } from './links.js';
import { createPasskeyService } from './passkeys.js';
import type { ServiceDeps } from './deps.js';
import { createDomainService } from './domains.js';
import { createEndpointService } from './endpoints.js';
import { createLivenessService } from './liveness.js';
import { createEndpointActions } from './endpoint-actions.js';
import { createPortfolioService } from './portfolios.js';
import { createMonitorService } from './monitor.js';
import { createPushService } from './push.js';
import { createStatusService } from './status.js';
import { createNotificationService } from './notifications.js';
import { createExposureService } from './exposure/index.js';
import { createIntelServices, unconfiguredIo, type IntelIo } from './intel.js';
import { pino } from 'pino';
import { createCertificateService } from './certificates.js';
import { createHealthService } from './health.js';
import { createStatusPageService } from './status-pages.js';
import { createChangeFeed } from './changes.js';
import { createEventService } from './events.js';
import { createNodeService } from './nodes.js';
import { createHomeService } from './home.js';
import { createMaintenanceWindowService } from './maintenance-windows.js';
import { createResolver, endpointInspector, type ProbeDeps } from '../probes/index.js';
import { createConfigService } from './config.js';
import { createManagedReads } from './managed.js';
import { channels, pluginOf } from '../channels/index.js';
import { createAuditService } from './audit.js';

/**
 * io: DNS/RDAP/WHOIS access for the domain-intelligence services; `probes` (resolver, trusted CAs)
 * and `checkInterval` drive TLS inspection. app.ts builds all of them from the config.
 */
export function createServices(
  base: ServiceDeps & {
    probes?: ProbeDeps;
    checkInterval?: number;
    /** The dashboard sessions' lifetimes (DOMMON_SESSION_IDLE_HOURS, DOMMON_SESSION_MAX_DAYS); defaults otherwise. */
    sessions?: { idleMs: number; absoluteMs: number };
    /** The SMTP relay (DOMMON_SMTP_URL, DOMMON_SMTP_FROM, DOMMON_SMTP_TLS) one-time links are mailed through; none: links are only answered. */
    mail?: MailContext;
    /** DOMMON_PUBLIC_URL: the passkeys' relying party (else each request's origin). */
    publicUrl?: string | null;
  },
  io?: IntelIo,
) {
  const probes = base.probes ?? { resolver: createResolver([]) };
  // Every service that changes a health input recomputes the domain's health in its own transaction.
  const health = createHealthService({ store: base.store, clock: base.clock });
  const deps = {
    ...base,
    recomputeHealth: base.recomputeHealth ?? health.recompute,
    changes: base.changes ?? createChangeFeed(),
    audit:
      base.audit ??
      createAuditService({
        store: base.store,
        clock: base.clock,
        secrets: Object.values(channels).flatMap((p) => [...p.secrets]),
      }),
  };
  // On PostgreSQL the due-queue learns of every change to the working set: a re-enabled target is due
  // again, a shorter interval applies now (a wake-up lost to a crash is repaired by the queue's sync). Not a
  // new config: its row was inserted due and unleased, and a wake-up would revoke the lease of the node
  // that claimed it meanwhile, whose probe may be out already (a second node would then probe it too).
  if (base.store.engine === 'postgres') {
    const due = base.store.livenessDue;
    deps.changes.subscribe((change) => {
      if ('created' in change) return;
      void due.wake(change, base.clock.now().getTime()).catch(() => undefined);
    });
  }
  const endpoints = createEndpointService(deps);
  const liveness = createLivenessService(deps);
  const domains = createDomainService(deps);
  const maintenanceWindows = createMaintenanceWindowService(deps);
  const monitor = createMonitorService({
    ...deps,
    // The health service's own hook has a batched form; a hook given by the caller is called per domain.
    recomputeHealthMany: deps.recomputeHealth === health.recompute ? health.recomputeMany : undefined,
    maintenance: maintenanceWindows,
  });
  const intel = createIntelServices({
    store: deps.store,
    clock: deps.clock,
    health,
    io: io ?? unconfiguredIo(pino({ level: 'silent' })),
    probes,
    audit: deps.audit,
    maintenance: maintenanceWindows,
  });
  const access = createAccessService(deps);
  return {
    /** Who changed what (docs/audit.md): the doors set the actor, the services record each change. */
    audit: deps.audit,
    access,
    sessions: createSessionService({ store: deps.store, clock: deps.clock, access, ...base.sessions }),
    /** People's accounts: e-mail and password sign-in, their teams. */
    accounts: createAccountService(deps),
    /** One-time links: set-up, sign-in, invitations, password resets (docs/accounts.md#one-time-links). */
    links: createLinkService({ ...deps, mail: base.mail, log: io?.log }),
    /** Passkeys (WebAuthn): registered by a signed-in person, signed in with instead of a password. */
    passkeys: createPasskeyService({ ...deps, publicUrl: base.publicUrl }),
    portfolios: createPortfolioService(deps),
    domains,
    /** A domain's health with the reasons of its grade, computed from its current inputs when asked. */
    health,
    endpoints,
    liveness,
    /** Pause, resume or delete many endpoints at once, answered per endpoint. */
    endpointActions: createEndpointActions({ store: deps.store, endpoints, liveness }),
    monitor,
    push: createPushService({ store: deps.store, clock: deps.clock, monitor }),
    status: createStatusService({ ...deps, endpoints, monitor, domains }),
    /** The dashboard's home list, an endpoint's incidents, and the fingerprint the live feed compares. */
    home: createHomeService({ store: deps.store, clock: deps.clock, monitor }),
    notifications: createNotificationService(deps),
    events: createEventService(deps),
    statusPages: createStatusPageService({ ...deps, maintenance: maintenanceWindows }),
    exposure: createExposureService({ store: deps.store, clock: deps.clock, audit: deps.audit, ...deps.exposure }),
    intel,
    nodes: createNodeService(deps),
    maintenanceWindows,
    /** Configuration as code: a checked file's plan, applied in one transaction (docs/configuration-file.md). */
    config: createConfigService(deps, (channel) => [...(pluginOf(channel)?.secrets ?? [])]),
    /** Which objects a configuration file manages, as the reads show it (`managed_by`, `editable`). */
    managed: createManagedReads(deps.store),
    verification: intel.verification,
    renewals: intel.renewals,
    certificates: createCertificateService({
      ...deps,
      checkInterval: deps.checkInterval ?? 21_600,
      inspect: endpointInspector(probes),
    }),
  };
}

export type Services = ReturnType<typeof createServices>;
