// The API's resource routes in one list, for the daemon (api/server.ts) and for the in-process API the
// command line speaks to (api/local.ts): a route module added here is served by both.
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { tokenRoutes } from './system.js';
import { portfolioRoutes } from './portfolios.js';
import { accountTokenRoutes } from './tokens.js';
import { memberRoutes } from './members.js';
import { invitationRoutes } from './invitations.js';
import { passkeyRoutes } from './passkeys.js';
import { maintenanceWindowRoutes } from './maintenance-windows.js';
import { domainRoutes } from './domains.js';
import { endpointRoutes } from './endpoints.js';
import { livenessDataRoutes, livenessRoutes } from './liveness.js';
import { notificationRoutes } from './notifications.js';
import { userApiRoutes } from './user-api.js';
import { exposureRoutes } from './exposure.js';
import { configApplyRoutes } from './config.js';
import { intelRoutes } from './intel.js';
import { eventRoutes } from './events.js';
import { statusPageRoutes } from './status-pages.js';
import { nodeRoutes } from './nodes.js';
import { dashboardRoutes } from './dashboard.js';
import { auditRoutes } from './audit.js';

/**
 * Registers every resource route behind `secure` (authentication, rate limits and roles in the daemon;
 * nothing in-process, where the caller is fixed). `userApiDeps` are the User API's (the daemon adds
 * its sign-in throttle there).
 */
export function resourceRoutes(
  router: ApiRouter,
  deps: ApiDeps,
  secure: Koa.Middleware[],
  userApiDeps: ApiDeps = deps,
): void {
  tokenRoutes(router, secure);
  accountTokenRoutes(router, deps, secure);
  memberRoutes(router, deps, secure);
  invitationRoutes(router, deps, secure);
  passkeyRoutes(router, deps, secure);
  portfolioRoutes(router, deps, secure);
  domainRoutes(router, deps, secure);
  endpointRoutes(router, deps, secure);
  livenessRoutes(router, deps, secure);
  livenessDataRoutes(router, deps, secure);
  notificationRoutes(router, deps, secure);
  userApiRoutes(router, userApiDeps, secure);
  exposureRoutes(router, deps, secure);
  intelRoutes(router, deps, secure);
  statusPageRoutes(router, deps, secure);
  nodeRoutes(router, deps, secure);
  eventRoutes(router, deps, secure);
  dashboardRoutes(router, deps, secure);
  maintenanceWindowRoutes(router, deps, secure);
  configApplyRoutes(router, deps, secure);
  auditRoutes(router, deps, secure);
}
