// Builds every service from the same dependencies; api and cli receive this object.
import { createAccessService } from './access.js';
import type { ServiceDeps } from './deps.js';
import { createDomainService } from './domains.js';
import { createEndpointService } from './endpoints.js';
import { createLivenessService } from './liveness.js';
import { createPortfolioService } from './portfolios.js';
import { createMonitorService } from './monitor.js';
import { createStatusService } from './status.js';
import { createNotificationService } from './notifications.js';
import { createCertificateService } from './certificates.js';
import { createResolver, inspectTls, type ProbeDeps } from '../probes/index.js';

/**
 * `probes` (resolver, trusted CAs) and `checkInterval` drive TLS inspection; app.ts passes both
 * from the config (the defaults, system resolver and 6 h, keep other callers compiling).
 */
export function createServices(deps: ServiceDeps & { probes?: ProbeDeps; checkInterval?: number }) {
  const probes = deps.probes ?? { resolver: createResolver([]) };
  const endpoints = createEndpointService(deps);
  const domains = createDomainService(deps);
  const monitor = createMonitorService(deps);
  return {
    access: createAccessService(deps),
    portfolios: createPortfolioService(deps),
    domains,
    endpoints,
    liveness: createLivenessService(deps),
    monitor,
    status: createStatusService({ ...deps, endpoints, monitor, domains }),
    notifications: createNotificationService(deps),
    certificates: createCertificateService({ ...deps, checkInterval: deps.checkInterval ?? 21_600, inspect: (target, signal) => inspectTls(target, probes, signal) }),
  };
}

export type Services = ReturnType<typeof createServices>;
export type { ServiceDeps } from './deps.js';
