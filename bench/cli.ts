// bench/cli: how long one `dommon` command takes from start to exit (what a cron job or a script pays
// on every call), on a fresh SQLite data directory with a few tokens and domains: wall time, and the
// CPU time (user + system) the process reports as it exits, which a busy machine changes less. One
// command talks to a daemon (`serve` of the same build on a data directory of its own, with the same
// domains, every outside service pointed at a closed loopback port) with --remote. The commands run in turn (round robin, so a change of the machine's load touches each alike); `node -e 0`
// is the floor any command pays. Prints one JSON line per command, then a markdown table and the load
// average.
// Usage: npm run build && npm run bench:cli -- [--runs 20] [--bin bin/dommon.js]
//   --bin: another build of the CLI (e.g. an older checkout's bin/dommon.js) to compare with
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const runs = Number(flag('--runs') ?? 20);
const bin = path.resolve(flag('--bin') ?? 'bin/dommon.js');
if (!fs.existsSync(bin)) throw new Error(`${bin} not found: run npm run build first`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-cli-'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, DOMMON_DATA_DIR: dir };

function dommon(...argv: string[]): string {
  return dommonIn(env, ...argv);
}

function dommonIn(e: NodeJS.ProcessEnv, ...argv: string[]): string {
  const r = spawnSync(process.execPath, [bin, ...argv], { env: e, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dommon ${argv.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

// A small installation: one team, three tokens, five domains.
for (const name of ['ci', 'cron', 'ops']) dommon('token', 'create', '--team', 'ops', '--name', name);
const DOMAINS = ['alpha.test', 'beta.test', 'gamma.test', 'delta.test', 'epsilon.test'];
for (const d of DOMAINS) dommon('domains', 'add', d);

// The daemon for --remote: its own data directory (one writer per SQLite file), no outside service.
const daemonDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-cli-daemon-'));
const closed = '127.0.0.1:9';
const daemonEnv = {
  ...env,
  DOMMON_DATA_DIR: daemonDir,
  DOMMON_DNS_SERVERS: closed,
  DOMMON_RDAP_URL: `http://${closed}/`,
  DOMMON_WHOIS_SERVER: closed,
  DOMMON_IANA_WHOIS: closed,
};
const token = dommonIn(daemonEnv, 'token', 'create', '--team', 'ops').trim();
for (const d of DOMAINS) dommonIn(daemonEnv, 'domains', 'add', d);
const daemon = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
  env: daemonEnv,
  stdio: ['ignore', 'pipe', 'ignore'],
});
const url = await new Promise<string>((resolve, reject) => {
  let out = '';
  daemon.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    const m = /listening on (http:\/\/\S+)/.exec(out);
    if (m) resolve(m[1]!);
  });
  daemon.once('exit', (code) => reject(new Error(`dommon serve exited ${code}: ${out}`)));
});

// Each process writes its CPU time (process.cpuUsage(), from its start) to fd 3 as it exits.
const cpuHook = `data:text/javascript,${encodeURIComponent(
  "import fs from 'node:fs'; process.on('exit', () => { const u = process.cpuUsage(); try { fs.writeSync(3, String(u.user + u.system)); } catch {} });",
)}`;
let added = 0;
const commands: { name: string; argv: () => string[] }[] = [
  { name: 'node -e 0 (the floor)', argv: () => ['-e', '0'] },
  { name: 'dommon --help', argv: () => [bin, '--help'] },
  { name: 'dommon token list', argv: () => [bin, 'token', 'list'] },
  { name: 'dommon domains list --json', argv: () => [bin, 'domains', 'list', '--json'] },
  { name: 'dommon domains add', argv: () => [bin, 'domains', 'add', `bench-${++added}.test`] },
  {
    name: 'dommon --remote URL domains list --json',
    argv: () => [bin, '--remote', url, '--token', token, 'domains', 'list', '--json'],
  },
];

/** One run: wall ms from spawn to exit, CPU ms the process used. */
function once(argv: string[]): { wall: number; cpu: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', cpuHook, ...argv], {
    env,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return { wall, cpu: Number(r.output[3]) / 1000 };
}

// Each command once before measuring (the page cache holds the files then, as for a command run every minute).
for (const c of commands) once(c.argv());

const loadBefore = os.loadavg();
const times = new Map<string, { wall: number[]; cpu: number[] }>(commands.map((c) => [c.name, { wall: [], cpu: [] }]));
for (let i = 0; i < runs; i++) {
  for (const c of commands) {
    const { wall, cpu } = once(c.argv());
    times.get(c.name)!.wall.push(wall);
    times.get(c.name)!.cpu.push(cpu);
  }
}
const loadAfter = os.loadavg();
const stopped = new Promise((r) => daemon.once('exit', r));
daemon.kill('SIGTERM');
await stopped;
fs.rmSync(dir, { recursive: true, force: true });
fs.rmSync(daemonDir, { recursive: true, force: true });

const rows = commands.map((c) => {
  const { wall, cpu } = times.get(c.name)!;
  const at = (t: number[], q: number) => t.sort((a, b) => a - b)[Math.min(t.length - 1, Math.floor(q * t.length))]!;
  const row = {
    command: c.name,
    runs: wall.length,
    median_ms: Math.round(at(wall, 0.5)),
    min_ms: Math.round(at(wall, 0)),
    p90_ms: Math.round(at(wall, 0.9)),
    cpu_median_ms: Math.round(at(cpu, 0.5)),
    cpu_p90_ms: Math.round(at(cpu, 0.9)),
  };
  console.log(JSON.stringify(row));
  return row;
});
const cols = Object.keys(rows[0]!) as (keyof (typeof rows)[number])[];
console.log(
  `\n| ${cols.join(' | ')} |\n| --- | ${cols
    .slice(1)
    .map(() => '---:')
    .join(' | ')} |`,
);
for (const r of rows) console.log(`| ${cols.map((c) => String(r[c])).join(' | ')} |`);
const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');
console.log(
  `\n${bin}; ${os.cpus().length} cores, Node ${process.version}; load average (1, 5, 15 min) ${load(loadBefore)} before, ${load(loadAfter)} after`,
);
