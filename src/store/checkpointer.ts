// WAL checkpoints on a worker thread. SQLite's automatic checkpoint runs inside whichever commit
// crosses the threshold (1,000 pages): that one commit copies the WAL back into the database file
// and syncs it (docs/benchmarks.md has the cost), and since better-sqlite3 is synchronous the whole event
// loop waits (the API's p99 and the probes' lateness). The daemon instead turns the automatic
// checkpoint off on its connection and lets a second connection on a worker thread run PASSIVE
// checkpoints, which never block the writer (WAL mode lets writes go on while frames are copied).
// A process that does not start this (the CLI) keeps SQLite's automatic checkpoints.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

// The worker's code (CommonJS, evaluated): no separate file to locate in dist/ or the CLI bundle.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const run = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ ok: false, error: String(err && err.message || err) });
  }
};
const timer = setInterval(run, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'now') run();
  if (m === 'stop') {
    clearInterval(timer);
    run();
    db.close();
    parentPort.close();
  }
});
`;

export interface CheckpointStats {
  runs: number;
  failures: number;
  /** WAL frames and checkpointed frames at the last run. */
  lastLog: number;
  lastCheckpointed: number;
  lastError: string | null;
}

export interface Checkpointer {
  stats: CheckpointStats;
  /** One checkpoint now (tests, tooling); resolves with the stats after it. */
  now(): Promise<CheckpointStats>;
  /** Stops the worker after one last checkpoint and gives the connection its automatic checkpoint back. */
  stop(): Promise<void>;
}

/**
 * Starts background checkpoints of `file` every `intervalMs` and turns off the automatic checkpoint
 * of `sqlite` (the daemon's connection) until stop().
 */
export function startCheckpointer(
  sqlite: Database.Database,
  file: string,
  opts: { intervalMs?: number; onError?: (message: string) => void } = {},
): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, intervalMs: opts.intervalMs ?? 1000 } });
  worker.unref();
  const stats: CheckpointStats = { runs: 0, failures: 0, lastLog: 0, lastCheckpointed: 0, lastError: null };
  let waiters: ((s: CheckpointStats) => void)[] = [];
  worker.on('message', (m: { ok: boolean; log?: number; checkpointed?: number; error?: string }) => {
    stats.runs++;
    if (m.ok) {
      stats.lastLog = m.log ?? 0;
      stats.lastCheckpointed = m.checkpointed ?? 0;
    } else {
      stats.failures++;
      stats.lastError = m.error ?? 'failed';
      opts.onError?.(stats.lastError);
    }
    const w = waiters;
    waiters = [];
    for (const fn of w) fn({ ...stats });
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', (err) => opts.onError?.(err.message));
  sqlite.pragma('wal_autocheckpoint = 0');
  let stopping: Promise<void> | undefined;
  return {
    stats,
    now() {
      return new Promise<CheckpointStats>((resolve) => {
        waiters.push(resolve);
        worker.postMessage('now');
      });
    },
    stop() {
      stopping ??= (async () => {
        worker.postMessage('stop');
        const timer = setTimeout(() => void worker.terminate(), 10_000);
        await exited;
        clearTimeout(timer);
        try {
          sqlite.pragma('wal_autocheckpoint = 1000');
        } catch {
          // the connection is already closed
        }
      })();
      return stopping;
    },
  };
}
