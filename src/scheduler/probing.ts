// The probing workers: the liveness scheduler and the TLS inspection cycle (new endpoints within
// seconds, each one again every DOMMON_CHECK_INTERVAL). Pruning raw results is the retention
// worker's (src/services/retention.ts), not theirs.
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { CertificateService } from '../services/certificates.js';
import type { LivenessService } from '../services/liveness.js';
import type { MonitorService } from '../services/monitor.js';
import type { LivenessDueRepo } from '../store/repos/liveness-due.js';
import { createClaimingScheduler } from './claiming.js';
import { createLivenessScheduler, type LivenessProbe } from './liveness.js';
import { periodic } from './periodic.js';

interface ProbingDeps {
  monitor: MonitorService;
  liveness: Pick<LivenessService, 'onChange'>;
  certificates: CertificateService;
  probe: LivenessProbe;
  clock: Clock;
  log: Logger;
  stamp: (tables: readonly string[]) => string;
  /** How often the TLS worker looks for new or due endpoints (ms). */
  tlsPollMs?: number;
  concurrency?: number;
  random?: () => number;
  /**
   * Several nodes on one database (PostgreSQL): due times live in the due-queue and each run is
   * claimed under a lease named after this node (claiming.ts) instead of the in-memory schedule.
   */
  dueQueue?: { repo: LivenessDueRepo; owner: string };
  /** This node's region (DOMMON_NODE_REGION): it checks configs without regions and those listing it. */
  region?: string;
}

export function createProbingWorkers(deps: ProbingDeps) {
  const { log } = deps;
  const liveness = deps.dueQueue
    ? createClaimingScheduler({
        monitor: deps.monitor,
        queue: deps.dueQueue.repo,
        owner: deps.dueQueue.owner,
        probe: deps.probe,
        clock: deps.clock,
        log,
        concurrency: deps.concurrency,
        random: deps.random,
        region: deps.region,
      })
    : createLivenessScheduler({
        monitor: deps.monitor,
        onChange: deps.liveness.onChange,
        probe: deps.probe,
        clock: deps.clock,
        log,
        // No tables: only commits by other processes (and unknown raw writes) move it; this process's
        // changes reach the scheduler one by one through onChange.
        stamp: () => deps.stamp([]),
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
