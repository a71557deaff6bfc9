// One-time links (services/links.ts): looked up by the SHA-256 of the secret; used at most once (the
// use is one conditional update, so two requests racing with one link cannot both succeed).
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { LinkPurpose, OneTimeLink } from '../../domain/types.js';
import type { Role } from '../../domain/roles.js';
import { newId } from './util.js';

const COLS = [
  'id',
  'purpose',
  'email',
  'account_id',
  'team_id',
  'user_id',
  'role',
  'created_by',
  'created_at',
  'expires_at',
  'used_at',
] as const;

type Row = {
  [K in (typeof COLS)[number]]: K extends 'created_at' | 'expires_at' ? number | string : unknown;
};

const link = (r: Row): OneTimeLink => ({
  id: r.id as string,
  purpose: r.purpose as LinkPurpose,
  email: r.email as string | null,
  account_id: r.account_id as string | null,
  team_id: r.team_id as string | null,
  user_id: r.user_id as string | null,
  role: r.role as Role | null,
  created_by: r.created_by as string | null,
  created_at: Number(r.created_at),
  expires_at: Number(r.expires_at),
  used_at: r.used_at === null ? null : Number(r.used_at),
});

type NewLink = Omit<OneTimeLink, 'id' | 'used_at'> & { token_hash: string };

export function oneTimeLinksRepo(db: Kysely<DB>) {
  return {
    async create(l: NewLink): Promise<OneTimeLink> {
      const id = newId();
      await db
        .insertInto('one_time_links')
        .values({ ...l, id, used_at: null })
        .execute();
      const { token_hash: _, ...rest } = l;
      return { ...rest, id, used_at: null };
    },
    /** The link of a secret's hash, used or not, expired or not. */
    async byHash(tokenHash: string): Promise<OneTimeLink | undefined> {
      const r = await db
        .selectFrom('one_time_links')
        .select(COLS)
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return r && link(r);
    },
    /** Marks a link used, if it is still unused and live at `now`; false when another use came first. */
    async use(id: string, now: number): Promise<boolean> {
      const r = await db
        .updateTable('one_time_links')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** A team's unused, live links of one purpose, newest first. */
    async pending(teamId: string, purpose: LinkPurpose, now: number): Promise<OneTimeLink[]> {
      const rows = await db
        .selectFrom('one_time_links')
        .select(COLS)
        .where('team_id', '=', teamId)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(link);
    },
    async byId(id: string): Promise<OneTimeLink | undefined> {
      const r = await db.selectFrom('one_time_links').select(COLS).where('id', '=', id).executeTakeFirst();
      return r && link(r);
    },
    async remove(id: string): Promise<void> {
      await db.deleteFrom('one_time_links').where('id', '=', id).execute();
    },
    /** Drops the unused links of a purpose (and of an account, when given): a new one replaces them. */
    async removeUnused(purpose: LinkPurpose, accountId?: string): Promise<number> {
      let q = db.deleteFrom('one_time_links').where('purpose', '=', purpose).where('used_at', 'is', null);
      if (accountId !== undefined) q = q.where('account_id', '=', accountId);
      const r = await q.executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Deletes links that ended before `before` (epoch ms): expired, or used (the retention job). */
    async prune(before: number): Promise<number> {
      const r = await db
        .deleteFrom('one_time_links')
        .where((eb) => eb.or([eb('expires_at', '<', before), eb('used_at', '<', before)]))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
