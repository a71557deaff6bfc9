// The OpenID Connect relying party (docs/sso.md) on openid-client: the authorization code flow with
// PKCE (S256), state and nonce. The provider's discovery document is read at the first sign-in (and
// again after a failure), so a provider that is down does not stop the daemon from starting.
import * as oidc from 'openid-client';
import type { OidcConfig } from '../config/oidc.js';
import { SsoFailed, type SsoIdentity, type SsoPending, type SsoProvider } from '../domain/sso.js';

/** Seconds each request to the provider may take. */
const TIMEOUT_S = 10;

/** The words a person is shown for what went wrong; the details go to the log. */
function failure(err: unknown): SsoFailed {
  if (err instanceof SsoFailed) return err;
  if (err instanceof oidc.AuthorizationResponseError)
    return new SsoFailed(
      `the provider answered ${err.error}${err.error_description ? `: ${err.error_description}` : ''}`,
    );
  if (err instanceof oidc.ResponseBodyError)
    return new SsoFailed(
      `the provider refused the sign-in: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`,
    );
  // openid-client's own errors say what kind of thing went wrong; their cause says which check failed.
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : null;
  return new SsoFailed(cause && cause !== message ? `${message}: ${cause}` : message);
}

export function oidcProvider(config: OidcConfig): SsoProvider {
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = (): Promise<oidc.Configuration> =>
    (discovered ??= oidc
      .discovery(
        new URL(config.issuer),
        config.clientId,
        config.clientSecret ?? undefined,
        config.clientSecret === null ? oidc.None() : undefined,
        { timeout: TIMEOUT_S, execute: config.insecure ? [oidc.allowInsecureRequests] : [] },
      )
      .catch((err: unknown) => {
        discovered = undefined;
        throw new SsoFailed(`the provider's discovery document could not be read (${(err as Error).message})`);
      }));

  return {
    name: config.name,

    async begin() {
      const c = await configuration();
      const pending: SsoPending = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        verifier: oidc.randomPKCECodeVerifier(),
      };
      const url = oidc.buildAuthorizationUrl(c, {
        redirect_uri: config.redirectUri,
        scope: config.scopes,
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, pending };
    },

    async finish(query: string, pending: SsoPending): Promise<SsoIdentity> {
      try {
        const c = await configuration();
        // The URL the provider sent the browser to, whatever address the request reached us by.
        const back = new URL(config.redirectUri);
        back.search = query;
        const tokens = await oidc.authorizationCodeGrant(c, back, {
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          pkceCodeVerifier: pending.verifier,
          idTokenExpected: true,
        });
        const id = tokens.claims();
        if (!id) throw new SsoFailed('the provider sent no ID token');
        // Providers differ in what they put in the ID token; the user info has the rest.
        let info: Record<string, unknown> = {};
        if (c.serverMetadata().userinfo_endpoint) info = await oidc.fetchUserInfo(c, tokens.access_token, id.sub);
        const claims: Record<string, unknown> = { ...id, ...info };
        const email =
          typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.trim().toLowerCase() : null;
        const groups = claims[config.groupsClaim];
        return {
          subject: id.sub,
          email,
          emailVerified: claims.email_verified !== false && claims.email_verified !== 'false',
          groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [],
        };
      } catch (err) {
        throw failure(err);
      }
    },
  };
}
