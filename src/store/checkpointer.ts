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
// own thread. So the WAL is looked at every second (two numbers of the wal-index header in the -shm
// file, one 100-byte read, on the daemon's thread) and checkpointed once it holds FRAMES frames not
// yet copied back (SQLite's own threshold) or its oldest such frame is MAX_AGE_MS old: a fleet that
// writes a few pages a second pays for one checkpoint every ten seconds, not ten. A kill -9 loses
// nothing either way (the WAL is in the file); an operating system crash may lose the commits since
// the last sync, as with synchronous = NORMAL before.
//
// The worker starts with the first checkpoint, not with the daemon: a thread is a Node environment of
// its own (tens of milliseconds of CPU to start), which a daemon that stops before its WAL needs a
// checkpoint (closing the last connection checkpoints) never pays.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
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
parentPort.on('message', (m) => {
  if (m === 'now') run();
  if (m === 'stop') {
    run();
    db.close();
    parentPort.close();
  }
});
`;

/**
 * Frames of `file`'s WAL not yet copied back, read from the wal-index header
 * (https://www.sqlite.org/walformat.html, native byte order): mxFrame, the WAL's last committed frame,
 * at byte 16; nBackfill, the frames a checkpoint copied back, at 96. Infinity when it cannot be read,
 * or was read while a writer changed it (the number only decides when to checkpoint).
 */
function walReader(file: string): { uncopied(): number; close(): void } {
  const header = Buffer.alloc(100);
  const le = os.endianness() === 'LE';
  let shm: number | null = null;
  return {
    uncopied() {
      try {
        shm ??= fs.openSync(`${file}-shm`, 'r');
        if (fs.readSync(shm, header, 0, 100, 0) < 100) return Infinity;
        const n = le
          ? header.readUInt32LE(16) - header.readUInt32LE(96)
          : header.readUInt32BE(16) - header.readUInt32BE(96);
        return n >= 0 ? n : Infinity;
      } catch {
        return Infinity;
      }
    },
    close() {
      if (shm !== null) fs.closeSync(shm);
      shm = null;
    },
  };
}

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
  /** Whether the worker thread has started (with the first checkpoint). */
  threadStarted(): boolean;
  /** One checkpoint now (tests, tooling); resolves with the stats after it (a failure counted when the thread died). */
  now(): Promise<CheckpointStats>;
  /** Stops the worker (if it started) after one last checkpoint and gives the connection its automatic checkpoint back. */
  stop(): Promise<void>;
}

/** A checkpoint once this many WAL frames wait to be copied back (SQLite's automatic threshold)... */
const FRAMES = 1000;
/** ...or once the first of them has waited this long (ms). */
const MAX_AGE_MS = 10_000;
/** How long after a thread died the WAL is looked at again (ms); now() starts a thread at once. */
const RESTART_MS = 30_000;

export interface CheckpointOptions {
  /** How often the WAL is looked at (ms). */
  intervalMs?: number;
  /** Checkpoint once this many frames wait (default FRAMES). */
  frames?: number;
  /** Checkpoint once frames have waited this long (ms; default MAX_AGE_MS). */
  maxAgeMs?: number;
  onError?: (message: string) => void;
}

/**
 * Starts background checkpoints of `file` (looking at its WAL every `intervalMs`; see the top of this
 * file for when one runs, and when the worker starts) and turns off the automatic checkpoint of
 * `sqlite` (the daemon's connection) until stop().
 */
export function startCheckpointer(sqlite: Database.Database, file: string, opts: CheckpointOptions = {}): Checkpointer {
  const frames = opts.frames ?? FRAMES;
  const maxAgeMs = opts.maxAgeMs ?? MAX_AGE_MS;
  const stats: CheckpointStats = { runs: 0, failures: 0, lastLog: 0, lastCheckpointed: 0, lastError: null };
  let waiters: ((s: CheckpointStats) => void)[] = [];
  let worker: { thread: Worker; exited: Promise<void> } | undefined;
  let stopping: Promise<void> | undefined;
  const started = () => {
    if (worker) return worker.thread;
    const thread = new Worker(WORKER, {
      eval: true,
      workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    thread.unref();
    thread.on('message', (m: { ok: boolean; log?: number; checkpointed?: number; error?: string }) => {
      pending--;
      waitingSince = null;
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
    let died = 'the checkpoint thread exited';
    thread.on('error', (err) => {
      died = err.message;
      opts.onError?.(err.message);
    });
    const exited = new Promise<void>((resolve) =>
      thread.once('exit', () => {
        // A thread that died (not stopped): the checkpoints it owed failed, and one asked for after
        // RESTART_MS starts another (a thread that cannot open the file does not start every second).
        if (!stopping && worker?.thread === thread) {
          worker = undefined;
          if (pending > 0) {
            stats.failures++;
            stats.lastError = died;
          }
          pending = 0;
          restartAt = performance.now() + RESTART_MS;
          const w = waiters;
          waiters = [];
          for (const fn of w) fn({ ...stats });
        }
        resolve();
      }),
    );
    worker = { thread, exited };
    return thread;
  };

  // When frames were first seen waiting (performance.now()), or null while the WAL is copied back.
  let waitingSince: number | null = null;
  /** Checkpoints asked for and not yet answered: the WAL is not looked at meanwhile. */
  let pending = 0;
  /** After a thread died: the WAL is not looked at before this (performance.now()). */
  let restartAt = 0;
  /** Asks for one checkpoint (the worker runs them one after another, in order). */
  const checkpoint = () => {
    pending++;
    started().postMessage('now');
  };
  const wal = walReader(file);
  const look = () => {
    if (pending > 0 || (!worker && performance.now() < restartAt)) return;
    const n = wal.uncopied();
    if (n === 0) return void (waitingSince = null);
    const t = performance.now();
    waitingSince ??= t;
    if (n >= frames || t - waitingSince >= maxAgeMs) checkpoint();
  };
  const timer = setInterval(look, opts.intervalMs ?? 1000);
  timer.unref();
  sqlite.pragma('wal_autocheckpoint = 0');
  return {
    stats,
    threadStarted: () => worker !== undefined,
    now() {
      return new Promise<CheckpointStats>((resolve) => {
        waiters.push(resolve);
        checkpoint();
      });
    },
    stop() {
      stopping ??= (async () => {
        clearInterval(timer);
        wal.close();
        // A worker runs a last checkpoint; without one, closing the connection (the last) checkpoints.
        if (worker) {
          worker.thread.postMessage('stop');
          const kill = setTimeout(() => void worker?.thread.terminate(), 10_000);
          await worker.exited;
          clearTimeout(kill);
        }
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
