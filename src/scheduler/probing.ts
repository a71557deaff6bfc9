// The probing workers: the liveness scheduler, the TLS inspection cycle (new endpoints within
// seconds, each one again every DOMMON_CHECK_INTERVAL) and the daily retention of raw results.
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { CertificateService } from '../services/certificates.js';
import type { LivenessService } from '../services/liveness.js';
import type { MonitorService } from '../services/monitor.js';
import { createLivenessScheduler, type LivenessProbe } from './liveness.js';
import { periodic } from './periodic.js';

export interface ProbingDeps {
  monitor: MonitorService;
  liveness: Pick<LivenessService, 'onChange'>;
  certificates: CertificateService;
  probe: LivenessProbe;
  clock: Clock;
  log: Logger;
  stamp: (tables: readonly string[]) => string;
  resultRetentionDays: number;
  /** How often the TLS worker looks for new or due endpoints (ms). */
  tlsPollMs?: number;
  retentionEveryMs?: number;
  concurrency?: number;
  random?: () => number;
}

export function createProbingWorkers(deps: ProbingDeps) {
  const { log } = deps;
  const liveness = createLivenessScheduler({
    monitor: deps.monitor,
    onChange: deps.liveness.onChange,
    probe: deps.probe,
    clock: deps.clock,
    log,
    stamp: () => deps.stamp(['liveness_configs', 'endpoints']),
    concurrency: deps.concurrency,
    random: deps.random,
  });
  let tlsAbort = new AbortController();
  const tls = periodic('tls', deps.tlsPollMs ?? 2000, () => deps.certificates.cycle(tlsAbort.signal), log);
  let retentionAbort = new AbortController();
  const retention = periodic(
    'retention',
    deps.retentionEveryMs ?? 86_400_000,
    async () => {
      await deps.certificates.forgetIneligible();
      const removed = await deps.monitor.prune(deps.resultRetentionDays, { signal: retentionAbort.signal });
      if (removed) log.info({ removed, days: deps.resultRetentionDays }, 'liveness results pruned');
    },
    log,
    { runAtStart: false },
  );
  let first: NodeJS.Timeout | undefined;

  return {
    liveness,
    tls,
    retention,
    async start(): Promise<void> {
      tlsAbort = new AbortController();
      retentionAbort = new AbortController();
      await liveness.start();
      tls.start();
      retention.start();
      // The first retention pass a minute after start (not during the start-up burst), then daily.
      first = setTimeout(() => void retention.runNow(), 60_000);
      first.unref();
    },
    /** In-flight probes get `graceMs` to finish, then are cancelled; finished results are written. */
    async stop(graceMs = 3000): Promise<void> {
      if (first) clearTimeout(first);
      const cancel = setTimeout(() => tlsAbort.abort(), graceMs);
      retentionAbort.abort();
      await Promise.all([liveness.stop(graceMs), tls.stop(), retention.stop()]);
      clearTimeout(cancel);
    },
  };
}

export type ProbingWorkers = ReturnType<typeof createProbingWorkers>;
