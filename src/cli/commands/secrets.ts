// `dommon secrets rotate-key`: the channel secrets in the database sealed again under a new key.
import type { Command } from 'commander';
import { run } from '../run.js';
import { withExamples } from '../spec.js';

export function secretsCommands(program: Command): void {
  const secrets = program
    .command('secrets')
    .description('the key that seals channel secrets in the database (DIR/secret.key or DOMMON_SECRET_KEY)');
  const rotate = secrets.command('rotate-key');
  withExamples(rotate, [
    'dommon --data-dir /var/lib/dommon secrets rotate-key',
    'DOMMON_SECRET_KEY="$NEW,$OLD" dommon --database-url postgres://dommon@db.internal/dommon secrets rotate-key',
  ]);
  rotate
    .description(
      'seal every stored channel secret again, in one transaction: with a key file, under a new key written to it (the old one is kept until done); with DOMMON_SECRET_KEY="NEW,OLD", under its first key',
    )
    .action(
      run(async (ctx) => {
        const { rotateSecretKey } = await import('../../services/secrets.js');
        const r = await rotateSecretKey(ctx.config);
        ctx.print.out(
          r,
          () =>
            `resealed ${r.resealed} channel config(s) under key ${r.key_id} (${r.source}); ${
              r.source === 'DOMMON_SECRET_KEY'
                ? 'now set DOMMON_SECRET_KEY to the first key alone on every node'
                : 'copy the key file to every node of this database and to your key backup'
            }`,
        );
      }),
    );
}
