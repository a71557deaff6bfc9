import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/index.js';
import type { Metrics } from './metrics.js';

/** What every service receives (plain-argument dependency injection; app.ts builds it). */
export interface ServiceDeps {
  store: Store;
  clock: Clock;
  limits: { maxDomains: number | null; maxEndpoints: number | null };
  /** Counters for checks and deliveries (`metrics?.check(kind, outcome)`); absent in CLI commands. */
  metrics?: Pick<Metrics, 'check' | 'delivery'>;
}

/** True for SQLite's (and later PostgreSQL's) unique-constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === '23505';
}
