// A one-time link (docs/accounts.md#one-time-links), opened at #/link/<secret>: the first owner's
// set-up, a new member's sign-in link, an invitation or a password reset. The page shows what the
// link will do, asks for what it needs (a password; for the set-up also the e-mail and team), uses it
// and signs in.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type LinkView, type Session, linkInfo, redeemLink } from '../api.js';

const TITLES: Record<LinkView['purpose'], string> = {
  setup: 'Set up dommon',
  'sign-in': 'Welcome to dommon',
  invitation: 'Join a team',
  reset: 'Set a new password',
};

export function LinkPage({ token, done }: { token: string; done: (s: Session) => void }) {
  const [view, setView] = useState<LinkView | null | undefined>(undefined);
  const [failure, setFailure] = useState('');
  const [email, setEmail] = useState('');
  const [team, setTeam] = useState('default');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    linkInfo(token).then(setView, (err: unknown) => {
      setView(null);
      setFailure(err instanceof ApiError ? err.message : String(err));
    });
  }, [token]);
  if (view === undefined) return <p class="muted">Loading…</p>;
  if (view === null)
    return (
      <main class="signin">
        <h1>dommon</h1>
        <p class="error" role="alert">
          {failure}
        </p>
        <p>
          <a href="#/home">Go to the sign-in page</a>
        </p>
      </main>
    );
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!current && password !== again) return setError('The two passwords differ.');
    setBusy(true);
    try {
      const s = await redeemLink(token, {
        ...(password ? { password } : {}),
        ...(view.purpose === 'setup' ? { email: email.trim(), team: team.trim() } : {}),
      });
      location.hash = '#/home';
      done(s);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  const optional = view.password === 'optional';
  // An invitation to an existing account: its password proves the person and stays as it is.
  const current = view.password === 'current';
  return (
    <main class="signin">
      <h1>{TITLES[view.purpose]}</h1>
      <form onSubmit={(e) => void submit(e)} aria-label={TITLES[view.purpose]}>
        {view.purpose === 'setup' ? (
          <>
            <p class="muted">No one has an account yet: make the first owner.</p>
            <label>
              Your e-mail
              <input
                type="email"
                name="email"
                autoComplete="username"
                required
                value={email}
                onInput={(e) => setEmail(e.currentTarget.value)}
              />
            </label>
            <label>
              Team
              <input
                name="team"
                required
                maxLength={100}
                value={team}
                onInput={(e) => setTeam(e.currentTarget.value)}
              />
            </label>
          </>
        ) : (
          <p>
            <strong>{view.email}</strong>
            {view.team && (
              <>
                {' '}
                · team <strong>{view.team}</strong>
              </>
            )}
            {view.role && view.purpose !== 'reset' && <> · {view.role}</>}
          </p>
        )}
        <label>
          {current
            ? 'Your dommon password'
            : optional
              ? 'New password (leave empty to keep yours)'
              : 'Choose a password'}
          <input
            type="password"
            name="password"
            autoComplete={current ? 'current-password' : 'new-password'}
            required={!optional}
            minLength={10}
            maxLength={1024}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {!current && (
          <label>
            The password again
            <input
              type="password"
              name="password-again"
              autoComplete="new-password"
              required={!optional || password !== ''}
              value={again}
              onInput={(e) => setAgain(e.currentTarget.value)}
            />
          </label>
        )}
        <p class="muted">
          {current ? 'You have an account already: the invitation adds this team to it.' : 'At least 10 characters.'}{' '}
          The link works once, until {new Date(view.expires_at).toLocaleString()}.
        </p>
        <button type="submit" disabled={busy}>
          {view.purpose === 'invitation'
            ? 'Join and sign in'
            : view.purpose === 'setup'
              ? 'Create and sign in'
              : 'Save and sign in'}
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
