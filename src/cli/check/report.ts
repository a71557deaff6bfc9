// Runs the checks over every target and grades the run: exit 0 healthy, 1 warning, 2 critical (worst target).
import { SEVERITIES, type CheckFn, type CheckKind, type CheckOptions, type CheckResult, type Severity, type Target } from './types.js';
import type { Palette } from '../output.js';
import { mapLimit } from '../../domain/concurrency.js';

export interface TargetReport {
  target: string;
  kind: Target['kind'];
  host: string;
  port: number;
  url: string | null;
  status: Severity;
  checks: CheckResult[];
}

export interface CheckReport {
  status: 'healthy' | 'warning' | 'critical';
  exit_code: 0 | 1 | 2;
  checked_at: string;
  warn_days: number;
  crit_days: number;
  summary: Record<'ok' | 'warning' | 'critical', number>;
  targets: TargetReport[];
}

export const worst = (list: Severity[]): Severity => list.reduce<Severity>((w, s) => (SEVERITIES.indexOf(s) > SEVERITIES.indexOf(w) ? s : w), 'skipped');

export function exitCode(s: Severity): 0 | 1 | 2 {
  return s === 'critical' ? 2 : s === 'warning' ? 1 : 0;
}

export async function runChecks(targets: Target[], registry: Record<CheckKind, CheckFn>, kinds: CheckKind[], o: CheckOptions): Promise<CheckReport> {
  const reports = await mapLimit(targets, 8, async (t): Promise<TargetReport> => {
    const results = await Promise.all(kinds.map(async (k) => {
      try {
        return await registry[k](t, o);
      } catch (err) {
        // A check that throws is a bug in the check, reported as critical rather than crashing the run.
        return { check: k, status: 'critical', summary: `check failed: ${(err as Error).message}`, details: {} } satisfies CheckResult;
      }
    }));
    const checks = results.filter((r): r is CheckResult => r !== null);
    const s = worst(checks.map((c) => c.status));
    return { target: t.input, kind: t.kind, host: t.host, port: t.port, url: t.url, status: s === 'skipped' ? 'ok' : s, checks };
  });
  const overall = worst(reports.map((r) => r.status));
  const summary = { ok: 0, warning: 0, critical: 0 };
  for (const r of reports) summary[r.status === 'skipped' ? 'ok' : r.status]++;
  return {
    status: overall === 'critical' ? 'critical' : overall === 'warning' ? 'warning' : 'healthy',
    exit_code: exitCode(overall),
    checked_at: o.now().toISOString(),
    warn_days: o.warnDays,
    crit_days: o.critDays,
    summary,
    targets: reports,
  };
}

export function reportText(r: CheckReport, paint: Palette): string {
  const label = (s: string) => {
    const up = s.toUpperCase().padEnd(8);
    return s === 'critical' ? paint.red(up) : s === 'warning' ? paint.yellow(up) : s === 'ok' ? paint.green(up) : paint.dim(up);
  };
  const lines: string[] = [];
  for (const t of r.targets) {
    lines.push(`${label(t.status)}  ${paint.bold(t.target)}`);
    const w = Math.max(...t.checks.map((c) => c.check.length), 8);
    for (const c of t.checks) lines.push(`          ${c.check.padEnd(w)}  ${label(c.status)}  ${c.summary}`);
  }
  const s = r.summary;
  lines.push(paint.dim(`${r.targets.length} target(s): ${s.ok} ok, ${s.warning} warning, ${s.critical} critical -> exit ${r.exit_code}`));
  return lines.join('\n');
}
