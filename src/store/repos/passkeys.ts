// Passkeys (WebAuthn credentials) of accounts and the challenges handed out for them
// (services/passkeys.ts, docs/accounts.md#passkeys). A challenge is taken (deleted) by the one
// request that uses it, so it is good once on every node.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { Passkey } from '../../domain/types.js';
import { newId } from './util.js';

const COLS = [
  'id',
  'account_id',
  'credential_id',
  'name',
  'transports',
  'sign_count',
  'created_at',
  'last_used_at',
] as const;

type Row = Omit<Passkey, 'transports' | 'sign_count'> & { transports: string; sign_count: number | string };
const passkey = (r: Row): Passkey => ({
  ...r,
  transports: JSON.parse(r.transports) as string[],
  sign_count: Number(r.sign_count),
});

type ChallengePurpose = 'register' | 'sign-in';

export function passkeysRepo(db: Kysely<DB>) {
  return {
    async list(accountId: string): Promise<Passkey[]> {
      const rows = await db
        .selectFrom('passkeys')
        .select(COLS)
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(passkey);
    },
    /** A passkey by its credential id, with its public key (for the sign-in check only). */
    async byCredential(credentialId: string): Promise<(Passkey & { public_key: string }) | undefined> {
      const r = await db
        .selectFrom('passkeys')
        .select([...COLS, 'public_key'])
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
      return r && { ...passkey(r), public_key: r.public_key };
    },
    async create(p: Omit<Passkey, 'id' | 'last_used_at'> & { public_key: string }): Promise<Passkey> {
      const id = newId();
      await db
        .insertInto('passkeys')
        .values({ ...p, id, transports: JSON.stringify(p.transports), last_used_at: null })
        .execute();
      const { public_key: _, ...rest } = p;
      return { ...rest, id, last_used_at: null };
    },
    /** Removes one of the account's passkeys; the removed one, or undefined when it has none of that id. */
    async remove(accountId: string, id: string): Promise<Passkey | undefined> {
      const r = await db
        .deleteFrom('passkeys')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .returning(COLS)
        .executeTakeFirst();
      return r && passkey(r);
    },
    /** Records a sign-in: the counter the authenticator reported and when. */
    async used(id: string, signCount: number, at: string): Promise<void> {
      await db.updateTable('passkeys').set({ sign_count: signCount, last_used_at: at }).where('id', '=', id).execute();
    },

    /** Stores a new challenge (and drops those that ran out). */
    async putChallenge(
      c: { challenge: string; purpose: ChallengePurpose; account_id: string | null; expires_at: number },
      now: number,
    ): Promise<void> {
      await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
      await db.insertInto('webauthn_challenges').values(c).execute();
    },
    /** How many challenges are outstanding (a bound on what unauthenticated callers may make). */
    async outstanding(now: number): Promise<number> {
      const r = await db
        .selectFrom('webauthn_challenges')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /**
     * Takes a challenge: deletes it and answers whether it was there for this purpose (and account),
     * unexpired. A second take of the same challenge, on any node, answers false.
     */
    async takeChallenge(
      challenge: string,
      purpose: ChallengePurpose,
      accountId: string | null,
      now: number,
    ): Promise<boolean> {
      const r = await db
        .deleteFrom('webauthn_challenges')
        .where('challenge', '=', challenge)
        .returning(['purpose', 'account_id', 'expires_at'])
        .executeTakeFirst();
      return !!r && r.purpose === purpose && r.account_id === accountId && Number(r.expires_at) > now;
    },
  };
}
