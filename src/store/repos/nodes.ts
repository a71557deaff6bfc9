// The node list: each `dommon serve` process upserts its own row (its heartbeat); every node prunes
// rows whose heartbeat stopped long ago.
import type { Kysely, Selectable } from 'kysely';
import type { DB, NodesTable } from '../schema.js';
import type { NodeRecord } from '../../domain/types.js';

// The singletons a node runs are stored as one comma-separated column.
const toNode = (r: Selectable<NodesTable>): NodeRecord => ({
  ...r,
  singletons: r.singletons ? r.singletons.split(',') : [],
});

export function nodesRepo(db: Kysely<DB>) {
  return {
    /** Writes this node's row (inserted on the first heartbeat, replaced after). */
    async heartbeat(node: NodeRecord): Promise<void> {
      const row = { ...node, singletons: node.singletons.join(',') };
      const { name: _name, ...rest } = row;
      await db
        .insertInto('nodes')
        .values(row)
        .onConflict((oc) => oc.column('name').doUpdateSet(rest))
        .execute();
    },
    async get(name: string): Promise<NodeRecord | undefined> {
      const r = await db.selectFrom('nodes').selectAll().where('name', '=', name).executeTakeFirst();
      return r && toNode(r);
    },
    async list(): Promise<NodeRecord[]> {
      return (await db.selectFrom('nodes').selectAll().orderBy('name').execute()).map(toNode);
    },
    /** Removes this node's row on a clean stop (not a row another process with the same name wrote since). */
    async remove(name: string, host: string, pid: number): Promise<void> {
      await db.deleteFrom('nodes').where('name', '=', name).where('host', '=', host).where('pid', '=', pid).execute();
    },
    /** Removes rows whose last heartbeat is older than `before` (ISO); returns how many. */
    async prune(before: string): Promise<number> {
      const r = await db.deleteFrom('nodes').where('last_heartbeat', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
