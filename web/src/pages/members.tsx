// Members (owners only; docs/accounts.md): the team's members and their roles. An owner changes a
// member's role (it applies at the member's next request) or removes a member (their tokens are
// revoked and sessions end). The server refuses to leave the team without an owner (LAST_OWNER),
// and the page says so.
import { useState } from 'preact/hooks';
import { api, get, type Session } from '../api.js';
import { refreshAll, usePoll } from '../hooks.js';
import { ActionsHead, Section, Show, Table, fmtTime, removeAfterConfirm } from '../ui.js';

interface Member {
  id: string;
  email: string;
  role: 'owner' | 'editor' | 'viewer';
  created_at: string;
}

const ROLES = ['owner', 'editor', 'viewer'] as const;

export function Members({ session }: { session: Session }) {
  const s = usePoll(async () => (await get<{ members: Member[] }>('/api/v1/members')).members, 'members');
  const [msg, setMsg] = useState<{ ok?: string; error?: string }>({});
  const setRole = async (m: Member, role: string) => {
    try {
      await api('PUT', `/api/v1/members/${m.id}`, { role });
      setMsg({ ok: `${m.email} is now ${role}.` });
    } catch (err) {
      setMsg({ error: err instanceof Error ? err.message : String(err) });
    }
    refreshAll();
  };
  return (
    <>
      <h1>Members</h1>
      <p class="muted">
        An owner may do everything, members and notification channels included; an editor manages domains, endpoints,
        checks, status pages and maintenance; a viewer only reads. A change applies at the member&apos;s next request; a
        removed member&apos;s tokens are revoked and their sessions end. The team always keeps an owner.
      </p>
      {msg.error && (
        <p class="error" role="alert">
          {msg.error}
        </p>
      )}
      {msg.ok && <p role="status">{msg.ok}</p>}
      <Show s={s}>
        {(members) => (
          <Section title={`${members.length} member${members.length === 1 ? '' : 's'}`}>
            <Table testid="members-table" head={['E-mail', 'Role', 'Member since', <ActionsHead key="a" />]}>
              {members.map((m) => (
                <tr key={m.id}>
                  <th scope="row">
                    {m.email}
                    {m.email === session.user && <span class="muted"> (you)</span>}
                  </th>
                  <td>
                    <select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      onChange={(e) => void setRole(m, e.currentTarget.value)}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>{fmtTime(m.created_at)}</td>
                  <td>
                    <button
                      type="button"
                      class="small danger"
                      aria-label={`Remove ${m.email}`}
                      onClick={() =>
                        void removeAfterConfirm(
                          `Remove ${m.email} from the team? Their tokens are revoked and their sessions end at once.`,
                          `/api/v1/members/${m.id}`,
                        ).then((done) => done && setMsg({ ok: `Removed ${m.email}.` }))
                      }
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
          </Section>
        )}
      </Show>
    </>
  );
}
