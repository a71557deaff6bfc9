// Tokens (account settings, docs/accounts.md): the person's own API tokens (make one with a name, a
// scope no higher than their role and an expiry, its secret shown once with a copy button; see when
// each was last used; revoke), and for an owner every token of the team, which they may revoke.
import { useState } from 'preact/hooks';
import { api, get, type Session } from '../api.js';
import { usePoll } from '../hooks.js';
import {
  ActionsHead,
  Choice,
  Field,
  Message,
  Section,
  Show,
  ShownOnce,
  Table,
  fmtTime,
  removeAfterConfirm,
  useSubmit,
} from '../ui.js';

interface Token {
  id: string;
  name: string;
  prefix: string;
  user_id: string;
  user: string;
  read_only: boolean;
  role: 'owner' | 'editor' | 'viewer' | null;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

const ROLES = ['owner', 'editor', 'viewer'] as const;
const DAY = 86_400_000;

/** What a token may do, in words: read-only, its own role, or its member's. */
const scopeText = (t: Token) => (t.read_only ? 'read-only' : (t.role ?? 'your role'));

/** The expiry choices: a number of days from now, a date, or never. */
const EXPIRY: [string, string][] = [
  ['', 'never'],
  ['7', 'in 7 days'],
  ['30', 'in 30 days'],
  ['90', 'in 90 days'],
  ['365', 'in a year'],
  ['date', 'on a date…'],
];

function NewToken({ session }: { session: Session }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState('');
  const [expiry, setExpiry] = useState('90');
  const [date, setDate] = useState('');
  const [made, setMade] = useState<{ name: string; token: string }>();
  const rank = ROLES.indexOf(session.role);
  const scopes: [string, string][] = [
    ['', `my role (${session.role}, whatever it is at the time)`],
    ...ROLES.slice(rank).map((r): [string, string] => [r, r]),
    ['read-only', 'read-only'],
  ];
  const { msg, errors, busy, onSubmit } = useSubmit(async () => {
    const body: Record<string, unknown> = {};
    if (name.trim()) body.name = name.trim();
    if (scope === 'read-only') body.read_only = true;
    else if (scope) body.role = scope;
    if (expiry === 'date') body.expires_at = `${date}T00:00:00Z`;
    else if (expiry) body.expires_at = new Date(Date.now() + Number(expiry) * DAY).toISOString();
    const t = await api<Token & { token: string }>('POST', '/api/v1/account/tokens', body);
    setMade({ name: t.name, token: t.token });
    setName('');
    return `Made the token ${t.name}.`;
  }, ['name', 'expires_at']);
  return (
    <>
      {made && (
        <ShownOnce
          key={made.token}
          label="Your new token"
          field="Token secret"
          value={made.token}
          size={60}
          done={() => setMade(undefined)}
        >
          <strong>{made.name}</strong>: copy the token now. It is not shown again (only its first characters are kept in
          view).
        </ShownOnce>
      )}
      <form class="stack" noValidate onSubmit={onSubmit} aria-label="Make a token">
        <Field label="Name" value={name} set={setName} maxLength={100} placeholder="ci, grafana…" error={errors.name} />
        <Choice label="May do" value={scope} set={setScope} options={scopes} />
        <Choice label="Expires" value={expiry} set={setExpiry} options={EXPIRY} error={errors.expires_at} />
        {expiry === 'date' && <Field label="Expiry date" type="date" value={date} set={setDate} required />}
        <p>
          <button type="submit" disabled={busy || (expiry === 'date' && !date)}>
            Make token
          </button>
        </p>
        <Message msg={msg} />
      </form>
    </>
  );
}

function TokenTable({ tokens, testid, path, who }: { tokens: Token[]; testid: string; path: string; who: boolean }) {
  return (
    <Table
      testid={testid}
      head={[
        'Name',
        ...(who ? ['Member'] : []),
        'Starts with',
        'May do',
        'Expires',
        'Last used',
        'Made',
        <ActionsHead key="a" />,
      ]}
    >
      {tokens.map((t) => (
        <tr key={t.id}>
          <th scope="row">{t.name}</th>
          {who && <td>{t.user}</td>}
          <td>
            <code>{t.prefix}…</code>
          </td>
          <td>{who && !t.read_only && !t.role ? "the member's role" : scopeText(t)}</td>
          <td>{t.expires_at ? fmtTime(t.expires_at) : 'never'}</td>
          <td>{t.last_used_at ? fmtTime(t.last_used_at) : 'never'}</td>
          <td>{fmtTime(t.created_at)}</td>
          <td>
            <button
              type="button"
              class="small danger"
              aria-label={`Revoke ${t.name}`}
              onClick={() =>
                void removeAfterConfirm(
                  `Revoke the token ${t.name}${who ? ` of ${t.user}` : ''}? Whatever uses it is refused from now on, and the dashboard sessions made from it end.`,
                  `${path}/${t.id}`,
                )
              }
            >
              Revoke
            </button>
          </td>
        </tr>
      ))}
    </Table>
  );
}

export function Tokens({ session }: { session: Session }) {
  const owner = session.role === 'owner';
  const s = usePoll(async () => {
    const [mine, team] = await Promise.all([
      get<{ tokens: Token[] }>('/api/v1/account/tokens'),
      owner ? get<{ tokens: Token[] }>('/api/v1/tokens') : Promise.resolve(undefined),
    ]);
    return { mine: mine.tokens, team: team?.tokens };
  }, `tokens:${owner}`);
  return (
    <>
      <h1>Tokens</h1>
      <p class="muted">
        API tokens let scripts and other tools call dommon&apos;s API as you: send one as{' '}
        <code>Authorization: Bearer …</code>. Last use is recorded about once a minute.
      </p>
      <Show s={s}>
        {(d) => (
          <>
            <Section title="Your tokens">
              {d.mine.length === 0 ? (
                <p class="muted" data-testid="no-tokens">
                  You have no token in this team.
                </p>
              ) : (
                <TokenTable tokens={d.mine} testid="own-tokens" path="/api/v1/account/tokens" who={false} />
              )}
            </Section>
            {d.team && (
              <Section title="Every token of the team">
                <TokenTable tokens={d.team} testid="team-tokens" path="/api/v1/tokens" who />
              </Section>
            )}
          </>
        )}
      </Show>
      {!session.read_only && (
        <Section title="Make a token">
          <NewToken session={session} />
        </Section>
      )}
    </>
  );
}
