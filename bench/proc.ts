// /proc readings of a child process for the benchmarks (Linux).
import fs from 'node:fs';

/** Clock ticks per second on Linux (getconf CLK_TCK). */
export const TICK = 100;

/** CPU time of a process so far, in clock ticks. */
export function cpuTicks(pid: number): { user: number; sys: number } {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return { user: Number(parts[11]), sys: Number(parts[12]) }; // utime, stime
}

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * Waits until a process's start-up work has died down: CPU use under `idleShare` of a core over a
 * whole `sliceMs` slice (or `maxMs` passed). Returns the milliseconds waited.
 */
export async function settled(pid: number, { sliceMs = 500, idleShare = 0.05, maxMs = 120_000 } = {}): Promise<number> {
  const t0 = Date.now();
  const total = () => {
    const c = cpuTicks(pid);
    return c.user + c.sys;
  };
  let last = total();
  while (Date.now() - t0 < maxMs) {
    await new Promise((r) => setTimeout(r, sliceMs));
    const now = total();
    const share = (now - last) / TICK / (sliceMs / 1000);
    last = now;
    if (share < idleShare) break;
  }
  return Date.now() - t0;
}
