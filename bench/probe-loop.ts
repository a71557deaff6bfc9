// bench/probe-loop: the HTTP probe alone, in one process (no scheduler, no database), against the
// loopback peer of bench/probe-target.ts (its own process): CPU time (user + system, this process)
// per check for a plain check and for the conditions scenario of bench/probes (three conditions on a
// 10 KB JSON body), each as batches of concurrent checks as the scheduler's wheel starts them.
// Usage: npm run bench:probe-loop -- [--root dist] [--checks 4000] [--batch 100] [--rounds 3]
//   --root DIR loads the probes from a compiled copy (default dist/: npm run build first), so two
//   builds can be compared back to back. LOOP_PARTS=1 adds two scenarios that split the cost: `ip`
//   (node:http, no body read: conditions on [STATUS] and [IP]) and `text` (the body read, no JSON:
//   `[BODY] == pat(*UP*)`). Each figure is one round of --checks checks; the first round is a warm-up.
//   LOOP_ALLOC=1 adds, per scenario, the bytes allocated per check: one more round under V8's sampling
//   heap profiler, counting what the collector freed too (what a check allocates, not what it keeps).
import { spawn } from 'node:child_process';
import inspector from 'node:inspector';
import path from 'node:path';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const flag = (name: string, d: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1]! : d;
};
const root = path.resolve(flag('--root', 'dist'));
const CHECKS = Number(flag('--checks', '4000'));
const BATCH = Number(flag('--batch', '100'));
const ROUNDS = Number(flag('--rounds', '3'));

const peer = spawn(process.execPath, ['--import', 'tsx', 'bench/probe-target.ts'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { port } = await new Promise<{ port: number; dns: string }>((resolve) =>
  createInterface({ input: peer.stdout! }).once('line', (l) => resolve(JSON.parse(l) as { port: number; dns: string })),
);

const { livenessProbe } = (await import(`${root}/probes/registry.js`)) as typeof import('../src/probes/registry.js');
const { createResolver } = (await import(`${root}/net/resolve.js`)) as typeof import('../src/net/resolve.js');
const probe = livenessProbe({ resolver: createResolver([]) });
const never = new AbortController().signal;

const endpoint = (p: string) => ({
  id: 'e',
  endpoint_type: 'http',
  domain: '127.0.0.1',
  subdomain: null,
  port,
  path: p,
});
const base = { timeout_seconds: 5, expected_status_code: 200, method: 'GET', headers: {}, body: null };
const scenarios: Record<
  string,
  { endpoint: ReturnType<typeof endpoint>; config: typeof base & { conditions: string[] } }
> = {
  plain: { endpoint: endpoint('/p'), config: { ...base, conditions: [] } },
  ...(process.env.LOOP_PARTS && {
    ip: { endpoint: endpoint('/json'), config: { ...base, conditions: ['[STATUS] == 200', '[IP] == 127.0.0.1'] } },
    text: { endpoint: endpoint('/json'), config: { ...base, conditions: ['[STATUS] == 200', '[BODY] == pat(*UP*)'] } },
  }),
  conditions: {
    endpoint: endpoint('/json'),
    config: { ...base, conditions: ['[STATUS] == 200', '[BODY].status == UP', 'len([BODY].data) > 100'] },
  },
};

async function run(name: string): Promise<number> {
  const { endpoint: e, config: c } = scenarios[name]!;
  const cpu = process.cpuUsage();
  let failed = 0;
  for (let done = 0; done < CHECKS; done += BATCH) {
    const outs = await Promise.all(
      Array.from({ length: BATCH }, () => probe(e as never, c as never, never) as Promise<{ ok: boolean }>),
    );
    failed += outs.filter((o) => !o.ok).length;
  }
  const used = process.cpuUsage(cpu);
  if (failed) throw new Error(`${name}: ${failed} checks failed`);
  return (used.user + used.system) / 1000 / CHECKS;
}

const names = Object.keys(scenarios);
for (const name of names) await run(name);
const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++) for (const name of names) out[name]!.push(await run(name));
const best = (xs: number[]) => Math.min(...xs);

/** Bytes allocated per check in one more round of a scenario, sampled every 256 bytes. */
async function allocated(name: string): Promise<number> {
  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (err, r) => (err ? reject(err) : resolve(r as T))),
    );
  await post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await run(name);
  const { profile } = await post<{ profile: { head: SampledNode } }>('HeapProfiler.stopSampling');
  session.disconnect();
  const sum = (n: SampledNode): number => n.selfSize + n.children.reduce((a, c) => a + sum(c), 0);
  return Math.round(sum(profile.head) / CHECKS);
}
interface SampledNode {
  selfSize: number;
  children: SampledNode[];
}
const alloc: Record<string, number> = {};
if (process.env.LOOP_ALLOC) for (const name of names) alloc[`${name}_bytes_per_check`] = await allocated(name);
console.log(
  JSON.stringify({
    root: path.relative(process.cwd(), root),
    checks: CHECKS,
    ...Object.fromEntries(names.map((n) => [`${n}_ms`, out[n]!.map((x) => +x.toFixed(4))])),
    ratio_of_best: +(best(out.conditions!) / best(out.plain!)).toFixed(2),
    ...alloc,
  }),
);
peer.kill('SIGTERM');
