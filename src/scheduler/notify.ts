// The notification worker: every DOMMON_NOTIFY_INTERVAL seconds it fans new events out, creates
// due digests and starts due deliveries (their retries run in the background, under a lease).
import type { Logger } from 'pino';
import type { DeliveryService } from '../services/delivery.js';
import { periodic, type Worker } from './periodic.js';
import type { Exclusive } from '../services/deps.js';

export interface NotifyWorker extends Worker {
  /** One cycle now (tests, and after a test send if a caller wants it sooner). */
  runNow(): Promise<void>;
}

export function notifyWorker({
  delivery,
  log,
  intervalMs,
  exclusive,
}: {
  delivery: DeliveryService;
  log: Logger;
  intervalMs: number;
  /** Builds digests only where this node holds the `digests` lock (store/singletons.ts). */
  exclusive?: Exclusive;
}): NotifyWorker {
  const cycle = async () => {
    // Bounded batches, so one cycle cannot hold the database for long.
    for (let i = 0; i < 10; i++) {
      await delivery.fanOut(500);
      if (!(await delivery.pendingEvents())) break;
    }
    await (exclusive ? exclusive('digests', () => delivery.digests()) : delivery.digests());
    await delivery.startDue();
  };
  const job = periodic('notify', intervalMs, cycle, log);
  return {
    name: 'notify',
    async start() {
      // A previous (killed) process of this node left leases: due again (SQLite: every lease; PostgreSQL: this node name's).
      const released = await delivery.releaseLeases();
      if (released) log.info({ released }, 'resuming deliveries left by a previous process');
      job.start();
    },
    async stop() {
      await job.stop();
      await delivery.stop();
    },
    runNow: job.runNow,
  };
}
