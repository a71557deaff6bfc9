// Invitations (an owner's page, docs/accounts.md#invitations): invite an e-mail with a role, withdraw an
// invitation, and make a member a link to set a new password. Each link is shown once, to copy; it is
// mailed too when the team has an e-mail channel.
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

interface Invitation {
  id: string;
  email: string;
  role: 'owner' | 'editor' | 'viewer';
  created_at: string;
  expires_at: string;
}

interface Made {
  email: string;
  url: string;
  expires_at: string;
  email_sent: boolean | null;
  email_error: string | null;
}

const ROLES = ['owner', 'editor', 'viewer'] as const;

/** A link just made: shown once, with what became of the mail. */
function LinkCard({ made, label, done }: { made: Made; label: string; done: () => void }) {
  return (
    <ShownOnce key={made.url} label={label} field="Link" value={made.url} size={70} done={done}>
      The link for <strong>{made.email}</strong> works once, until {fmtTime(made.expires_at)}. It is not shown again.{' '}
      {made.email_sent === true
        ? 'It was sent by e-mail too.'
        : made.email_sent === false
          ? `The e-mail could not be sent (${made.email_error ?? 'unknown error'}): pass the link on yourself.`
          : 'The team has no e-mail channel: pass the link on yourself.'}
    </ShownOnce>
  );
}

function Invite({ session }: { session: Session }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('viewer');
  const [made, setMade] = useState<Made>();
  const rank = ROLES.indexOf(session.role);
  const { msg, errors, busy, onSubmit } = useSubmit(async () => {
    const r = await api<Made>('POST', '/api/v1/invitations', { email: email.trim(), role });
    setMade(r);
    setEmail('');
    return `Invited ${r.email}.`;
  }, ['email', 'role']);
  return (
    <>
      {made && <LinkCard made={made} label="Invitation link" done={() => setMade(undefined)} />}
      <form class="stack" noValidate onSubmit={onSubmit} aria-label="Invite someone">
        <Field label="E-mail" type="email" value={email} set={setEmail} required maxLength={320} error={errors.email} />
        <Choice
          label="Role"
          value={role}
          set={setRole}
          options={ROLES.slice(rank).map((r): [string, string] => [r, r])}
          error={errors.role}
        />
        <p>
          <button type="submit" disabled={busy || !email.trim()}>
            Invite
          </button>
        </p>
        <Message msg={msg} />
      </form>
    </>
  );
}

function ResetLink() {
  const [email, setEmail] = useState('');
  const [made, setMade] = useState<Made>();
  const { msg, errors, busy, onSubmit } = useSubmit(async () => {
    const r = await api<Made>('POST', '/api/v1/password-resets', { email: email.trim() });
    setMade(r);
    setEmail('');
    return `Made a password link for ${r.email}.`;
  }, ['email']);
  return (
    <>
      {made && <LinkCard made={made} label="Password link" done={() => setMade(undefined)} />}
      <form class="stack" noValidate onSubmit={onSubmit} aria-label="Password link">
        <Field label="Member's e-mail" type="email" value={email} set={setEmail} required error={errors.email} />
        <p>
          <button type="submit" disabled={busy || !email.trim()}>
            Make a password link
          </button>
        </p>
        <Message msg={msg} />
      </form>
    </>
  );
}

export function Invitations({ session }: { session: Session }) {
  const s = usePoll(() => get<{ invitations: Invitation[] }>('/api/v1/invitations'), 'invitations');
  return (
    <>
      <h1>Invitations</h1>
      <Section title="Invite someone">
        <Invite session={session} />
      </Section>
      <Section title="Open invitations">
        <Show s={s}>
          {(d) =>
            d.invitations.length === 0 ? (
              <p class="muted">No open invitation.</p>
            ) : (
              <Table testid="invitations" head={['E-mail', 'Role', 'Until', <ActionsHead key="a" />]}>
                {d.invitations.map((i) => (
                  <tr key={i.id}>
                    <th scope="row">{i.email}</th>
                    <td>{i.role}</td>
                    <td>{fmtTime(i.expires_at)}</td>
                    <td>
                      <button
                        type="button"
                        class="small danger"
                        aria-label={`Withdraw ${i.email}`}
                        onClick={() =>
                          void removeAfterConfirm(
                            `Withdraw the invitation of ${i.email}? Its link stops working.`,
                            `/api/v1/invitations/${i.id}`,
                          )
                        }
                      >
                        Withdraw
                      </button>
                    </td>
                  </tr>
                ))}
              </Table>
            )
          }
        </Show>
      </Section>
      <Section title="A new password for a member">
        <p class="muted">The link lets the member choose a new password; using it signs them out everywhere else.</p>
        <ResetLink />
      </Section>
    </>
  );
}
