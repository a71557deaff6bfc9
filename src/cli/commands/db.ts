// `dommon db copy --to TARGET`: every row of this store (--data-dir's SQLite file, or --database-url's
// PostgreSQL) into an empty one; a progress bar on a terminal's stderr, the counts per table at the end.
import type { Command } from 'commander';
import { progress, table, UsageError } from '../output.js';
import { run } from '../run.js';
import { withExamples } from '../spec.js';

export function dbCommands(program: Command): void {
  const db = program.command('db').description('move the database from one store to another');
  const copy = db.command('copy');
  withExamples(copy, [
    'dommon --data-dir /var/lib/dommon db copy --to postgres://dommon:secret@db.internal:5432/dommon',
    'dommon --database-url postgres://dommon:secret@db.internal/dommon db copy --to /var/lib/dommon-sqlite',
    'dommon --data-dir /var/lib/dommon db copy --to ./dommon-copy.db',
  ]);
  copy
    .description(
      'copy every row of the database (--data-dir or --database-url) into an empty one: a postgres:// URL, or a SQLite data directory or file; refuses a target that holds data, verifies the counts',
    )
    .requiredOption('--to <target>', 'postgres://user:password@host:port/db, or a data directory / file (sqlite:PATH)')
    .option('--batch-size <rows>', 'rows per read and per insert (fewer for wide tables)', '5000')
    .action(
      run(async (ctx, o: { to: string; batchSize: string }) => {
        const batchSize = Number(o.batchSize);
        if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000)
          throw new UsageError('--batch-size must be a whole number from 1 to 100000');
        const { copyDatabase } = await import('../../services/db-copy.js');
        let bar: ReturnType<typeof progress> | undefined;
        const r = await copyDatabase(ctx.config, o.to, {
          batchSize,
          warn: (line) => process.stderr.write(`dommon: ${line}\n`),
          onProgress: (done, total) => {
            bar ??= progress(total, 'copying');
            bar.update(done);
          },
        }).finally(() => bar?.done());
        const out = {
          from: r.from,
          to: r.to,
          engines: r.engines,
          rows: r.rows,
          counts: Object.fromEntries(r.tables.map((t) => [t.table, t.rows])),
          verified: true,
          ms: r.ms,
          secret_key: r.secret_key,
        };
        ctx.print.out(
          out,
          () =>
            `${table(r.tables, ['table', 'rows'])}\ncopied ${r.rows} rows from ${r.from} to ${r.to} in ${(r.ms / 1000).toFixed(1)} s; counts verified${r.secret_key ? `\n${r.secret_key}` : ''}`,
        );
      }),
    );
}
