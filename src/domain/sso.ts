// Single sign-on with OpenID Connect (docs/sso.md): what a provider's sign-in tells us about a person,
// and the rules (DOMMON_OIDC_TEAMS) that turn it into team memberships and roles. The provider's
// protocol side is a port (SsoProvider) the composition root hands over (src/net/oidc.ts).
import { type Role, roleAllows } from './roles.js';

/** One rule of DOMMON_OIDC_TEAMS: a person matching it is a member of `team` with `role`. */
export type SsoRule = ({ email_domain: string } | { group: string }) & { team: string; role: Role };

/** What a completed sign-in at the provider says about the person. */
export interface SsoIdentity {
  /** The provider's subject identifier (`sub`). */
  subject: string;
  /** The e-mail the provider gives (`email`), case-folded; null when it gives none. */
  email: string | null;
  /** False when the provider says the e-mail is not verified (`email_verified: false`). */
  emailVerified: boolean;
  /** The groups claim's values (absent or not a list: none). */
  groups: string[];
}

/** The state a sign-in keeps between sending the browser to the provider and its return. */
export interface SsoPending {
  state: string;
  nonce: string;
  /** The PKCE code verifier (its S256 challenge went to the provider). */
  verifier: string;
}

/** A sign-in the provider (or its answer) refused: the text is for the person, on the error page. */
export class SsoFailed extends Error {}

/** The OpenID Connect relying party: the protocol, each call its own round trip to the provider. */
export interface SsoProvider {
  /** The provider's name on the sign-in page ("Sign in with <name>"). */
  readonly name: string;
  /** Where to send the browser, and what to keep until it comes back. */
  begin(): Promise<{ url: string; pending: SsoPending }>;
  /**
   * Completes a sign-in from the query the browser came back with: checks state, exchanges the code
   * (with the PKCE verifier), checks the ID token and its nonce, reads the user info. Throws SsoFailed.
   */
  finish(query: string, pending: SsoPending): Promise<SsoIdentity>;
}

/**
 * The teams a person's identity maps to, each with the highest role of the rules that match it,
 * sorted by team name. An e-mail domain matches the e-mail's part after `@` exactly (case-folded), and
 * only when the provider has not said the e-mail is unverified; a group matches a groups claim value
 * exactly.
 */
export function mapIdentity(rules: readonly SsoRule[], who: SsoIdentity): { team: string; role: Role }[] {
  const domain = who.email && who.emailVerified ? who.email.slice(who.email.lastIndexOf('@') + 1) : null;
  const out = new Map<string, Role>();
  for (const r of rules) {
    const hit = 'group' in r ? who.groups.includes(r.group) : domain !== null && r.email_domain === domain;
    if (!hit) continue;
    const had = out.get(r.team);
    if (had === undefined || !roleAllows(had, r.role)) out.set(r.team, r.role);
  }
  return [...out]
    .map(([team, role]) => ({ team, role }))
    .sort((a, b) => (a.team < b.team ? -1 : a.team > b.team ? 1 : 0));
}
