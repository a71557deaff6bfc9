// The text report of `dommon check`: one line per target (status, health grade), one per check.
import { healthLine } from '../../domain/health.js';
import type { Palette } from '../output.js';
import type { CheckReport } from './index.js';

export function reportText(r: CheckReport, paint: Palette): string {
  const label = (s: string) => {
    const up = s.toUpperCase().padEnd(8);
    return s === 'critical'
      ? paint.red(up)
      : s === 'warning'
        ? paint.yellow(up)
        : s === 'ok'
          ? paint.green(up)
          : paint.dim(up);
  };
  const lines: string[] = [];
  for (const t of r.targets) {
    const grade = t.health.grade ? paint.dim(`  health ${t.health.score} (${t.health.grade})`) : '';
    lines.push(`${label(t.status)}  ${paint.bold(t.target)}${grade}`);
    const w = Math.max(...t.checks.map((c) => c.check.length), 8);
    for (const c of t.checks) lines.push(`          ${c.check.padEnd(w)}  ${label(c.status)}  ${c.summary}`);
    // Below an A (or with no grade for a name), the reasons: what cost points, what was left out.
    if (t.health.grade ? t.health.grade !== 'A' : t.kind !== 'hostport' && t.domain)
      lines.push(`          ${paint.dim(healthLine(t.health))}`);
  }
  const s = r.summary;
  lines.push(
    paint.dim(
      `${r.targets.length} target(s): ${s.ok} ok, ${s.warning} warning, ${s.critical} critical -> exit ${r.exit_code}`,
    ),
  );
  return lines.join('\n');
}
