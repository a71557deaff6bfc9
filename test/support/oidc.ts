// A real OpenID Connect provider on loopback (oidc-provider, its development sign-in pages), and a
// browser's part of the redirect dance driven over HTTP: each origin's cookies kept as a browser keeps
// them, every redirect followed, the provider's sign-in and consent forms submitted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface Person {
  email?: string;
  email_verified?: boolean;
  groups?: string[];
}

export const CLIENT_ID = 'dommon-test';
export const CLIENT_SECRET = 'a-client-secret-for-the-tests-only';

/** The provider: `people` by login name (any login signs in, as the development pages allow). */
export async function startOidcProvider(
  redirectUri: string,
  people: Record<string, Person>,
): Promise<{ issuer: string; close(): Promise<void> }> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
    scopes: ['openid', 'email', 'groups'],
    pkce: { required: () => true },
    cookies: { keys: ['oidc-test-cookie-key'] },
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({ sub: id, ...people[id] }),
    }),
  });
  const handle = provider.callback();
  server.on('request', (req, res) => void handle(req, res));
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies by origin (path and expiry left out: each stop of the dance is at the path it was set for). */
class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  header(url: URL): string {
    return [...(this.byOrigin.get(url.origin) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  take(url: URL, headers: Headers): void {
    let jar = this.byOrigin.get(url.origin);
    if (!jar) this.byOrigin.set(url.origin, (jar = new Map()));
    for (const c of headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (gone) jar.delete(name);
      else jar.set(name, value);
    }
  }

  get(url: string, name: string): string | undefined {
    return this.byOrigin.get(new URL(url).origin)?.get(name);
  }
}

interface Stop {
  url: URL;
  status: number;
  location: string | null;
  headers: Headers;
  text: string;
}

async function hop(jar: CookieJar, url: URL, init: { method?: string; body?: string } = {}): Promise<Stop> {
  const headers: Record<string, string> = { cookie: jar.header(url) };
  if (init.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body, redirect: 'manual' });
  jar.take(url, res.headers);
  const location = res.headers.get('location');
  return { url, status: res.status, location, headers: res.headers, text: await res.text() };
}

/**
 * Signs in at the app with single sign-on as `login`: from GET /ui/oidc/start through the provider's
 * forms to the app's callback, whose answer is returned (with every stop on the way). `tamper` may
 * change the callback's URL before the browser follows it.
 */
export async function ssoSignIn(
  appUrl: string,
  login: string,
  opts: { jar?: CookieJar; tamper?: (callback: URL) => URL } = {},
): Promise<{ callback: Stop; stops: Stop[]; jar: CookieJar }> {
  const jar = opts.jar ?? new CookieJar();
  const stops: Stop[] = [];
  let at = await hop(jar, new URL('/ui/oidc/start', appUrl));
  stops.push(at);
  for (let i = 0; i < 20; i++) {
    if (at.location) {
      let next = new URL(at.location, at.url);
      if (next.origin === new URL(appUrl).origin && next.pathname === '/ui/oidc/callback') {
        if (opts.tamper) next = opts.tamper(next);
        const callback = await hop(jar, next);
        stops.push(callback);
        return { callback, stops, jar };
      }
      at = await hop(jar, next);
    } else if (at.status === 200 && at.url.pathname.startsWith('/interaction/')) {
      // The development pages: a sign-in form (any login), then a consent form.
      const action = /<form[^>]*action="([^"]+)"/.exec(at.text)?.[1];
      if (!action) throw new Error(`no form on ${at.url.href}: ${at.text.slice(0, 300)}`);
      const body = at.text.includes('name="login"')
        ? new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString()
        : new URLSearchParams({ prompt: 'consent' }).toString();
      at = await hop(jar, new URL(action, at.url), { method: 'POST', body });
    } else {
      throw new Error(`the dance stopped at ${at.url.href} (${at.status}): ${at.text.slice(0, 300)}`);
    }
    stops.push(at);
  }
  throw new Error('more than 20 stops before the callback');
}
