// CPU time of this process from /proc/self/stat (Linux), shared by the test runner's scripts.
import fs from 'node:fs';

/**
 * [own, waited-for children] CPU in ms: utime + stime and cutime + cstime (fields 14-17 of proc(5),
 * in clock ticks of 10 ms). Elsewhere: this process's own from process.cpuUsage(), children 0.
 */
export function procCpu() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // f[0] is field 3
    return [(f[11] + f[12]) * 10, (f[13] + f[14]) * 10];
  } catch {
    const u = process.cpuUsage();
    return [(u.user + u.system) / 1000, 0];
  }
}
