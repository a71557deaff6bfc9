// DOMMON_OIDC_ISSUER and the rest: single sign-on with an OpenID Connect provider (docs/sso.md). Off unless
// DOMMON_OIDC_ISSUER is set; then the client id, DOMMON_PUBLIC_URL (the redirect URI is made from it)
// and at least one DOMMON_OIDC_TEAMS rule are required, so a half-configured sign-in fails at start.
import fs from 'node:fs';
import { isRole } from '../domain/roles.js';
import type { SsoRule } from '../domain/sso.js';

export interface OidcConfig {
  /** DOMMON_OIDC_ISSUER: the provider's issuer URL (its discovery document is ISSUER/.well-known/openid-configuration). */
  issuer: string;
  /** DOMMON_OIDC_CLIENT_ID */
  clientId: string;
  /** DOMMON_OIDC_CLIENT_SECRET or DOMMON_OIDC_CLIENT_SECRET_FILE; null: a public client (PKCE only). */
  clientSecret: string | null;
  /** DOMMON_OIDC_NAME: the button's "Sign in with <name>". */
  name: string;
  /** DOMMON_OIDC_SCOPES: the scopes asked for, space-separated (always with `openid`). */
  scopes: string;
  /** DOMMON_OIDC_GROUPS_CLAIM: the claim holding the person's groups. */
  groupsClaim: string;
  /** DOMMON_OIDC_TEAMS: which e-mail domains and groups are members of which team, with which role. */
  teams: SsoRule[];
  /** DOMMON_PUBLIC_URL + /ui/oidc/callback: register it at the provider. */
  redirectUri: string;
  /** An http:// issuer (allowed on a loopback address only, for a provider on the same machine). */
  insecure: boolean;
}

/** Where the provider sends the browser back to, under DOMMON_PUBLIC_URL. */
const OIDC_CALLBACK_PATH = '/ui/oidc/callback';

type Env = Record<string, string | undefined>;
type Fail = (message: string) => Error;

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);
const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

function rules(raw: string | undefined, fail: Fail): SsoRule[] {
  const name = 'DOMMON_OIDC_TEAMS';
  const example = `e.g. [{"email_domain":"example.com","team":"ops","role":"viewer"},{"group":"dommon-admins","team":"ops","role":"owner"}]`;
  if (raw === undefined || raw.trim() === '') throw fail(`${name} is required with DOMMON_OIDC_ISSUER: ${example}`);
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    throw fail(`${name} is not JSON: ${example}`);
  }
  if (!Array.isArray(list) || list.length === 0) throw fail(`${name} must be a non-empty JSON list: ${example}`);
  return list.map((r: unknown, i): SsoRule => {
    const at = `${name}[${i}]`;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw fail(`${at} must be an object: ${example}`);
    const o = r as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => !['email_domain', 'group', 'team', 'role'].includes(k));
    if (extra.length) throw fail(`${at} has unknown field(s) ${extra.join(', ')}: ${example}`);
    const text = (v: unknown) => typeof v === 'string' && v.trim() !== '' && v.length <= 200;
    if (!text(o.team) || (o.team as string).trim().length > 100) throw fail(`${at}.team must be a team name`);
    if (!isRole(o.role)) throw fail(`${at}.role must be one of owner, editor, viewer`);
    const team = (o.team as string).trim();
    if ('email_domain' in o === 'group' in o) throw fail(`${at} needs one of email_domain or group`);
    if ('group' in o) {
      if (!text(o.group)) throw fail(`${at}.group must be a group name`);
      return { group: o.group as string, team, role: o.role };
    }
    if (!text(o.email_domain) || /[@\s]/.test(o.email_domain as string))
      throw fail(`${at}.email_domain must be a domain such as example.com`);
    return { email_domain: (o.email_domain as string).trim().toLowerCase().replace(/\.$/, ''), team, role: o.role };
  });
}

export function oidcConfig(env: Env, publicUrl: string | null, fail: Fail): OidcConfig | null {
  const issuer = env.DOMMON_OIDC_ISSUER?.trim();
  if (!issuer) return null;
  let u: URL;
  try {
    u = new URL(issuer);
  } catch {
    throw fail('DOMMON_OIDC_ISSUER is not a valid URL');
  }
  const loopback = LOOPBACK_NAMES.has(u.hostname) || LOOPBACK_V4.test(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback))
    throw fail('DOMMON_OIDC_ISSUER must be an https:// URL (http:// only on a loopback address)');
  const clientId = env.DOMMON_OIDC_CLIENT_ID?.trim();
  if (!clientId) throw fail('DOMMON_OIDC_CLIENT_ID is required with DOMMON_OIDC_ISSUER');
  if (publicUrl === null)
    throw fail(
      `DOMMON_PUBLIC_URL (or --public-url) is required with DOMMON_OIDC_ISSUER: the provider sends people back to PUBLIC_URL${OIDC_CALLBACK_PATH}`,
    );
  let clientSecret = env.DOMMON_OIDC_CLIENT_SECRET || null;
  const file = env.DOMMON_OIDC_CLIENT_SECRET_FILE;
  if (file) {
    if (clientSecret !== null) throw fail('set DOMMON_OIDC_CLIENT_SECRET or DOMMON_OIDC_CLIENT_SECRET_FILE, not both');
    try {
      clientSecret = fs.readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw fail(`DOMMON_OIDC_CLIENT_SECRET_FILE: cannot read ${file}: ${(err as Error).message}`);
    }
    if (!clientSecret) throw fail(`DOMMON_OIDC_CLIENT_SECRET_FILE: ${file} is empty`);
  }
  const scopes = new Set((env.DOMMON_OIDC_SCOPES ?? 'openid email profile').split(/[\s,]+/).filter(Boolean));
  scopes.add('openid');
  const name = env.DOMMON_OIDC_NAME?.trim() || 'single sign-on';
  if (name.length > 60) throw fail('DOMMON_OIDC_NAME must be at most 60 characters');
  return {
    issuer,
    clientId,
    clientSecret,
    name,
    scopes: [...scopes].join(' '),
    groupsClaim: env.DOMMON_OIDC_GROUPS_CLAIM?.trim() || 'groups',
    teams: rules(env.DOMMON_OIDC_TEAMS, fail),
    redirectUri: `${publicUrl}${OIDC_CALLBACK_PATH}`,
    insecure: u.protocol === 'http:',
  };
}
