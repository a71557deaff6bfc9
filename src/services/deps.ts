import type { Clock } from '../domain/clock.js';
import type { Repos, Store } from '../store/index.js';
import type { SingletonLocks } from '../store/singletons.js';
import type { ExposureNet } from '../probes/exposure-net.js';
import type { ExposureDns, ExposureOptions } from './exposure/types.js';
import type { Metrics } from './metrics.js';
import type { ChangeFeed } from './changes.js';
import type { AuditService } from './audit.js';

/** What every service receives (plain-argument dependency injection; app.ts builds it). */
export interface ServiceDeps {
  store: Store;
  clock: Clock;
  limits: { maxDomains: number | null; maxEndpoints: number | null };
  /** DNS and network reach of the exposure scanner (app.ts builds them from config). */
  exposure: { dns: ExposureDns; net: ExposureNet; options?: Partial<ExposureOptions> };
  /** Counters for checks and deliveries (`metrics?.check(kind, outcome)`); absent in CLI commands. */
  metrics?: Pick<Metrics, 'check' | 'delivery'>;
  /** Domain health (services/health.ts): called whenever one of its inputs changed; absent in bare unit use. */
  recomputeHealth?: HealthHook;
  /** Working-set changes for the liveness scheduler (services/changes.ts); createServices makes one. */
  changes?: ChangeFeed;
  /** The audit trail (services/audit.ts): every write path records its change with it; createServices makes one. */
  audit?: AuditService;
  /** DOMMON_PASSWORD_COST: scrypt's cost (log2 of N) for the passwords hashed (services/passwords.ts); default 17. */
  passwordCost?: number;
  /** The configuration file's own writes (services/config.ts): the managed-object check (managed.ts) is skipped. */
  asConfigFile?: boolean;
}

/**
 * Recomputes and stores one domain's health score, grade and overall status with the given
 * repositories: pass the transaction that changed an input, so the new health commits with it.
 */
export type HealthHook = (repos: Repos, domainId: string) => Promise<unknown>;

/** Runs a job only where this node holds its singleton lock (store/singletons.ts); elsewhere its turn is skipped. */
export type Exclusive = SingletonLocks['run'];
