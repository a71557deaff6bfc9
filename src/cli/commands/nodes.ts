// `dommon nodes`: the `dommon serve` processes on this database (GET /api/v1/nodes with --remote).
// Not a team's resource, so on the local database it needs no team.
import type { Command } from 'commander';
import { call, openTransport } from '../transport.js';
import { table, type Palette } from '../output.js';
import { run } from '../run.js';
import { withExamples } from '../spec.js';
import type { NodeList } from '../../services/nodes.js';

function nodesText(r: NodeList, paint: Palette): string {
  const rows = r.data.map((n) => ({ ...n, heartbeat: `${n.heartbeat_age_seconds}s ago` }));
  return `${table(
    rows,
    [
      'name',
      'role',
      'region',
      'status',
      'version',
      'heartbeat:LAST HEARTBEAT',
      'work_claimed:CLAIMED',
      'checks_per_minute:CHECKS/MIN',
      'host',
      'pid',
    ],
    paint,
  )}\n${paint.dim(`${r.live} live, ${r.total - r.live} stale`)}`;
}

export function nodesCommand(program: Command): void {
  const cmd = program
    .command('nodes')
    .description(
      'list the dommon serve processes (nodes) on this database: role, region, version, heartbeat, work claimed, checks per minute; stale after 30 s without a heartbeat',
    )
    .action(
      run(async (ctx) => {
        let list: NodeList;
        if (ctx.config.remoteUrl) {
          const t = await openTransport(ctx);
          try {
            list = await call<NodeList>(t, 'GET', '/api/v1/nodes');
          } finally {
            await t.close();
          }
        } else {
          list = await (await ctx.local()).services.nodes.list();
        }
        ctx.print.out(list, () => nodesText(list, ctx.print.paint));
      }),
    );
  withExamples(cmd, ['dommon --database-url postgres://dommon@db/dommon nodes', 'dommon nodes --json']);
}
