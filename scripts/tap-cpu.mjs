// Preloaded (`node --import`) into every test file scripts/tap-files.mjs runs: when the file's process
// exits it appends one JSON line to $DOMMON_TAP_TIMES with its wall time and its CPU (user + sys, ms),
// its own and that of the child processes it waited for (the `dommon` commands and daemons it started,
// PostgreSQL's server processes not included). Linux's /proc/self/stat has both; elsewhere only the
// process's own CPU is known.
import fs from 'node:fs';
import { procCpu } from './proc-cpu.mjs';

const out = process.env.DOMMON_TAP_TIMES;
const file = process.env.DOMMON_TAP_FILE;

if (out && file)
  process.once('exit', () => {
    const [own, children] = procCpu();
    const line = { file, wallMs: Math.round(process.uptime() * 1000), cpuMs: own + children, childCpuMs: children };
    fs.appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
