// WAL checkpoints on a worker thread. SQLite's automatic checkpoint runs inside whichever commit
// crosses the threshold (1,000 pages): that one commit copies the WAL back into the database file
// and syncs it (docs/benchmarks.md has the cost), and since better-sqlite3 is synchronous the whole event
// loop waits (the API's p99 and the probes' lateness). The daemon instead turns the automatic
// checkpoint off on its connection and lets a second connection on a worker thread run PASSIVE
// checkpoints, which never block the writer (WAL mode lets writes go on while frames are copied).
// A process that does not start this (the CLI) keeps SQLite's automatic checkpoints.
//
// A checkpoint is not free when there is little to copy: it syncs the WAL and the database file,
// and the first commit after a complete one restarts the WAL and syncs its header on the daemon's
// own thread. So the worker looks at the WAL every second (two numbers of the wal-index header in
// the -shm file, one read) and checkpoints once it holds FRAMES frames not yet copied back (SQLite's
// own automatic threshold) or its oldest such frame is MAX_AGE_MS old: a fleet that writes a few
// pages a second pays for one checkpoint every ten seconds, not ten. A kill -9 loses nothing either
// way (the WAL is in the file); an operating system crash may lose the commits since the last sync,
// as with synchronous = NORMAL before.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

// The worker's code (CommonJS, evaluated): no separate file to locate in dist/ or the CLI bundle.
const WORKER = `
const fs = require('node:fs');
const os = require('node:os');
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
// The wal-index header (https://www.sqlite.org/walformat.html, native byte order): mxFrame, the
// WAL's last committed frame, at byte 16; nBackfill, the frames a checkpoint copied back, at 96.
const header = Buffer.alloc(100);
const le = os.endianness() === 'LE';
let shm = null;
const uncopied = () => {
  try {
    shm ??= fs.openSync(workerData.file + '-shm', 'r');
    if (fs.readSync(shm, header, 0, 100, 0) < 100) return Infinity;
    const n = le ? header.readUInt32LE(16) - header.readUInt32LE(96) : header.readUInt32BE(16) - header.readUInt32BE(96);
    // A header read while a writer changed it: checkpoint (the hint only decides when).
    return n >= 0 ? n : Infinity;
  } catch {
    return Infinity;
  }
};
// When frames were first seen waiting (performance.now()), or null while the WAL is copied back.
let waitingSince = null;
const run = () => {
  waitingSince = null;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ ok: false, error: String(err && err.message || err) });
  }
};
const look = () => {
  const n = uncopied();
  if (n === 0) return void (waitingSince = null);
  const t = performance.now();
  waitingSince ??= t;
  if (n >= workerData.frames || t - waitingSince >= workerData.maxAgeMs) run();
};
const timer = setInterval(look, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'now') run();
  if (m === 'stop') {
    clearInterval(timer);
    run();
    if (shm !== null) fs.closeSync(shm);
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

/** A checkpoint once this many WAL frames wait to be copied back (SQLite's automatic threshold)... */
const FRAMES = 1000;
/** ...or once the first of them has waited this long (ms). */
const MAX_AGE_MS = 10_000;

export interface CheckpointOptions {
  /** How often the worker looks at the WAL (ms). */
  intervalMs?: number;
  /** Checkpoint once this many frames wait (default FRAMES). */
  frames?: number;
  /** Checkpoint once frames have waited this long (ms; default MAX_AGE_MS). */
  maxAgeMs?: number;
  onError?: (message: string) => void;
}

/**
 * Starts background checkpoints of `file` (looking at its WAL every `intervalMs`; see the top of this
 * file for when one runs) and turns off the automatic checkpoint of `sqlite` (the daemon's connection)
 * until stop().
 */
export function startCheckpointer(sqlite: Database.Database, file: string, opts: CheckpointOptions = {}): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      file,
      driver,
      intervalMs: opts.intervalMs ?? 1000,
      frames: opts.frames ?? FRAMES,
      maxAgeMs: opts.maxAgeMs ?? MAX_AGE_MS,
    },
  });
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
