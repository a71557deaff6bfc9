// Named read models: what a cached answer above the store was read from. A cache keys by the model's
// name (store.readStamp('domains')), and only this table knows which tables each one reads, so a new
// join in a repository is one line here, not an edit of every cache that reads through it.
import type { DB } from './schema.js';

export const READ_MODELS = {
  /** The domain list (GET /api/v1/domains): domains with their registration data. The lists show which objects a configuration file manages (config_managed). */
  domains: ['domains', 'domain_registrations', 'config_managed'],
  /** How many domains a team has, per filter (the domain list's remembered totals). */
  domainTotals: ['domains'],
  /** The endpoint list, with each endpoint's domain name. */
  endpoints: ['endpoints', 'domains', 'config_managed'],
  /** Which endpoints exist (the TLS inspector's pick of new ones). */
  endpointSet: ['endpoints'],
  /** The liveness configuration list, with endpoint and domain names. */
  liveness: ['liveness_configs', 'endpoints', 'domains', 'config_managed'],
  /** The portfolio list, with each portfolio's domain count. */
  portfolios: ['portfolios', 'domains', 'config_managed'],
  /** The exposure finding list. */
  findings: ['exposure_findings', 'domains'],
  /**
   * What the dashboard's home shows that changes by a write someone makes (not by each check): the
   * live feed (web/live.ts) looks at the team's home again at once when one of these moves, on any node.
   */
  home: [
    'domains',
    'domain_registrations',
    'domain_security',
    'portfolios',
    'endpoints',
    'endpoint_certificates',
    'liveness_configs',
    'events',
  ],
  /** API tokens and what authenticating one reads (users, the revocation epoch). */
  tokens: ['meta', 'api_tokens', 'users'],
  /** The enabled maintenance windows. */
  maintenanceWindows: ['maintenance_windows'],
  /** The endpoints each window covers (through their domains and the domains' portfolios). */
  maintenanceCoverage: ['maintenance_windows', 'endpoints', 'domains'],
} as const satisfies Record<string, readonly (keyof DB)[]>;

export type ReadModel = keyof typeof READ_MODELS;
