// Audit (docs/audit.md): who changed what, newest first, from GET /api/v1/audit: filtered by person,
// object kind, action and dates, paged by the API's cursor; each entry opens to the fields its change
// moved, before and after (secrets come masked). The team's owners' page (the API refuses others).
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { usePoll } from '../hooks.js';
import { Choice, Field, Section, Show, Table, fmtTime } from '../ui.js';

interface Entry {
  id: string;
  at: string;
  actor: { user_id: string | null; email: string | null };
  via: { kind: 'token' | 'session' | 'cli-local' | 'config-apply'; id: string | null; name: string | null };
  action: string;
  object: { kind: string; id: string; name: string | null };
  before: unknown;
  after: unknown;
  request_id: string | null;
}

interface Filters {
  actor: string;
  kind: string;
  action: string;
  since: string;
  until: string;
}

const KINDS = [
  'domain',
  'endpoint',
  'liveness',
  'portfolio',
  'status_page',
  'maintenance_window',
  'channel',
  'subdomain',
  'token',
  'user',
];
const ACTIONS = ['create', 'update', 'delete', 'pause', 'resume', 'revoke', 'refresh', 'verify', 'scan', 'test'];
const EMPTY: Filters = { actor: '', kind: '', action: '', since: '', until: '' };

function query(f: Filters, cursor: string | null): string {
  const q = new URLSearchParams({ limit: '50' });
  if (f.actor.trim()) q.set('actor', f.actor.trim());
  if (f.kind) q.set('object_kind', f.kind);
  if (f.action) q.set('action', f.action);
  if (f.since) q.set('since', f.since);
  if (f.until) q.set('until', f.until);
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}

const who = (e: Entry) =>
  e.actor.email ?? (e.via.kind === 'cli-local' ? `local${e.via.name ? `: ${e.via.name}` : ''}` : '—');

function via(e: Entry): string {
  if (e.via.kind === 'token') return `token ${e.via.name ?? e.via.id ?? ''}`.trim();
  if (e.via.kind === 'session') return 'dashboard';
  if (e.via.kind === 'config-apply') return 'configuration apply';
  return 'command line';
}

/** The fields whose value differs between before and after (all of them for a create or a delete). */
function changed(e: Entry): [string, unknown, unknown][] {
  const b = (e.before ?? {}) as Record<string, unknown>;
  const a = (e.after ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => k !== 'updated_at');
  return keys
    .filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]))
    .map((k): [string, unknown, unknown] => [k, b[k], a[k]]);
}

const show = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));

function Row({ e }: { e: Entry }) {
  const fields = changed(e);
  return (
    <tr>
      <td>{fmtTime(e.at)}</td>
      <td>{who(e)}</td>
      <td>{via(e)}</td>
      <td>{e.action}</td>
      <th scope="row">
        {e.object.name ?? e.object.id}
        <div class="muted">{e.object.kind}</div>
      </th>
      <td>
        {fields.length ? (
          <details>
            <summary>{fields.map(([k]) => k).join(', ')}</summary>
            <Table head={['Field', 'Before', 'After']}>
              {fields.map(([k, b, a]) => (
                <tr key={k}>
                  <th scope="row">{k}</th>
                  <td>
                    <code>{show(b)}</code>
                  </td>
                  <td>
                    <code>{show(a)}</code>
                  </td>
                </tr>
              ))}
            </Table>
          </details>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
    </tr>
  );
}

function Entries({ filters, cursor, more }: { filters: Filters; cursor: string | null; more: (c: string) => void }) {
  const qs = query(filters, cursor);
  const s = usePoll(() => get<{ data: Entry[]; next_cursor: string | null }>(`/api/v1/audit?${qs}`), `audit?${qs}`);
  return (
    <Show s={s}>
      {(d) => (
        <Section title={d.data.length ? `${d.data.length} change${d.data.length === 1 ? '' : 's'}` : 'No changes'}>
          {d.data.length > 0 && (
            <Table testid="audit-table" head={['When', 'Who', 'Through', 'Action', 'Object', 'Changed']}>
              {d.data.map((e) => (
                <Row key={e.id} e={e} />
              ))}
            </Table>
          )}
          {d.next_cursor && (
            <button type="button" onClick={() => more(d.next_cursor!)}>
              Older changes
            </button>
          )}
        </Section>
      )}
    </Show>
  );
}

export function Audit() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [cursors, setCursors] = useState<string[]>([]);
  const set = (k: keyof Filters) => (v: string) => setDraft({ ...draft, [k]: v });
  const cursor = cursors.length ? cursors[cursors.length - 1]! : null;
  return (
    <>
      <h1>Audit</h1>
      <p class="muted">
        Every change a person or a token made in this team, newest first; secrets are masked. Export it with{' '}
        <code>dommon audit export</code>.
      </p>
      <form
        class="inline"
        aria-label="Filter changes"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(draft);
          setCursors([]);
        }}
      >
        <Field label="Person (e-mail)" value={draft.actor} set={set('actor')} name="actor" />
        <Choice label="Object" value={draft.kind} set={set('kind')} name="kind" options={[['', 'any'], ...KINDS]} />
        <Choice
          label="Action"
          value={draft.action}
          set={set('action')}
          name="action"
          options={[['', 'any'], ...ACTIONS]}
        />
        <Field label="From" type="date" value={draft.since} set={set('since')} name="since" />
        <Field label="Before" type="date" value={draft.until} set={set('until')} name="until" />
        <button type="submit">Filter</button>
      </form>
      {cursors.length > 0 && (
        <button type="button" onClick={() => setCursors([])}>
          Newest changes
        </button>
      )}
      <Entries
        key={query(applied, cursor)}
        filters={applied}
        cursor={cursor}
        more={(c) => setCursors([...cursors, c])}
      />
    </>
  );
}
