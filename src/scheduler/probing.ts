// The probing workers: the liveness scheduler and the TLS inspection cycle (new endpoints within
// seconds, each one again every DOMMON_CHECK_INTERVAL). Pruning raw results is the retention
// worker's (src/services/retention.ts), not theirs.
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { CertificateService } from '../services/certificates.js';
import type { DueQueue } from '../services/due-queue.js';
import type { MonitorService } from '../services/monitor.js';
import { createLivenessScheduler, type LivenessProbe } from './liveness.js';
import { periodic } from './periodic.js';

interface ProbingDeps {
  monitor: MonitorService;
  /** The liveness due-queue: in memory (SQLite) or the shared tables (PostgreSQL). */
  queue: DueQueue;
  certificates: CertificateService;
  probe: LivenessProbe;
  clock: Clock;
  log: Logger;
  /** How often the TLS worker looks for new or due endpoints (ms). */
  tlsPollMs?: number;
  concurrency?: number;
  random?: () => number;
  /** This node's region (DOMMON_NODE_REGION): it checks configs without regions and those listing it. */
  region?: string;
}

export function createProbingWorkers(deps: ProbingDeps) {
  const { log } = deps;
  const liveness = createLivenessScheduler({
    monitor: deps.monitor,
    queue: deps.queue,
    probe: deps.probe,
    clock: deps.clock,
    log,
    concurrency: deps.concurrency,
    random: deps.random,
    region: deps.region,
  });
  let tlsAbort = new AbortController();
  const tls = periodic('tls', deps.tlsPollMs ?? 2000, () => deps.certificates.cycle(tlsAbort.signal), log);
  return {
    liveness,
    tls,
    async start(): Promise<void> {
      tlsAbort = new AbortController();
      await liveness.start();
      tls.start();
    },
    /** In-flight probes get `graceMs` to finish, then are cancelled; finished results are written. */
    async stop(graceMs = 3000): Promise<void> {
      const cancel = setTimeout(() => tlsAbort.abort(), graceMs);
      await Promise.all([liveness.stop(graceMs), tls.stop()]);
      clearTimeout(cancel);
    },
  };
}

export type ProbingWorkers = ReturnType<typeof createProbingWorkers>;
