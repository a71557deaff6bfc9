// Passkeys (WebAuthn, docs/accounts.md#passkeys) through @simplewebauthn/server: a signed-in person
// registers passkeys to their account (named, listed, removed) and signs in with one instead of a
// password. The relying party is the public URL's host (DOMMON_PUBLIC_URL), else the origin the
// request came to. Every challenge is random, stored in the database (any node checks a response to
// another node's options), good for CHALLENGE_TTL_MS and taken by the first response that names it, so
// a replayed response, or one signed over a challenge the server never handed out (or handed out for
// another purpose or account), is refused. Passkeys are discoverable credentials with user
// verification; their user handle is the account's id, so a response must name the account its
// credential belongs to.
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { Conflict, Duplicate, Forbidden, Invalid, NotFound, QuotaExceeded } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import type { Account, Membership, Passkey, Principal } from '../domain/types.js';
import type { ServiceDeps } from './deps.js';

/**
 * @simplewebauthn/server (with the @peculiar ASN.1 and X.509 packages it brings, ~1 MB of code) loads
 * with the first passkey request: every command-line process and app start builds this service, and
 * few of them ever see a passkey.
 */
const webauthn = () => import('@simplewebauthn/server');

/** How long a challenge is good for (the browser is told the same as its timeout). */
const CHALLENGE_TTL_MS = 5 * 60_000;
/** At most this many unexpired sign-in challenges at once: what callers who are not signed in may make. */
const MAX_OUTSTANDING = 10_000;
/** EdDSA, ES256, RS256: what authenticators make; the same list registers and verifies. */
const ALGORITHMS = [-8, -7, -257];
const RP_NAME = 'dommon';

/** The relying party: its id (a host name) and the origin the browser must report. */
interface RelyingParty {
  id: string;
  origin: string;
}

const userId = (accountId: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(accountId, 'utf8'));

export function createPasskeyService({
  store,
  clock,
  audit,
  publicUrl,
}: Pick<ServiceDeps, 'store' | 'clock' | 'audit'> & { publicUrl?: string | null }) {
  const now = () => clock.now().getTime();

  /** The public URL's relying party when it is set, else the request's own origin's. */
  function relyingParty(requestOrigin: string): RelyingParty {
    let u: URL;
    try {
      u = new URL(publicUrl ?? requestOrigin);
    } catch {
      throw new Invalid('the request names no host (Host header) to check a passkey against', 'INVALID_HOST');
    }
    return { id: u.hostname, origin: u.origin };
  }

  /** The account a caller acts for: a person's session (password or passkey sign-in), not a token. */
  function accountOf(p: Principal): string {
    if (p.account_id === undefined)
      throw new Forbidden(
        "passkeys belong to a person's account: sign in to the dashboard with your e-mail and password (or a passkey), not with an API token",
        'ACCOUNT_SESSION_REQUIRED',
      );
    return p.account_id;
  }

  async function challenge(
    purpose: 'register' | 'sign-in',
    accountId: string | null,
    options: { challenge: string },
  ): Promise<void> {
    await store.passkeys.putChallenge(
      { challenge: options.challenge, purpose, account_id: accountId, expires_at: now() + CHALLENGE_TTL_MS },
      now(),
    );
  }

  return {
    /** The caller's passkeys (a token, which has no account, has none). */
    async list(p: Principal): Promise<Passkey[]> {
      return p.account_id === undefined ? [] : store.passkeys.list(p.account_id);
    },

    /** Options for navigator.credentials.create(): a new challenge for the caller's account. */
    async registrationOptions(p: Principal, requestOrigin: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const accountId = accountOf(p);
      const account = await store.accounts.byId(accountId);
      if (!account || account.disabled) throw new NotFound('Account');
      const rp = relyingParty(requestOrigin);
      const { generateRegistrationOptions } = await webauthn();
      const options = await generateRegistrationOptions({
        rpName: RP_NAME,
        rpID: rp.id,
        userName: account.email,
        userDisplayName: account.email,
        userID: userId(account.id),
        timeout: CHALLENGE_TTL_MS,
        attestationType: 'none',
        // The ones the account has already: an authenticator holding one is not registered twice.
        excludeCredentials: (await store.passkeys.list(account.id)).map((k) => ({
          id: k.credential_id,
          transports: k.transports,
        })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        supportedAlgorithmIDs: ALGORITHMS,
      });
      await challenge('register', account.id, options);
      return options;
    },

    /** Checks the browser's answer to registrationOptions and keeps the new passkey under `name`. */
    async register(
      p: Principal,
      requestOrigin: string,
      input: { name: string; response: RegistrationResponseJSON },
    ): Promise<Passkey> {
      const accountId = accountOf(p);
      const rp = relyingParty(requestOrigin);
      const t = now();
      let info;
      try {
        const { verifyRegistrationResponse } = await webauthn();
        const v = await verifyRegistrationResponse({
          response: input.response,
          expectedChallenge: (c) => store.passkeys.takeChallenge(c, 'register', accountId, t),
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true,
          supportedAlgorithmIDs: ALGORITHMS,
        });
        info = v.verified ? v.registrationInfo : undefined;
      } catch (err) {
        throw new Invalid(`the passkey was not accepted: ${(err as Error).message}`, 'PASSKEY_NOT_VERIFIED');
      }
      if (!info) throw new Invalid('the passkey was not accepted', 'PASSKEY_NOT_VERIFIED');
      const row = {
        account_id: accountId,
        credential_id: info.credential.id,
        public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
        sign_count: info.credential.counter,
        transports: info.credential.transports ?? input.response.response.transports ?? [],
        name: input.name.trim(),
        created_at: isoNow(clock),
      };
      try {
        return await store.transaction(async (tx) => {
          const k = await tx.passkeys.create(row);
          await audit?.record(tx, p.team_id, { action: 'create', kind: 'passkey', id: k.id, name: k.name, after: k });
          return k;
        });
      } catch (err) {
        if (err instanceof Duplicate) throw new Conflict('this passkey is registered already', 'PASSKEY_EXISTS');
        throw err;
      }
    },

    /** Removes one of the caller's passkeys (another account's, or a token's call, is not found). */
    async remove(p: Principal, id: string): Promise<Passkey> {
      if (p.account_id === undefined) throw new NotFound('Passkey');
      const accountId = p.account_id;
      const k = await store.transaction(async (tx) => {
        const gone = await tx.passkeys.remove(accountId, id);
        if (gone)
          await audit?.record(tx, p.team_id, { action: 'delete', kind: 'passkey', id, name: gone.name, before: gone });
        return gone;
      });
      if (!k) throw new NotFound('Passkey');
      return k;
    },

    /** Options for navigator.credentials.get() with no account named: the authenticator offers its passkeys. */
    async signInOptions(requestOrigin: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
      if ((await store.passkeys.outstanding(now())) >= MAX_OUTSTANDING)
        throw new QuotaExceeded('too many passkey sign-ins at once: try again in a minute', 60, 'TOO_MANY_CHALLENGES');
      const { generateAuthenticationOptions } = await webauthn();
      const options = await generateAuthenticationOptions({
        rpID: relyingParty(requestOrigin).id,
        timeout: CHALLENGE_TTL_MS,
        userVerification: 'required',
      });
      await challenge('sign-in', null, options);
      return options;
    },

    /**
     * Checks a sign-in response: the membership to sign in to (the team named, else the first by name)
     * with its account, or null for any failure (unknown or removed passkey, a challenge not handed
     * out, used or expired, a bad signature, a disabled account, no such team).
     */
    async signIn(
      requestOrigin: string,
      response: AuthenticationResponseJSON,
      team?: string,
    ): Promise<{ account: Account; membership: Membership } | null> {
      const rp = relyingParty(requestOrigin);
      const t = now();
      // A response refused before its signature is checked spends its challenge all the same: one try each.
      const refuse = async (): Promise<null> => {
        const c = challengeOf(response);
        if (c !== undefined) await store.passkeys.takeChallenge(c, 'sign-in', null, t);
        return null;
      };
      const k = await store.passkeys.byCredential(response.id);
      if (!k) return refuse();
      // A discoverable credential names its account (the user handle): it must be the passkey's.
      const handle = response.response.userHandle;
      if (handle !== undefined && handle !== Buffer.from(userId(k.account_id)).toString('base64url')) return refuse();
      let counter: number;
      try {
        const { verifyAuthenticationResponse } = await webauthn();
        const v = await verifyAuthenticationResponse({
          response,
          expectedChallenge: (c) => store.passkeys.takeChallenge(c, 'sign-in', null, t),
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          credential: {
            id: k.credential_id,
            publicKey: new Uint8Array(Buffer.from(k.public_key, 'base64url')),
            counter: k.sign_count,
            transports: k.transports,
          },
          requireUserVerification: true,
        });
        if (!v.verified) return null;
        counter = v.authenticationInfo.newCounter;
      } catch {
        return null;
      }
      const a = await store.accounts.byId(k.account_id);
      if (!a || a.disabled) return null;
      const ms = await store.accounts.memberships(a.id);
      const membership = team === undefined ? ms[0] : ms.find((m) => m.team_name === team);
      if (!membership) return null;
      await store.passkeys.used(k.id, counter, isoNow(clock));
      const { password_hash: _, ...account } = a;
      return { account, membership };
    },
  };
}

/** The challenge a response was signed over (from its client data), if it can be read. */
function challengeOf(response: AuthenticationResponseJSON): string | undefined {
  try {
    const c = (
      JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }
    ).challenge;
    return typeof c === 'string' ? c : undefined;
  } catch {
    return undefined;
  }
}
