// `dommon backup`, `restore`, `doctor`, `migrate`: keeping one installation healthy. The services they
// call (the store, the doctor's DNS, RDAP, WHOIS and SMTP clients) load when a command runs, not for --help.
import type { Command } from 'commander';
import type { MigrationState } from '../../services/maintenance.js';
import { table, UsageError } from '../output.js';
import { run } from '../run.js';
import { postgresNotYet } from '../../config/index.js';
import type { CliContext } from '../context.js';

export function opsCommands(program: Command): void {
  program
    .command('backup <file>')
    .description('write a consistent copy of the database to FILE (SQLite online backup; safe while the daemon runs)')
    .option('--force', 'overwrite FILE if it exists')
    .action(
      run(async (ctx, file: string, o: { force?: boolean }) => {
        if (ctx.config.database) return backupPostgres(ctx, file, Boolean(o.force));
        const { backupSqlite } = await import('../../services/maintenance.js');
        const out = await backupSqlite(ctx.config, file, o.force);
        ctx.print.out(
          out,
          () =>
            `backed up ${ctx.config.dbPath} to ${out.file} (${out.bytes} bytes, integrity ok, schema ${out.schema}, ${out.counts.domains ?? 0} domains, ${out.counts.endpoints ?? 0} endpoints)`,
        );
      }),
    );

  program
    .command('restore <file>')
    .description(
      'replace the database with FILE after an integrity check (refused while a daemon serves the data directory)',
    )
    .action(
      run(async (ctx, file: string) => {
        if (ctx.config.database) throw new UsageError(postgresNotYet('restore'));
        const { restoreSqlite } = await import('../../services/maintenance.js');
        const out = await restoreSqlite(ctx.config, file);
        ctx.print.out(
          out,
          () =>
            `restored ${file} into ${out.database}${out.previous ? ` (previous database kept as ${out.previous})` : ''}; schema ${out.schema}`,
        );
      }),
    );

  program
    .command('doctor')
    .description(
      'check the database (integrity, schema), the data directory and the configured DNS, RDAP, WHOIS and SMTP peers; exit 1 when a check fails',
    )
    .option('--timeout <ms>', 'per-peer timeout in milliseconds', '3000')
    .action(
      run(async (ctx, o: { timeout: string }) => {
        const timeoutMs = Number(o.timeout);
        if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
          throw new UsageError('--timeout must be a positive whole number of milliseconds');
        const { runDoctor } = await import('../../services/doctor.js');
        const report = await runDoctor(ctx.config, { timeoutMs });
        ctx.print.out(
          report,
          () =>
            `${table(
              report.checks.map((c) => ({ ...c, status: c.status.toUpperCase() })),
              ['status', 'name', 'detail'],
            )}\n${report.ok ? 'all checks passed' : `${report.checks.filter((c) => c.status === 'fail').length} check(s) failed`}`,
        );
        if (!report.ok) process.exitCode = 1;
      }),
    );

  program
    .command('migrate')
    .description(
      'apply pending database migrations (serve does this on start); --status lists applied and pending ones',
    )
    .option('--status', 'only list applied and pending migrations')
    .action(
      run(async (ctx, o: { status?: boolean }) => {
        if (ctx.config.database) return migratePostgres(ctx, Boolean(o.status));
        const { migrateSqlite } = await import('../../services/maintenance.js');
        const { info, vacuumEnabled } = await migrateSqlite(ctx.config, Boolean(o.status));
        await printMigrations(ctx, ctx.config.dbPath, info, { vacuum_enabled: vacuumEnabled });
      }),
    );
}

/** `dommon migrate`'s answer on either engine: applied, pending and unknown (newer) migrations; unknown ones fail. */
async function printMigrations(
  ctx: CliContext,
  database: string,
  info: MigrationState,
  extra: Record<string, unknown>,
): Promise<void> {
  const rows = [
    ...info.applied.map((a) => ({
      name: a.name,
      state: info.unknown.includes(a.name) ? 'unknown' : 'applied',
      applied_at: a.applied_at,
    })),
    ...info.pending.map((name) => ({ name, state: 'pending', applied_at: null })),
  ];
  const out = {
    database,
    ...extra,
    current: info.applied.at(-1)?.name ?? null,
    applied: info.applied,
    pending: info.pending,
    unknown: info.unknown,
    migrations: rows,
  };
  ctx.print.out(
    out,
    () => `${database}: ${out.current ?? 'no schema yet'}\n${table(rows, ['name', 'state', 'applied_at'])}`,
  );
  if (info.unknown.length) {
    const { OpsError } = await import('../../services/maintenance.js');
    throw new OpsError(`the database was migrated by a newer dommon (unknown: ${info.unknown.join(', ')})`, 500);
  }
}

/** `dommon migrate` on PostgreSQL (DOMMON_DATABASE_URL): the same sequence and output as on SQLite. */
async function migratePostgres(ctx: CliContext, statusOnly: boolean): Promise<void> {
  const { migratePostgres: migratePg } = await import('../../services/maintenance.js');
  const info = await migratePg(ctx.config, statusOnly);
  await printMigrations(ctx, ctx.config.database!.redacted, info, { engine: 'postgres', vacuum_enabled: false });
}

/**
 * `dommon backup` on PostgreSQL: pg_dump's custom format (restore with pg_restore) when pg_dump is on
 * PATH; the password travels in PGPASSWORD, never on a command line; without pg_dump, says what to run.
 */
async function backupPostgres(ctx: CliContext, file: string, force: boolean): Promise<void> {
  const db = ctx.config.database!;
  const { spawnSync } = await import('node:child_process');
  const fs = await import('node:fs');
  const version = spawnSync('pg_dump', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0)
    throw new UsageError(
      `pg_dump is not installed (Debian: apt-get install postgresql-client); run: pg_dump --format=custom --file ${file} "$DOMMON_DATABASE_URL"`,
    );
  const { OpsError } = await import('../../services/maintenance.js');
  if (fs.existsSync(file) && !force) throw new OpsError(`${file} exists; use --force to overwrite it`, 409);
  const u = new URL(db.url);
  const password = decodeURIComponent(u.password);
  u.password = '';
  const r = spawnSync('pg_dump', ['--format=custom', '--file', file, '--dbname', u.toString()], {
    encoding: 'utf8',
    env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
  });
  if (r.status !== 0)
    throw new OpsError(`pg_dump failed for ${db.redacted}: ${(r.stderr || '').trim().split('\n')[0] ?? ''}`, 500);
  const out = {
    file,
    bytes: fs.statSync(file).size,
    engine: 'postgres',
    database: db.redacted,
    tool: version.stdout.trim(),
  };
  ctx.print.out(
    out,
    () =>
      `backed up ${db.redacted} to ${file} (${out.bytes} bytes, ${out.tool}, custom format: restore with pg_restore)`,
  );
}
