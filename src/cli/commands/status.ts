// `dommon status`: the live Ink dashboard (local database or --remote); --once prints one frame.
import { stripVTControlCharacters } from 'node:util';
import type { Command } from 'commander';
import { run } from '../run.js';
import { colorEnabled, UsageError } from '../output.js';
import { addOptions, convert, withExamples, type OptSpec } from '../spec.js';
import { openTransport } from '../transport.js';

const options: OptSpec[] = [
  { flags: '--once', description: 'print one frame and exit (with --json: the data as one JSON document)' },
  { flags: '--interval <s>', description: 'seconds between refreshes', kind: 'int', default: '5' },
  {
    flags: '--width <n>',
    description: 'columns of the --once frame (default: the terminal width, else 120)',
    kind: 'int',
  },
];

export function statusCommand(program: Command): void {
  const cmd = program
    .command('status')
    .description(
      'live dashboard of every domain and endpoint (keys: arrows/j/k move, / filter, s sort, Enter detail, r refresh, q quit)',
    );
  addOptions(cmd, options);
  withExamples(cmd, [
    'dommon status',
    'dommon --remote http://127.0.0.1:8080 --token "$TOKEN" status --interval 10',
    'dommon status --once | grep -i down',
  ]);
  cmd.action(
    run(async (ctx, o: Record<string, unknown>) => {
      const interval = convert('int', o.interval, '--interval') as number;
      if (interval < 1) throw new UsageError('--interval must be at least 1 second');
      const { apiSource } = await import('../../tui/api-source.js');
      const t = await openTransport(ctx);
      const source = apiSource(
        (m, p) => t.request(m, p),
        () => t.close(),
      );
      try {
        if (ctx.print.json) return ctx.print.out(await source.load());
        // ink and react load only to draw: every other command (and --json) starts faster without them
        const [{ createElement }, { render, renderToString }, { Dashboard, StatusApp }] = await Promise.all([
          import('react'),
          import('ink'),
          import('../../tui/index.js'),
        ]);
        if (o.once) {
          const snapshot = await source.load();
          const columns = (convert('int', o.width, '--width') as number | undefined) ?? process.stdout.columns ?? 120;
          const color = colorEnabled(process.stdout);
          const frame = renderToString(createElement(Dashboard, { snapshot, now: new Date(), color, static: true }), {
            columns,
          });
          process.stdout.write(`${color ? frame : stripVTControlCharacters(frame)}\n`);
          return;
        }
        if (!process.stdin.isTTY || !process.stdout.isTTY)
          throw new UsageError('status needs a terminal; use --once or --json in scripts');
        const app = render(
          createElement(StatusApp, { source, intervalMs: interval * 1000, color: colorEnabled(process.stdout) }),
        );
        await app.waitUntilExit();
      } finally {
        await source.close();
      }
    }),
  );
}
