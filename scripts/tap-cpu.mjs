// Preloaded (`node --import`) into every test file scripts/tap-files.mjs runs: when the file's process
// exits it appends one JSON line to $DOMMON_TAP_TIMES with its wall time and its CPU (user + sys, ms),
// its own and that of the child processes it waited for (the `dommon` commands and daemons it started,
// PostgreSQL's server processes not included). Linux's /proc/self/stat has both; elsewhere only the
// process's own CPU is known.
import fs from 'node:fs';

const out = process.env.DOMMON_TAP_TIMES;
const file = process.env.DOMMON_TAP_FILE;

/** [own, children] CPU in ms from /proc/self/stat (utime, stime, cutime, cstime, in clock ticks of 10 ms). */
function cpu() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // fields 14-17 of proc(5); f[0] is field 3
    return [(f[11] + f[12]) * 10, (f[13] + f[14]) * 10];
  } catch {
    const u = process.cpuUsage();
    return [(u.user + u.system) / 1000, 0];
  }
}

if (out && file)
  process.once('exit', () => {
    const [own, children] = cpu();
    const line = { file, wallMs: Math.round(process.uptime() * 1000), cpuMs: own + children, childCpuMs: children };
    fs.appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
