// People's accounts (docs/accounts.md) and the memberships (users rows) that belong to each.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { Account, Membership } from '../../domain/types.js';
import { fromBool, newId, toBool } from './util.js';

const COLS = ['id', 'email', 'password_hash', 'created_at', 'disabled'] as const;

const account = (r: {
  id: string;
  email: string;
  password_hash: string | null;
  created_at: string;
  disabled: number;
}): Account & { password_hash: string | null } => ({ ...r, disabled: toBool(r.disabled) });

export function accountsRepo(db: Kysely<DB>) {
  return {
    /** The account of a case-folded e-mail, with its password hash (for the sign-in check only). */
    async byEmail(email: string): Promise<(Account & { password_hash: string | null }) | undefined> {
      const r = await db.selectFrom('accounts').select(COLS).where('email', '=', email).executeTakeFirst();
      return r && account(r);
    },
    async byId(id: string): Promise<(Account & { password_hash: string | null }) | undefined> {
      const r = await db.selectFrom('accounts').select(COLS).where('id', '=', id).executeTakeFirst();
      return r && account(r);
    },
    async count(): Promise<number> {
      const r = await db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async create(email: string, now: string, passwordHash: string | null = null): Promise<Account> {
      const a = { id: newId(), email, created_at: now, disabled: false };
      await db
        .insertInto('accounts')
        .values({ ...a, password_hash: passwordHash, disabled: fromBool(false) })
        .execute();
      return a;
    },
    async setPassword(id: string, passwordHash: string): Promise<void> {
      await db.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', id).execute();
    },
    async setDisabled(id: string, disabled: boolean): Promise<void> {
      await db
        .updateTable('accounts')
        .set({ disabled: fromBool(disabled) })
        .where('id', '=', id)
        .execute();
    },
    /** Links a membership to its account. */
    async link(userId: string, accountId: string): Promise<void> {
      await db.updateTable('users').set({ account_id: accountId }).where('id', '=', userId).execute();
    },
    /** The account's memberships: the teams the person may act in, by team name. */
    async memberships(accountId: string): Promise<Membership[]> {
      return db
        .selectFrom('users as u')
        .innerJoin('teams as tm', 'tm.id', 'u.team_id')
        .select(['u.id as user_id', 'u.team_id', 'tm.name as team_name'])
        .where('u.account_id', '=', accountId)
        .orderBy('tm.name')
        .execute();
    },
  };
}
