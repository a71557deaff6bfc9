// The dommon web dashboard (docs/web.md): sign-in, then the pages, routed by the URL's hash.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  ApiError,
  type Session,
  currentSession,
  forgotPassword,
  onSignedOut,
  signIn,
  signInWithPasskey,
  signOut,
  singleSignOn,
  switchTeam,
} from './api.js';
import { useRoute } from './hooks.js';
import { Overview } from './pages/overview.js';
import { Home } from './pages/home.js';
import { startLive, stopLive } from './live.js';
import { Domains } from './pages/domains.js';
import { DomainPage } from './pages/domain.js';
import { EndpointPage } from './pages/endpoint.js';
import { Renewals } from './pages/renewals.js';
import { Notifications } from './pages/notifications.js';
import { StatusPages } from './pages/status-pages.js';
import { Nodes } from './pages/nodes.js';
import { Portfolios } from './pages/portfolios.js';
import { Maintenance } from './pages/maintenance.js';
import { Audit } from './pages/audit.js';
import { Tokens } from './pages/tokens.js';
import { Members } from './pages/members.js';
import { Account } from './pages/account.js';
import { NotFound } from './pages/not-found.js';
import { LinkPage } from './pages/link.js';
import { Invitations } from './pages/invitations.js';
import { CanOwn, CanWrite } from './scope.js';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import './setup.css';

function SignIn({ done }: { done: (s: Session) => void }) {
  const [withToken, setWithToken] = useState(false);
  const [token, setToken] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const sso = singleSignOn();
  const showPasskeyError = (err: unknown) =>
    setError(
      err instanceof ApiError && err.status === 401
        ? 'That passkey did not sign in (removed, or not for this site).'
        : err instanceof ApiError && err.status === 429
          ? 'Too many failed sign-ins: wait a minute and try again.'
          : err instanceof Error && err.name === 'NotAllowedError'
            ? 'No passkey was used.'
            : String(err),
    );
  // Conditional UI: where the browser can, it offers its passkeys in the e-mail field's autofill.
  useEffect(() => {
    let on = true;
    if (typeof PublicKeyCredential === 'undefined' || !PublicKeyCredential.isConditionalMediationAvailable) return;
    void PublicKeyCredential.isConditionalMediationAvailable().then((yes) => {
      if (yes && on)
        signInWithPasskey(true).then(
          (s) => on && done(s),
          // The server refused the passkey picked: say so. Cut short by the button below: the form stays.
          (err: unknown) => on && err instanceof ApiError && showPasskeyError(err),
        );
    });
    return () => {
      on = false;
    };
  }, []);
  const passkey = async () => {
    try {
      done(await signInWithPasskey());
    } catch (err) {
      showPasskeyError(err);
    }
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      done(await signIn(withToken ? { token: token.trim() } : { email: email.trim(), password }));
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? withToken
            ? 'That token is not valid (or was revoked).'
            : 'Wrong e-mail or password.'
          : err instanceof ApiError && err.status === 429
            ? 'Too many failed sign-ins: wait a minute and try again.'
            : String(err),
      );
    }
  };
  const other = (
    <button
      type="button"
      class="link"
      onClick={() => {
        setWithToken(!withToken);
        setError('');
      }}
    >
      {withToken ? 'Use e-mail and password instead' : 'Use an API token instead'}
    </button>
  );
  return (
    <main class="signin">
      <h1>dommon</h1>
      {sso && (
        <p>
          <a class="sso" href={sso.url}>
            Sign in with {sso.name}
          </a>
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} aria-label="Sign in">
        {withToken ? (
          <>
            <label>
              API token
              <input
                type="password"
                name="token"
                autoComplete="current-password"
                required
                value={token}
                placeholder="dmn_…"
                onInput={(e) => setToken(e.currentTarget.value)}
              />
            </label>
            <p class="muted">
              Make one with <code>dommon token create --team NAME</code>. It is kept in an HttpOnly cookie for this
              browser session.
            </p>
          </>
        ) : (
          <>
            <label>
              E-mail
              <input
                type="email"
                name="email"
                autoComplete="username webauthn"
                required
                value={email}
                onInput={(e) => setEmail(e.currentTarget.value)}
              />
            </label>
            <label>
              Password
              <input
                type="password"
                name="password"
                autoComplete="current-password"
                required
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </label>
          </>
        )}
        <button type="submit">Sign in</button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {other}
        {!withToken && <Forgot email={email} />}
        {typeof PublicKeyCredential !== 'undefined' && (
          <button type="button" onClick={() => void passkey()}>
            Use a passkey
          </button>
        )}
      </form>
    </main>
  );
}

/** "Forgot your password?": a link to set a new one is mailed when the e-mail has an account (the answer never says). */
function Forgot({ email }: { email: string }) {
  const [said, setSaid] = useState('');
  return (
    <>
      <button
        type="button"
        class="link"
        onClick={() => {
          if (!email.trim()) return setSaid('Type your e-mail above first.');
          forgotPassword(email.trim()).then(
            (r) => setSaid(r.message),
            (err: unknown) => setSaid(err instanceof ApiError ? err.message : String(err)),
          );
        }}
      >
        Forgot your password?
      </button>
      {said && <p role="status">{said}</p>}
    </>
  );
}

/** The header's team menu of a person in several teams: the session moves, and every view reads anew. */
function TeamMenu({ session, done }: { session: Session; done: (s: Session) => void }) {
  const [error, setError] = useState('');
  if (!session.teams || session.teams.length < 2) return <>{session.team}</>;
  return (
    <>
      <select
        aria-label="Team"
        value={session.team}
        onChange={(e) => {
          const team = e.currentTarget.value;
          switchTeam(team).then(
            (s) => (setError(''), done(s)),
            (err: unknown) => setError(String(err)),
          );
        }}
      >
        {session.teams.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
      {error && (
        <span class="error" role="alert">
          {' '}
          {error}
        </span>
      )}
    </>
  );
}

const NAV: [string, string][] = [
  ['home', 'Home'],
  ['overview', 'Overview'],
  ['domains', 'Domains'],
  ['portfolios', 'Portfolios'],
  ['renewals', 'Renewals'],
  ['notifications', 'Notifications'],
  ['status-pages', 'Status pages'],
  ['maintenance', 'Maintenance'],
  ['nodes', 'Nodes'],
  ['audit', 'Audit'],
  ['tokens', 'Tokens'],
  ['members', 'Members'],
  ['invitations', 'Invitations'],
  ['account', 'Account'],
];

/** Pages only an owner's session may read (the API refuses the rest): not offered to others. */
const OWNERS_ONLY = new Set(['audit', 'members', 'invitations']);

function Page({ route, session }: { route: string[]; session: Session }) {
  const [top, id] = route;
  if (top === 'domains' && id) return <DomainPage id={id} />;
  if (top === 'domains') return <Domains />;
  if (top === 'endpoints' && id) return <EndpointPage id={id} />;
  if (id) return <NotFound />;
  if (top === 'renewals') return <Renewals />;
  if (top === 'notifications') return <Notifications />;
  if (top === 'status-pages') return <StatusPages />;
  if (top === 'nodes') return <Nodes />;
  if (top === 'portfolios') return <Portfolios />;
  if (top === 'maintenance') return <Maintenance />;
  if (top === 'audit') return <Audit />;
  if (top === 'tokens') return <Tokens session={session} />;
  if (top === 'members') return <Members session={session} />;
  if (top === 'invitations') return <Invitations session={session} />;
  if (top === 'account') return <Account account={session.account === true} />;
  if (top === 'overview') return <Overview />;
  if (top === 'home') return <Home />;
  return <NotFound />;
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const route = useRoute();
  useEffect(() => {
    currentSession().then(setSession, () => setSession(null));
    // Signed out elsewhere (a 401): the signed-out answer also says whether single sign-on is offered.
    return onSignedOut(() => {
      setSession(null);
      void currentSession().then(
        (x) => x === null || setSession(x),
        () => undefined,
      );
    });
  }, []);
  // The live feed while signed in (live.ts): views read again when the server says so.
  useEffect(() => {
    if (!session) return;
    startLive();
    return stopLive;
  }, [session]);
  useEffect(() => {
    // A page's own title; an address with no page (or an id where the page takes none) is "Not found".
    const [top, id] = route;
    const title =
      top === 'link'
        ? 'Sign in'
        : top === 'endpoints' && id
          ? 'Endpoint'
          : (NAV.find(([k]) => k === top && (!id || k === 'domains'))?.[1] ?? 'Not found');
    document.title = `${title} · dommon`;
    document.getElementById('main')?.focus();
  }, [route.join('/')]);
  // A one-time link is used whoever is signed in (it signs in as the person it is for).
  if (route[0] === 'link' && route[1]) return <LinkPage token={route[1]} done={setSession} />;
  if (session === undefined) return <p class="muted">Loading…</p>;
  if (session === null) return <SignIn done={setSession} />;
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header>
        <strong class="brand">dommon</strong>
        <nav aria-label="Pages">
          {NAV.filter(([k]) => session.role === 'owner' || !OWNERS_ONLY.has(k)).map(([k, label]) => (
            <a key={k} href={`#/${k}`} aria-current={route[0] === k ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="who muted">
          <TeamMenu session={session} done={setSession} /> · {session.account ? session.user : session.token_name}{' '}
          {session.read_only ? (
            <span class="badge none">read-only</span>
          ) : (
            <span class="badge none">{session.role}</span>
          )}
        </span>
        <button type="button" onClick={() => void signOut().then(() => setSession(null))}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <CanWrite.Provider value={session.role !== 'viewer'}>
          <CanOwn.Provider value={session.role === 'owner'}>
            {/* A new team: every page is made anew, so nothing of the old team's stays on screen. */}
            <Page key={session.team} route={route} session={session} />
          </CanOwn.Provider>
        </CanWrite.Provider>
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
