// People's accounts (docs/accounts.md): an e-mail (case-folded, unique) and a scrypt password hash
// (services/passwords.ts); the teams a person belongs to are the memberships (users rows) linked to
// the account. A sign-in answers the same, in the same time, whether the e-mail is unknown, has no
// password yet, is disabled or the password is wrong: the password is hashed in every case (with
// no hash to check, against the decoy: services/passwords.ts).
import { Conflict, Forbidden, Invalid } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import { foldEmail, isEmail } from '../domain/email.js';
import type { Account, Membership, Principal } from '../domain/types.js';
import type { ServiceDeps } from './deps.js';
import { checkPassword, createPasswords } from './passwords.js';
import { sessionHash } from './sessions.js';

export function createAccountService({
  store,
  clock,
  audit,
  passwordCost,
}: Pick<ServiceDeps, 'store' | 'clock' | 'audit' | 'passwordCost'>) {
  const passwords = createPasswords(passwordCost);
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
      const ok = a?.password_hash ? await passwords.verify(password, a.password_hash) : await passwords.decoy(password);
      if (!a || !a.password_hash || !ok || a.disabled) return null;
      const ms = await store.accounts.memberships(a.id);
      const membership = team === undefined ? ms[0] : ms.find((m) => m.team_name === team);
      if (!membership) return null;
      if (passwords.needsRehash(a.password_hash))
        await store.accounts.setPassword(a.id, await passwords.hash(password));
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
      await store.accounts.setPassword(accountId, await passwords.hash(password));
    },

    /**
     * A person changes their own password (the dashboard's Account page): the current one proves them,
     * the new one must be a valid password and differ from it. Every other session of the account, in
     * any of its teams and on every node, ends; the session `keepSession` (the one asking) stays, and
     * sessions made from the person's API tokens stay (as with `users set-password`). A failed check of
     * the current password is 403 PASSWORD_WRONG, which the caller counts as a failed sign-in.
     */
    async changePassword(
      p: Principal,
      current: string,
      next: string,
      keepSession: string,
    ): Promise<{ ended_sessions: number }> {
      if (p.account_id === undefined)
        throw new Forbidden(
          "a password belongs to a person's account: sign in to the dashboard with your e-mail and password (or a passkey, or single sign-on), not with an API token",
          'ACCOUNT_SESSION_REQUIRED',
        );
      try {
        checkPassword(next);
      } catch (err) {
        throw new Invalid(`new_password: ${(err as Error).message}`, 'PASSWORD_INVALID');
      }
      const a = await store.accounts.byId(p.account_id);
      if (!a?.password_hash)
        throw new Conflict(
          'current_password: your account has no password yet (you sign in with single sign-on or a passkey): "Forgot your password?" on the sign-in page, or an owner\'s password link, sets one',
          'NO_PASSWORD',
        );
      if (!(await passwords.verify(current, a.password_hash)))
        throw new Forbidden('current_password: this is not your current password', 'PASSWORD_WRONG');
      if (next === current) throw new Invalid('new_password: is the same as the current one', 'PASSWORD_UNCHANGED');
      const hash = await passwords.hash(next);
      const accountId = p.account_id;
      return store.transaction(async (tx) => {
        await tx.accounts.setPassword(accountId, hash);
        const ended = await tx.webSessions.removeForAccount(accountId, sessionHash(keepSession));
        await audit?.record(tx, p.team_id, {
          action: 'update',
          kind: 'user',
          id: p.user_id,
          name: p.user_email,
          before: { password: 'set' },
          after: { password: 'set', via: 'account settings', ended_sessions: ended },
        });
        return { ended_sessions: ended };
      });
    },

    /** Links a membership (a users row of the same e-mail) to its account. */
    link: (userId: string, accountId: string) => store.accounts.link(userId, accountId),

    memberships: (accountId: string): Promise<Membership[]> => store.accounts.memberships(accountId),

    /** How many accounts exist (none: `serve` offers a set-up link). */
    count: () => store.accounts.count(),
  };
}
