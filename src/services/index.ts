// Builds every service from the same dependencies; api and cli receive this object.
import { createAccessService } from './access.js';
import type { ServiceDeps } from './deps.js';
import { createDomainService } from './domains.js';
import { createEndpointService } from './endpoints.js';
import { createLivenessService } from './liveness.js';
import { createPortfolioService } from './portfolios.js';

export function createServices(deps: ServiceDeps) {
  return {
    access: createAccessService(deps),
    portfolios: createPortfolioService(deps),
    domains: createDomainService(deps),
    endpoints: createEndpointService(deps),
    liveness: createLivenessService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
export type { ServiceDeps } from './deps.js';
