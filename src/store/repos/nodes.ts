// The node list: each `dommon serve` process upserts its own row (its heartbeat); every node prunes
// rows whose heartbeat stopped long ago.
import type { Kysely, Selectable } from 'kysely';
import type { DB, NodesTable } from '../schema.js';

export type NodeRow = Selectable<NodesTable>;

export function nodesRepo(db: Kysely<DB>) {
  return {
    /** Writes this node's row (inserted on the first heartbeat, replaced after). */
    async heartbeat(row: NodeRow): Promise<void> {
      const { name: _name, ...rest } = row;
      await db
        .insertInto('nodes')
        .values(row)
        .onConflict((oc) => oc.column('name').doUpdateSet(rest))
        .execute();
    },
    async get(name: string): Promise<NodeRow | undefined> {
      return db.selectFrom('nodes').selectAll().where('name', '=', name).executeTakeFirst();
    },
    async list(): Promise<NodeRow[]> {
      return db.selectFrom('nodes').selectAll().orderBy('name').execute();
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
