// Account settings: the person's password, changed with the current one (docs/accounts.md#changing-your-password),
// and the passkeys (WebAuthn) they sign in with (docs/accounts.md#passkeys): listed with when each was
// made and last used, added under a name (the browser asks the authenticator, @simplewebauthn/browser),
// removed. A token's session has no account, so neither.
import { useState } from 'preact/hooks';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { ApiError, api, changePassword, get } from '../api.js';
import { usePoll } from '../hooks.js';
import { ActionsHead, Field, Message, Section, Show, Table, fmtTime, removeAfterConfirm, useSubmit } from '../ui.js';

interface Passkey {
  id: string;
  name: string;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const { msg, errors, busy, onSubmit } = useSubmit(async () => {
    if (next !== again) throw new ApiError(400, 'new_password_again: is not the same as the new password');
    const r = await changePassword(current, next);
    setCurrent('');
    setNext('');
    setAgain('');
    return r.ended_sessions
      ? `Password changed. ${r.ended_sessions === 1 ? 'One other session was' : `${r.ended_sessions} other sessions were`} signed out.`
      : 'Password changed.';
  }, ['current_password', 'new_password', 'new_password_again']);
  return (
    <form class="stack" noValidate onSubmit={onSubmit} aria-label="Change your password">
      <Field
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={current}
        set={setCurrent}
        required
        maxLength={1024}
        error={errors.current_password}
      />
      <Field
        label="New password"
        type="password"
        autoComplete="new-password"
        value={next}
        set={setNext}
        required
        minLength={10}
        maxLength={1024}
        error={errors.new_password}
      />
      <Field
        label="The new password again"
        type="password"
        autoComplete="new-password"
        value={again}
        set={setAgain}
        required
        maxLength={1024}
        error={errors.new_password_again}
      />
      <p class="muted">At least 10 characters. Your other sessions, in every team, are signed out; API tokens stay.</p>
      <p>
        <button type="submit" disabled={busy || !current || !next || !again}>
          Change password
        </button>
      </p>
      <Message msg={msg} />
    </form>
  );
}

function AddPasskey() {
  const [name, setName] = useState('');
  const { msg, errors, busy, onSubmit } = useSubmit(async () => {
    // Loaded when used: the rest of the dashboard does without it.
    const { startRegistration } = await import('@simplewebauthn/browser');
    const optionsJSON = await api<PublicKeyCredentialCreationOptionsJSON>(
      'POST',
      '/api/v1/account/passkeys/options',
      {},
    );
    const response = await startRegistration({ optionsJSON });
    const k = await api<Passkey>('POST', '/api/v1/account/passkeys', { name: name.trim(), response });
    setName('');
    return `Added the passkey ${k.name}.`;
  }, ['name']);
  if (typeof PublicKeyCredential === 'undefined') return <p class="muted">This browser cannot make passkeys.</p>;
  return (
    <form class="stack" onSubmit={onSubmit} aria-label="Add a passkey">
      <Field
        label="Name"
        name="name"
        value={name}
        set={setName}
        required
        maxLength={100}
        placeholder="laptop"
        error={errors.name}
      />
      <p>
        <button type="submit" disabled={busy}>
          Add a passkey
        </button>
      </p>
      <Message msg={msg} />
    </form>
  );
}

export function Account({ account }: { account: boolean }) {
  const s = usePoll(() => get<{ passkeys: Passkey[] }>('/api/v1/account/passkeys'), 'passkeys');
  return (
    <>
      <h1>Account</h1>
      <Section title="Password">
        {account ? (
          <ChangePassword />
        ) : (
          <p class="muted">
            This session was made from an API token, which has no password: sign in with your e-mail and password to
            change yours.
          </p>
        )}
      </Section>
      <Section title="Passkeys">
        {!account ? (
          <p class="muted">
            Passkeys belong to a person&apos;s account: sign in with your e-mail and password to add one. This session
            was made from an API token.
          </p>
        ) : (
          <>
            <p class="muted">Sign in with a passkey instead of your password: your device unlocks it.</p>
            <Show s={s}>
              {(d) =>
                d.passkeys.length ? (
                  <Table testid="passkeys" head={['Name', 'Added', 'Last used', <ActionsHead key="a" />]}>
                    {d.passkeys.map((k) => (
                      <tr key={k.id}>
                        <td>{k.name}</td>
                        <td>{fmtTime(k.created_at)}</td>
                        <td>{k.last_used_at ? fmtTime(k.last_used_at) : 'never'}</td>
                        <td>
                          <button
                            type="button"
                            aria-label={`Remove the passkey ${k.name}`}
                            onClick={() =>
                              void removeAfterConfirm(
                                `Remove the passkey ${k.name}? It will no longer sign in.`,
                                `/api/v1/account/passkeys/${k.id}`,
                              )
                            }
                          >
                            Remove
                          </button>
                        </td>
                      </tr>
                    ))}
                  </Table>
                ) : (
                  <p>No passkeys yet.</p>
                )
              }
            </Show>
            <AddPasskey />
          </>
        )}
      </Section>
    </>
  );
}
