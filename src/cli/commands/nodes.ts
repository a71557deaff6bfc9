// `dommon nodes`: the `dommon serve` processes on this database (GET /api/v1/nodes with --remote).
// Not a team's resource, so on the local database it needs no team.
import type { Command } from 'commander';
import { call, openTransport } from '../transport.js';
import { table, type Palette } from '../output.js';
import { run } from '../run.js';
import { withExamples } from '../spec.js';
import type { NodeDetails, NodeSummary } from '../../services/nodes.js';

type NodeAnswer = NodeDetails | NodeSummary;

function nodesText(r: NodeAnswer, paint: Palette): string {
  const counts = paint.dim(`${r.live} live, ${r.total - r.live} stale`);
  // A team's token (over --remote) reads counts and regions only.
  if (!('data' in r) || !r.data)
    return `${table(r.regions ?? [], ['region', 'nodes', 'live'], paint)}\n${counts} (node details need an operator token)`;
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
  )}\n${counts}`;
}

export function nodesCommand(program: Command): void {
  const cmd = program
    .command('nodes')
    .description(
      'list the dommon serve processes (nodes) on this database: role, region, version, heartbeat, work claimed, checks per minute; stale after 30 s without a heartbeat',
    )
    .action(
      run(async (ctx) => {
        let list: NodeAnswer;
        if (ctx.config.remoteUrl) {
          const t = await openTransport(ctx);
          try {
            list = await call<NodeAnswer>(t, 'GET', '/api/v1/nodes');
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
