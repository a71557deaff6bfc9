// People's accounts (docs/accounts.md): an e-mail (case-folded, unique) and a scrypt password hash
// (services/passwords.ts); the teams a person belongs to are the memberships (users rows) linked to
// the account. A sign-in answers the same, in the same time, whether the e-mail is unknown, has no
// password yet, is disabled or the password is wrong: the password is hashed in every case (an
// unknown e-mail against DECOY).
import { Invalid } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import { foldEmail, isEmail } from '../domain/email.js';
import type { Account, Membership } from '../domain/types.js';
import type { ServiceDeps } from './deps.js';
import { checkPassword, hashPassword, needsRehash, verifyPassword } from './passwords.js';

/**
 * What an unknown e-mail's password is checked against: the hash of a random password nobody kept,
 * made with PASSWORD_PARAMS (raise them together, so it costs what a real account's check does).
 */
const DECOY = '$scrypt$ln=17,r=8,p=1$L8WZYCypf5OlEU8c0IqbsQ$WRuOwXja04dMpHSCK9v0i_Zhj27kwG2ILqzZMfnPbXg';

export function createAccountService({ store, clock }: Pick<ServiceDeps, 'store' | 'clock'>) {
  return {
    /**
     * Checks an e-mail and password; the membership to sign in to (the team named, else the first by
     * name) with its account, or null for any failure (unknown, no password, disabled, wrong, or no
     * team).
     */
    async signIn(
      email: string,
      password: string,
      team?: string,
    ): Promise<{ account: Account; membership: Membership } | null> {
      const a = await store.accounts.byEmail(foldEmail(email));
      const ok = await verifyPassword(password, a?.password_hash ?? DECOY);
      if (!a || !a.password_hash || !ok || a.disabled) return null;
      const ms = await store.accounts.memberships(a.id);
      const membership = team === undefined ? ms[0] : ms.find((m) => m.team_name === team);
      if (!membership) return null;
      if (needsRehash(a.password_hash)) await store.accounts.setPassword(a.id, await hashPassword(password));
      const { password_hash: _, ...account } = a;
      return { account, membership };
    },

    /** The account of an e-mail, made (without a password) when there is none. */
    async ensure(email: string): Promise<Account> {
      const e = foldEmail(email);
      if (!isEmail(e)) throw new Invalid(`"${email}" is not an e-mail address`);
      const found = await store.accounts.byEmail(e);
      if (found) {
        const { password_hash: _, ...a } = found;
        return a;
      }
      return store.accounts.create(e, isoNow(clock));
    },

    async setPassword(accountId: string, password: string): Promise<void> {
      checkPassword(password);
      await store.accounts.setPassword(accountId, await hashPassword(password));
    },

    /** Links a membership (a users row of the same e-mail) to its account. */
    link: (userId: string, accountId: string) => store.accounts.link(userId, accountId),

    memberships: (accountId: string): Promise<Membership[]> => store.accounts.memberships(accountId),

    /** How many accounts exist (none: `serve` offers a set-up link). */
    count: () => store.accounts.count(),
  };
}
