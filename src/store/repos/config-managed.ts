// Which objects a configuration file manages (`dommon serve --config`): kind + id -> the file.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';
import { LOCK_CLASS } from '../singletons.js';

/** pg_advisory_xact_lock(LOCK_CLASS, APPLY_LOCK): configuration applies, one at a time across nodes. */
const APPLY_LOCK = 1001;

interface ManagedMark {
  kind: string;
  object_id: string;
  source: string;
  editable: boolean;
}

/** Rows per insert: far below either engine's bound-parameter limit. */
const CHUNK = 500;

export function configManagedRepo(db: Kysely<DB>, engine: 'sqlite' | 'postgres') {
  const toMark = (r: { kind: string; object_id: string; source: string; editable: number }): ManagedMark => ({
    ...r,
    editable: r.editable === 1,
  });
  return {
    /**
     * Call first in an apply's transaction: on PostgreSQL, nodes applying the same file take turns, and
     * each after the first finds the setup already made (nothing to change). SQLite has one writer.
     */
    async lockApply(): Promise<void> {
      if (engine === 'postgres') await sql`select pg_advisory_xact_lock(${LOCK_CLASS}, ${APPLY_LOCK})`.execute(db);
    },
    async get(kind: string, objectId: string): Promise<ManagedMark | undefined> {
      const r = await db
        .selectFrom('config_managed')
        .select(['kind', 'object_id', 'source', 'editable'])
        .where('kind', '=', kind)
        .where('object_id', '=', objectId)
        .executeTakeFirst();
      return r && toMark(r);
    },
    /** The marks of one kind among `ids` (reads show which objects a file manages). */
    async among(kind: string, ids: readonly string[]): Promise<Map<string, ManagedMark>> {
      const out = new Map<string, ManagedMark>();
      for (let i = 0; i < ids.length; i += CHUNK) {
        const part = ids.slice(i, i + CHUNK);
        if (!part.length) break;
        const rows = await db
          .selectFrom('config_managed')
          .select(['kind', 'object_id', 'source', 'editable'])
          .where('kind', '=', kind)
          .where('object_id', 'in', part)
          .execute();
        for (const r of rows) out.set(r.object_id, toMark(r));
      }
      return out;
    },
    async ofTeam(teamId: string): Promise<ManagedMark[]> {
      const rows = await db
        .selectFrom('config_managed')
        .select(['kind', 'object_id', 'source', 'editable'])
        .where('team_id', '=', teamId)
        .execute();
      return rows.map(toMark);
    },
    /**
     * Makes `source`'s marks exactly `want` (kind + id), each with `editable`; a mark of another file on
     * one of them moves to this one. Writes only what differs: a file applied again unchanged writes nothing.
     */
    async sync(
      teamId: string,
      source: string,
      editable: boolean,
      want: readonly { kind: string; object_id: string }[],
    ): Promise<void> {
      const have = await db
        .selectFrom('config_managed')
        .select(['kind', 'object_id', 'source', 'editable'])
        .where('team_id', '=', teamId)
        .execute();
      const key = (k: string, id: string) => `${k}\u0000${id}`;
      const haveBy = new Map(have.map((r) => [key(r.kind, r.object_id), r]));
      const wantKeys = new Set(want.map((w) => key(w.kind, w.object_id)));
      for (const r of have)
        if (r.source === source && !wantKeys.has(key(r.kind, r.object_id)))
          await db
            .deleteFrom('config_managed')
            .where('kind', '=', r.kind)
            .where('object_id', '=', r.object_id)
            .execute();
      const flag = editable ? 1 : 0;
      const fresh: { kind: string; object_id: string; team_id: string; source: string; editable: number }[] = [];
      for (const w of want) {
        const cur = haveBy.get(key(w.kind, w.object_id));
        if (!cur) fresh.push({ ...w, team_id: teamId, source, editable: flag });
        else if (cur.source !== source || cur.editable !== flag)
          await db
            .updateTable('config_managed')
            .set({ source, editable: flag })
            .where('kind', '=', w.kind)
            .where('object_id', '=', w.object_id)
            .execute();
      }
      for (let i = 0; i < fresh.length; i += CHUNK)
        await db
          .insertInto('config_managed')
          .values(fresh.slice(i, i + CHUNK))
          .execute();
    },
  };
}
