// One-time links (docs/accounts.md#one-time-links): a random secret (32 bytes, base64url) that only
// the link holds; the database keeps its SHA-256 and what the link may do:
// - setup: the first owner (printed by `serve` while no account exists): an e-mail, a team, a password;
// - sign-in: a member made by `dommon users add` sets a password (or keeps theirs) and is signed in;
// - invitation: an owner invites an e-mail with a role; accepting makes the account (or links the
//   person's existing one) and the membership;
// - reset: a new password for an account; every other session of the account ends.
// A link works once (the use is one conditional update), for LINK_TTL_MS, and only while what it is
// bound to exists. A link that is unknown, used, expired or replaced answers the same.
import { createHash, randomBytes } from 'node:crypto';
import { Conflict, Forbidden, Invalid, NotFound, ServiceError } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import { foldEmail, isEmail } from '../domain/email.js';
import { LINK_TTL_MS, linkUrl } from '../domain/one-time-link.js';
import { roleAllows, type Role } from '../domain/roles.js';
import type { LinkPurpose, OneTimeLink, Principal } from '../domain/types.js';
import type { Repos } from '../store/index.js';
import { escapeHtml } from '../domain/html.js';
import type { SendContext } from '../channels/types.js';
import type { ServiceDeps } from './deps.js';
import { checkPassword, createPasswords } from './passwords.js';

/** 32 random bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const MAIL_TIMEOUT_MS = 15_000;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** How the SMTP relay is reached (DOMMON_SMTP_URL, DOMMON_SMTP_FROM, DOMMON_SMTP_TLS): the e-mail channel's send context without its timing. */
export type MailContext = Omit<SendContext, 'timeoutMs' | 'signal'>;

/** An invitation to an existing account used without that account's password: a failed sign-in. */
class WrongPassword extends ServiceError {
  constructor(email: string) {
    super(
      'unauthorized',
      `${email} already has a dommon account: enter its password to accept the invitation (it stays as it is)`,
      'PASSWORD_WRONG',
    );
  }
}

/** A link that cannot be used: one answer for unknown, used, expired and replaced. */
class LinkInvalid extends ServiceError {
  constructor() {
    super(
      'not_found',
      'this link is not valid: it was used already, has expired or was replaced by a newer one',
      'LINK_INVALID',
    );
  }
}

/** What the page that opens a link shows before it is used. */
interface LinkView {
  purpose: LinkPurpose;
  /** The account's or invitee's e-mail (null for a set-up link: the page asks for it). */
  email: string | null;
  team: string | null;
  role: Role | null;
  /**
   * A password must be chosen (no account or no password yet, a reset), or may be (a sign-in link:
   * kept when empty), or the account's current one must be given (an invitation to an account that
   * has one: it proves the person, and stays).
   */
  password: 'required' | 'optional' | 'current';
  expires_at: string;
}

/** What the person sends when using a link: the password, and for a set-up link the e-mail and team. */
export interface LinkUse {
  password?: string;
  email?: string;
  team?: string;
}

/** A link just made: its secret (shown once), with what it is bound to. */
interface IssuedLink {
  id: string;
  token: string;
  purpose: LinkPurpose;
  email: string | null;
  team: string | null;
  role: Role | null;
  created_at: string;
  expires_at: string;
  /** Whether it went out by e-mail: null when not tried (no e-mail channel), else the outcome. */
  email_sent: boolean | null;
  email_error: string | null;
}

export function createLinkService({
  store,
  clock,
  audit,
  mail,
  log,
  passwordCost,
}: Pick<ServiceDeps, 'store' | 'clock' | 'audit' | 'passwordCost'> & {
  mail?: MailContext;
  log?: { warn(obj: object, msg: string): void };
}) {
  const passwords = createPasswords(passwordCost);
  const now = () => clock.now().getTime();

  async function issue(
    tx: Repos,
    purpose: LinkPurpose,
    bind: Partial<Pick<OneTimeLink, 'email' | 'account_id' | 'team_id' | 'user_id' | 'role' | 'created_by'>>,
  ): Promise<{ token: string; link: OneTimeLink }> {
    const token = randomBytes(32).toString('base64url');
    const at = now();
    const link = await tx.oneTimeLinks.create({
      purpose,
      email: bind.email ?? null,
      account_id: bind.account_id ?? null,
      team_id: bind.team_id ?? null,
      user_id: bind.user_id ?? null,
      role: bind.role ?? null,
      created_by: bind.created_by ?? null,
      created_at: at,
      expires_at: at + LINK_TTL_MS,
      token_hash: hashToken(token),
    });
    return { token, link };
  }

  const issued = (token: string, l: OneTimeLink, team: string | null): IssuedLink => ({
    id: l.id,
    token,
    purpose: l.purpose,
    email: l.email,
    team,
    role: l.role,
    created_at: new Date(l.created_at).toISOString(),
    expires_at: new Date(l.expires_at).toISOString(),
    email_sent: null,
    email_error: null,
  });

  /** The live link of a secret, or LinkInvalid. */
  async function live(token: string): Promise<OneTimeLink> {
    if (!TOKEN.test(token)) throw new LinkInvalid();
    const l = await store.oneTimeLinks.byHash(hashToken(token));
    if (!l || l.used_at !== null || l.expires_at <= now()) throw new LinkInvalid();
    if (l.purpose === 'setup' && (await store.accounts.count()) > 0) throw new LinkInvalid();
    return l;
  }

  /**
   * The channel plug-ins when the team has an enabled e-mail channel (mail to a person goes through the
   * same SMTP relay), else null. They load only then: the command line's token and user commands
   * never send.
   */
  async function mailsPeople(teamId: string) {
    const { channels: plugins, pluginOf } = await import('../channels/index.js');
    const channels = await store.notifications.enabledForTeam(teamId, 'instant');
    return channels.some((c) => pluginOf(c.notification_type) === plugins.email) ? plugins : null;
  }

  /**
   * Sends a link to `to` through the SMTP relay, when the team has an enabled e-mail channel (else
   * nothing is tried: null). Never throws: the outcome is answered.
   */
  async function send(
    teamId: string,
    to: string,
    subject: string,
    lines: string[],
    url: string,
  ): Promise<{ sent: boolean | null; error: string | null }> {
    if (!mail) return { sent: null, error: null };
    const plugins = await mailsPeople(teamId);
    if (!plugins) return { sent: null, error: null };
    const text = [...lines, '', url, '', `The link works once, for ${LINK_TTL_MS / 3_600_000} hours.`].join('\n');
    const html = `<!doctype html><html><body style="font-family:sans-serif">${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p><p style="color:#888;font-size:12px">The link works once, for ${LINK_TTL_MS / 3_600_000} hours. Sent by dommon</p></body></html>`;
    try {
      const r = await plugins.email.send({ to: [to], subject, text, html }, { ...mail, timeoutMs: MAIL_TIMEOUT_MS });
      return { sent: r.ok, error: r.ok ? null : r.error };
    } catch (err) {
      return { sent: false, error: (err as Error).message };
    }
  }

  /** The member `email` of the caller's team, with an account (made, without a password, when it has none). */
  async function memberWithAccount(tx: Repos, teamId: string, email: string) {
    const user = await tx.users.byEmail(teamId, email.trim().toLowerCase());
    if (!user) throw new NotFound(`User ${email}`);
    const found = await tx.accounts.byEmail(foldEmail(user.email));
    const account = found ?? (await tx.accounts.create(foldEmail(user.email), isoNow(clock)));
    await tx.accounts.link(user.id, account.id);
    return { user, account: { id: account.id, password: !!found?.password_hash } };
  }

  return {
    /**
     * A set-up link while no account exists (`serve` prints it), else null. It replaces the unused
     * set-up links made before, so only the latest one printed works.
     */
    async setupLink(): Promise<IssuedLink | null> {
      if ((await store.accounts.count()) > 0) return null;
      return store.transaction(async (tx) => {
        await tx.oneTimeLinks.removeUnused('setup');
        const { token, link } = await issue(tx, 'setup', {});
        return issued(token, link, null);
      });
    },

    /**
     * A sign-in link for a member (`dommon users add`): the member gets an account (made when the
     * e-mail has none) and the link signs in to that membership, setting the password on the way.
     */
    async signInLink(teamId: string, email: string): Promise<IssuedLink> {
      return store.transaction(async (tx) => {
        const { user, account } = await memberWithAccount(tx, teamId, email);
        const team = await tx.teams.byId(teamId);
        const { token, link } = await issue(tx, 'sign-in', {
          email: foldEmail(user.email),
          account_id: account.id,
          team_id: teamId,
          user_id: user.id,
        });
        return issued(token, link, team?.name ?? null);
      });
    },

    /**
     * An owner invites an e-mail with a role (no higher than the caller's); the link is answered to
     * copy, and sent by e-mail when the team has an e-mail channel.
     */
    async invite(p: Principal, input: { email: string; role: Role }, base: string): Promise<IssuedLink> {
      const email = foldEmail(input.email);
      if (!isEmail(email)) throw new Invalid(`"${input.email}" is not an e-mail address`);
      if (!roleAllows(p.role, input.role))
        throw new Forbidden(
          `you cannot invite above your own role: you are ${p.role}, not ${input.role}`,
          'FORBIDDEN_ROLE',
        );
      const made = await store.transaction(async (tx) => {
        if (await tx.users.byEmail(p.team_id, email))
          throw new Conflict(`${email} is already a member of team "${p.team_name}"`, 'USER_EXISTS');
        const { token, link } = await issue(tx, 'invitation', {
          email,
          team_id: p.team_id,
          role: input.role,
          created_by: p.user_id,
        });
        await audit?.record(tx, p.team_id, {
          action: 'create',
          kind: 'invitation',
          id: link.id,
          name: email,
          after: { email, role: input.role, expires_at: new Date(link.expires_at).toISOString() },
        });
        return issued(token, link, p.team_name);
      });
      const r = await send(
        p.team_id,
        email,
        `[dommon] You are invited to team ${p.team_name}`,
        [`${p.user_email} invites you to the team "${p.team_name}" on dommon, as ${input.role}.`, 'Accept here:'],
        linkUrl(base, made.token),
      );
      return { ...made, email_sent: r.sent, email_error: r.error };
    },

    /** The team's invitations not used yet and still live. */
    invitations: (p: Principal) => store.oneTimeLinks.pending(p.team_id, 'invitation', now()),

    /** Withdraws an invitation of the caller's team (another team's, or a used one, is not found). */
    async revokeInvitation(p: Principal, id: string): Promise<OneTimeLink> {
      const l = await store.oneTimeLinks.byId(id);
      if (!l || l.team_id !== p.team_id || l.purpose !== 'invitation' || l.used_at !== null || l.expires_at <= now())
        throw new NotFound('Invitation');
      await store.transaction(async (tx) => {
        await tx.oneTimeLinks.remove(id);
        await audit?.record(tx, p.team_id, {
          action: 'delete',
          kind: 'invitation',
          id,
          name: l.email,
          before: { email: l.email, role: l.role, expires_at: new Date(l.expires_at).toISOString() },
        });
      });
      return l;
    },

    /**
     * An owner's reset link for a member of the team (made with an account when the member has none);
     * answered to pass on, and sent by e-mail when the team has an e-mail channel.
     */
    async resetLink(p: Principal, email: string, base: string): Promise<IssuedLink> {
      const made = await store.transaction(async (tx) => {
        const { user, account } = await memberWithAccount(tx, p.team_id, email);
        // The link is shown to the owner: for a person who belongs to other teams too, it would hand
        // this team's owner those teams as well.
        if ((await tx.accounts.memberships(account.id)).some((m) => m.team_id !== p.team_id))
          throw new Conflict(
            `${user.email} belongs to other teams too: they reset their password themselves ("Forgot your password?"), or the server's administrator runs dommon users set-password`,
            'ACCOUNT_SHARED',
          );
        const { token, link } = await issue(tx, 'reset', {
          email: foldEmail(user.email),
          account_id: account.id,
          team_id: p.team_id,
          user_id: user.id,
          created_by: p.user_id,
        });
        await audit?.record(tx, p.team_id, {
          action: 'reset',
          kind: 'user',
          id: user.id,
          name: user.email,
          after: { password_reset_link_expires_at: new Date(link.expires_at).toISOString() },
        });
        return issued(token, link, p.team_name);
      });
      const r = await send(
        p.team_id,
        made.email!,
        '[dommon] Set a new password',
        [`${p.user_email} made you a link to set a new dommon password (team "${p.team_name}").`],
        linkUrl(base, made.token),
      );
      return { ...made, email_sent: r.sent, email_error: r.error };
    },

    /**
     * "Forgot password": when the e-mail has an enabled account in a team with an e-mail channel, a
     * reset link is made and mailed (in the background). Nothing tells the caller which happened.
     */
    async forgot(address: string, base: string): Promise<void> {
      const email = foldEmail(address);
      if (!isEmail(email)) return;
      const a = await store.accounts.byEmail(email);
      if (!a || a.disabled) return;
      for (const m of await store.accounts.memberships(a.id)) {
        if (!(await mailsPeople(m.team_id))) continue;
        const { token } = await store.transaction((tx) =>
          issue(tx, 'reset', { email, account_id: a.id, team_id: m.team_id, user_id: m.user_id }),
        );
        void send(
          m.team_id,
          email,
          '[dommon] Set a new password',
          [
            'Someone (we hope you) asked to set a new dommon password for this address.',
            'If it was not you, ignore this mail.',
          ],
          linkUrl(base, token),
        ).then((r) => {
          if (r.sent === false) log?.warn({ error: r.error }, 'password reset mail not sent');
        });
        return;
      }
    },

    /** What a link will do, for the page that opens it; LinkInvalid when it cannot be used. */
    async inspect(token: string): Promise<LinkView> {
      const l = await live(token);
      const team = l.team_id ? ((await store.teams.byId(l.team_id))?.name ?? null) : null;
      let password: LinkView['password'] = 'required';
      if (l.purpose === 'sign-in' || l.purpose === 'invitation') {
        const a = l.account_id
          ? await store.accounts.byId(l.account_id)
          : l.email
            ? await store.accounts.byEmail(l.email)
            : undefined;
        if (a?.password_hash) password = l.purpose === 'invitation' ? 'current' : 'optional';
      }
      return {
        purpose: l.purpose,
        email: l.email,
        team,
        role: l.purpose === 'setup' ? 'owner' : l.role,
        password,
        expires_at: new Date(l.expires_at).toISOString(),
      };
    },

    /**
     * Uses a link: the account, membership and password it stands for are made or set in one
     * transaction with the link's single use. Answers the membership to sign in to.
     */
    async use(token: string, input: LinkUse): Promise<{ user_id: string; account_id: string }> {
      const l = await live(token);
      if (input.password !== undefined && input.password !== '') checkPassword(input.password);
      const hash = input.password ? await passwords.hash(input.password) : null;
      const at = now();
      return store.transaction(async (tx) => {
        if (!(await tx.oneTimeLinks.use(l.id, at))) throw new LinkInvalid();
        const nowIso = isoNow(clock);
        const needPassword = () => {
          if (!hash) throw new Invalid('password: choose a password (10 to 1,024 characters)', 'PASSWORD_INVALID');
          return hash;
        };
        if (l.purpose === 'setup') {
          if ((await tx.accounts.count()) > 0) throw new LinkInvalid();
          const email = foldEmail(input.email ?? '');
          if (!isEmail(email)) throw new Invalid('email: must be an e-mail address');
          const name = (input.team ?? '').trim();
          if (!name || name.length > 100) throw new Invalid('team: must be 1-100 characters');
          const pw = needPassword();
          const team = (await tx.teams.byName(name)) ?? (await tx.teams.create(name, nowIso));
          let user = await tx.users.byEmail(team.id, email);
          if (user) await tx.users.setRole(user.id, 'owner');
          else user = await tx.users.create(team.id, email, nowIso, 'owner');
          const account = await tx.accounts.create(email, nowIso, pw);
          await tx.accounts.link(user.id, account.id);
          await audit?.record(tx, team.id, {
            action: 'create',
            kind: 'user',
            id: user.id,
            name: email,
            after: { ...user, role: 'owner', password: 'set', via: 'set-up link' },
          });
          return { user_id: user.id, account_id: account.id };
        }
        if (l.purpose === 'invitation') {
          const email = l.email!;
          const found = await tx.accounts.byEmail(email);
          if (found?.disabled) throw new LinkInvalid();
          // An invitation is shown to the owner who made it: for an account that has a password it
          // proves nothing about the person, so it is accepted with that password, which it never
          // changes (else any owner could take over an account of other teams by inviting its e-mail).
          if (
            found?.password_hash &&
            !(input.password && (await passwords.verify(input.password, found.password_hash)))
          )
            throw new WrongPassword(email);
          const pw = found?.password_hash ? null : needPassword();
          const account = found ?? (await tx.accounts.create(email, nowIso));
          if (pw) await tx.accounts.setPassword(account.id, pw);
          // A membership made since the invitation (by `users add`) keeps its role.
          const user =
            (await tx.users.byEmail(l.team_id!, email)) ??
            (await tx.users.create(l.team_id!, email, nowIso, l.role ?? 'viewer'));
          await tx.accounts.link(user.id, account.id);
          await audit?.record(tx, l.team_id!, {
            action: 'create',
            kind: 'user',
            id: user.id,
            name: email,
            after: { ...user, password: pw ? 'set' : 'kept', via: 'invitation' },
          });
          return { user_id: user.id, account_id: account.id };
        }
        // sign-in and reset: bound to an account and a membership of it.
        const account = l.account_id ? await tx.accounts.byId(l.account_id) : undefined;
        const user = l.user_id ? await tx.users.byId(l.user_id) : undefined;
        if (!account || account.disabled || !user) throw new LinkInvalid();
        if (l.purpose === 'reset') {
          await tx.accounts.setPassword(account.id, needPassword());
          // Whoever signed in with the old password is signed out on every node.
          await tx.webSessions.removeForAccount(account.id);
        } else {
          const pw = account.password_hash ? hash : needPassword();
          if (pw) await tx.accounts.setPassword(account.id, pw);
        }
        await audit?.record(tx, user.team_id, {
          action: 'update',
          kind: 'user',
          id: user.id,
          name: user.email,
          after: { password: hash ? 'set' : 'kept', via: l.purpose === 'reset' ? 'reset link' : 'sign-in link' },
        });
        return { user_id: user.id, account_id: account.id };
      });
    },
  };
}
