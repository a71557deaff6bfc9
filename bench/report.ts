// What bench/probes, bench/fleet and bench/cluster share: the loopback HTTP/DNS target they probe
// (bench/probe-target.ts, in its own process), one JSON line per scenario as it ends, and all of them
// as a markdown table at the end.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ProbeTarget {
  port: number;
  /** host:port of its DNS stub, for DOMMON_DNS_SERVERS. */
  dns: string;
}

export async function runScenarios<T>(
  scenarios: readonly T[],
  run: (scenario: T, target: ProbeTarget) => Promise<Record<string, unknown>>,
): Promise<void> {
  const peer = spawn(process.execPath, ['--import', 'tsx', 'bench/probe-target.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const target = await new Promise<ProbeTarget>((resolve) =>
    createInterface({ input: peer.stdout! }).once('line', (l) => resolve(JSON.parse(l) as ProbeTarget)),
  );
  const rows: Record<string, unknown>[] = [];
  try {
    for (const s of scenarios) {
      const r = await run(s, target);
      console.log(JSON.stringify(r));
      rows.push(r);
    }
  } finally {
    peer.kill('SIGTERM');
  }
  const cols = Object.keys(rows[0] ?? {});
  console.log(`\n| ${cols.join(' | ')} |\n| ${cols.map(() => '---:').join(' | ')} |`);
  for (const r of rows) console.log(`| ${cols.map((c) => String(r[c] ?? '-')).join(' | ')} |`);
}
