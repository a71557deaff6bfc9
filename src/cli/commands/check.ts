// `dommon check TARGET...`: one-shot checks for cron and CI, no database; exit 0 healthy, 1 warning, 2 critical.
import fs from 'node:fs';
import type { Command } from 'commander';
import { run } from '../run.js';
import { UsageError } from '../output.js';
import { addOptions, convert, withExamples, type OptSpec } from '../spec.js';
import { CHECK_KINDS, type CheckKind } from '../../domain/check.js';

const options: OptSpec[] = [
  { flags: '--file <file>', description: 'read more targets from a file, one per line (- for stdin)' },
  {
    flags: '--warn-days <n>',
    description: 'warning when a registration or certificate expires within N days',
    kind: 'int',
    default: '30',
  },
  {
    flags: '--crit-days <n>',
    description: 'critical when it expires within N days (or has expired)',
    kind: 'int',
    default: '7',
  },
  {
    flags: '--min-security <score>',
    description: 'warning when the DNS security score (0-100) is below this',
    kind: 'int',
    default: '50',
  },
  {
    flags: '--expect-status <code>',
    description: 'HTTP status liveness expects (default: any 2xx or 3xx)',
    kind: 'int',
  },
  {
    flags: '--checks <list>',
    description: `comma list of checks to run (${CHECK_KINDS.join(', ')}; default all)`,
    kind: 'list',
  },
  {
    flags: '--timeout <s>',
    description: 'seconds per network step (handshake, request, connect); a registration look-up gets twice that',
    kind: 'int',
    default: '10',
  },
  { flags: '--ca <file>', description: 'also trust the CA certificate(s) in this PEM file' },
];

function read(file: string): string {
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export function checkCommand(program: Command): void {
  const cmd = program
    .command('check')
    .argument(
      '[targets...]',
      'domains (example.com), URLs (https://host:port/path, smtp://host:port, imap://host:port, icmp://host) or host:port',
    )
    .description(
      'check domains, URLs or host:port now (registration, TLS, DNS security, liveness); no database; exit 0 healthy, 1 warning, 2 critical',
    );
  addOptions(cmd, options);
  withExamples(cmd, [
    'dommon check example.com',
    'dommon check https://example.com/health mail.example.com:993 --warn-days 21 --crit-days 7',
    'dommon check example.com --checks registration,dns-security --min-security 80',
    'dommon check smtp://mail.example.com:587 imap://mail.example.com:993 --checks tls,liveness',
    'dommon check icmp://gw.example.com --checks liveness',
    'dommon check --file targets.txt --json > report.json || echo "needs attention: exit $?"',
  ]);
  cmd.action(
    run(async (ctx, targets: string[], o: Record<string, unknown>) => {
      const int = (flag: string, v: unknown) => convert('int', v, flag) as number | undefined;
      const warnDays = int('--warn-days', o.warnDays)!;
      const critDays = int('--crit-days', o.critDays)!;
      const minSecurity = int('--min-security', o.minSecurity)!;
      const expectStatus = int('--expect-status', o.expectStatus) ?? null;
      const timeout = int('--timeout', o.timeout)!;
      if (critDays < 0) throw new UsageError('--crit-days must not be negative');
      if (critDays > warnDays) throw new UsageError('--crit-days must not be larger than --warn-days');
      if (minSecurity < 0 || minSecurity > 100) throw new UsageError('--min-security must be between 0 and 100');
      if (expectStatus !== null && (expectStatus < 100 || expectStatus > 599))
        throw new UsageError('--expect-status must be an HTTP status (100-599)');
      if (timeout < 1) throw new UsageError('--timeout must be at least 1 second');
      const kinds = (convert('list', o.checks, '--checks') as string[] | undefined) ?? [...CHECK_KINDS];
      const unknown = kinds.filter((k) => !(CHECK_KINDS as readonly string[]).includes(k));
      if (unknown.length)
        throw new UsageError(`unknown check(s): ${unknown.join(', ')} (known: ${CHECK_KINDS.join(', ')})`);
      // loaded here so that other commands do not pay for the probes; no database is opened (app.js loads
      // its database modules only when a database mode asks)
      const [{ runChecks }, { collectTargets }, { reportText }, { createCheckEngine }] = await Promise.all([
        import('../check/index.js'),
        import('../check/targets.js'),
        import('../check/report.js'),
        import('../../app.js'),
      ]);
      const list = collectTargets(targets, o.file ? read(String(o.file)) : null);
      const ca = o.ca ? [read(String(o.ca))] : [];
      const timeoutMs = timeout * 1000;
      const engine = createCheckEngine(ctx.config, { ca, registrationBudgetMs: Math.min(20_000, 2 * timeoutMs) });
      try {
        const report = await runChecks(list, engine, kinds as CheckKind[], {
          warnDays,
          critDays,
          minSecurity,
          expectedStatus: expectStatus,
          timeoutMs,
          now: () => new Date(),
        });
        ctx.print.out(report, () => reportText(report, ctx.print.paint));
        process.exitCode = report.exit_code;
      } finally {
        engine.close();
      }
    }),
  );
}
