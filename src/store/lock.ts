// One daemon per data directory: DATA_DIR/dommon.pid holds the serving process id. A stale file
// (its process is gone) is taken over; a live one stops a second daemon and a restore.
import fs from 'node:fs';
import path from 'node:path';

export class LockedError extends Error {
  constructor(
    readonly pid: number,
    dir: string,
  ) {
    super(`another dommon daemon (pid ${pid}) is serving ${dir}`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'dommon.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the lock or throws LockedError; returns the release function. */
export function acquireLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'dommon.pid');
  const holder = lockHolder(dataDir);
  if (holder) throw new LockedError(holder, dataDir);
  fs.writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
    } catch {
      /* already gone */
    }
  };
}
