// Setting endpoints up: the add form and the settings forms of an endpoint and its liveness checks, all
// made from the API's schemas (endpoint-create, endpoint-update, liveness-create, liveness-update), so
// a new endpoint type or liveness field appears here without web code; and a domain's endpoints as a
// table whose checked rows pause, resume or remove together.
import { useState } from 'preact/hooks';
import { all, api, get } from '../api.js';
import { usePoll } from '../hooks.js';
import type { Endpoint, Liveness } from '../types.js';
import {
  Badge,
  Breakable,
  ChangeButton,
  EndpointBulkActions,
  ManagedBadge,
  Message,
  Section,
  Show,
  Table,
  type Managed,
} from '../ui.js';
import { Write } from '../scope.js';
import {
  type Defs,
  type Schema,
  Fields,
  applicable,
  initial,
  resolve,
  useSchemaSubmit,
  useSchemas,
} from '../schema-form.js';
import { naturalCompare } from '../sort.js';
import { readStates, type RowState } from './home.js';

type Obj = Record<string, unknown>;

/** Of an answer, the members a request schema takes (nulls dropped where it takes none). */
function pick(answer: Obj, schema: Schema, defs: Defs): Obj {
  const props = resolve(schema, defs).properties ?? {};
  const out: Obj = {};
  for (const [k, p] of Object.entries(props)) {
    const v = answer[k];
    if (v === undefined || p.readOnly) continue;
    const t = resolve(p, defs).type;
    if (v === null && !(Array.isArray(t) && t.includes('null'))) continue;
    out[k] = v;
  }
  return out;
}

/** What changed between two values (a key whose value differs, or is new). */
function diff(before: Obj, after: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(after)) if (JSON.stringify(v) !== JSON.stringify(before[k])) out[k] = v;
  return out;
}

export function AddEndpoint({ domainId }: { domainId: string }) {
  const defs = useSchemas();
  if (!defs) return <p class="muted">Loading…</p>;
  return <AddEndpointForm domainId={domainId} defs={defs} />;
}

function AddEndpointForm({ domainId, defs }: { domainId: string; defs: Defs }) {
  const schema = defs['endpoint-create']!;
  // Liveness checks are on for a new endpoint unless unticked (an empty object: the API's defaults).
  const fresh = () => initial(schema, defs, { liveness: {} });
  const [value, setValue] = useState<Obj>(fresh);
  const [round, setRound] = useState(0);
  const { errors, msg, onSubmit, form, busy } = useSchemaSubmit(async () => {
    const body = { ...applicable(schema, defs, value), domain_id: domainId };
    const e = await api<{ name: string }>('POST', '/api/v1/endpoints', body);
    setValue(fresh());
    setRound((n) => n + 1);
    return `Added ${e.name}.`;
  });
  return (
    <form ref={form} class="stack schema" noValidate onSubmit={onSubmit} aria-label="Add an endpoint">
      <Fields
        key={round}
        schema={schema}
        defs={defs}
        value={value}
        onChange={setValue}
        errors={errors}
        omit={['domain_id']}
      />
      <p>
        <button type="submit" disabled={busy}>
          Add endpoint
        </button>
      </p>
      <Message msg={msg} />
    </form>
  );
}

/** A settings form: the current values, and a PUT of what changed. */
function SettingsForm({
  label,
  schema,
  defs,
  current,
  path,
  submit,
  managed,
}: {
  label: string;
  schema: Schema;
  defs: Defs;
  current: Obj;
  path: string;
  submit: string;
  /** The object's configuration-file hold: Save is disabled, with the reason, while the file keeps it. */
  managed: Managed;
}) {
  const [start, setStart] = useState(() => pick(current, schema, defs));
  const [value, setValue] = useState<Obj>(start);
  const { errors, msg, onSubmit, form, busy } = useSchemaSubmit(async () => {
    const changed = diff(start, applicable(schema, defs, value));
    if (!Object.keys(changed).length) return 'Nothing changed.';
    await api('PUT', path, changed);
    setStart(value);
    return 'Saved.';
  });
  return (
    <form ref={form} class="stack schema" noValidate onSubmit={onSubmit} aria-label={label}>
      <Fields schema={schema} defs={defs} value={value} onChange={setValue} errors={errors} />
      <p>
        <ChangeButton of={managed} type="submit" disabled={busy}>
          {submit}
        </ChangeButton>
      </p>
      <Message msg={msg} />
    </form>
  );
}

/** Liveness checks for an endpoint that has none. */
function AddLiveness({ endpointId, defs }: { endpointId: string; defs: Defs }) {
  const schema = defs['liveness-create']!;
  const [value, setValue] = useState<Obj>(() => initial(schema, defs));
  const { errors, msg, onSubmit, form, busy } = useSchemaSubmit(async () => {
    await api('POST', '/api/v1/liveness', { ...value, endpoint_id: endpointId });
    return 'Liveness checks added.';
  });
  return (
    <form ref={form} class="stack schema" noValidate onSubmit={onSubmit} aria-label="Add liveness checks">
      <Fields schema={schema} defs={defs} value={value} onChange={setValue} errors={errors} omit={['endpoint_id']} />
      <p>
        <button type="submit" disabled={busy}>
          Add liveness checks
        </button>
      </p>
      <Message msg={msg} />
    </form>
  );
}

/** The endpoint's settings and its liveness checks' settings (every field of their schemas). */
export function EndpointSettings({ endpointId }: { endpointId: string }) {
  const defs = useSchemas();
  const s = usePoll(
    async () => {
      const [endpoint, live] = await Promise.all([
        get<Obj>(`/api/v1/endpoints/${endpointId}`),
        all<Liveness>(`/api/v1/liveness?endpoint_id=${endpointId}`, 1),
      ]);
      return { endpoint, live: live[0] };
    },
    `endpoint-settings:${endpointId}`,
    60_000,
  );
  return (
    <Write>
      <Section title="Settings">
        <Show s={s}>
          {(d) =>
            defs ? (
              <div class="grid">
                <div>
                  <h3>Liveness checks</h3>
                  {d.live ? (
                    <SettingsForm
                      key={d.live.id}
                      label="Liveness settings"
                      schema={defs['liveness-update']!}
                      defs={defs}
                      current={d.live as unknown as Obj}
                      path={`/api/v1/liveness/${d.live.id}`}
                      submit="Save liveness settings"
                      managed={d.live}
                    />
                  ) : (
                    <AddLiveness endpointId={endpointId} defs={defs} />
                  )}
                </div>
                <div>
                  <h3>Endpoint</h3>
                  <SettingsForm
                    label="Endpoint settings"
                    schema={defs['endpoint-update']!}
                    defs={defs}
                    current={d.endpoint}
                    path={`/api/v1/endpoints/${endpointId}`}
                    submit="Save endpoint"
                    managed={d.endpoint as Managed}
                  />
                </div>
              </div>
            ) : (
              <p class="muted">Loading…</p>
            )
          }
        </Show>
      </Section>
    </Write>
  );
}

/** A domain's endpoints with their checks; the ticked ones pause, resume or go together. */
export function DomainEndpoints({ domainId, endpoints }: { domainId: string; endpoints: Endpoint[] }) {
  const ids = endpoints.map((e) => e.id).join(',');
  const live = usePoll(
    () =>
      Promise.all([
        all<Liveness>(`/api/v1/liveness?domain_id=${domainId}`, 2000),
        readStates(endpoints.map((e) => e.id)),
      ]),
    `live:${domainId}:${ids}`,
  );
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const byEndpoint = new Map((live.data?.[0] ?? []).map((l) => [l.endpoint_id, l]));
  const states = live.data?.[1] ?? new Map<string, RowState>();
  const rows = [...endpoints].sort((a, b) => naturalCompare(a.name, b.name));
  const picked = rows.filter((e) => chosen.has(e.id));
  const toggle = (id: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
  };
  if (!rows.length)
    return (
      <p class="muted" data-testid="empty">
        No endpoints yet: add the site, API or mail server of this domain below to check its certificate and whether it
        answers.
      </p>
    );
  return (
    <>
      <Table
        testid="endpoints-table"
        head={[
          <th key="c" scope="col">
            <input
              type="checkbox"
              aria-label="Select every endpoint"
              checked={picked.length === rows.length}
              onChange={(e) => setChosen(new Set(e.currentTarget.checked ? rows.map((r) => r.id) : []))}
            />
          </th>,
          'Name',
          'State',
          'Type',
          'Address',
          'Checks',
        ]}
      >
        {rows.map((e) => {
          const l = byEndpoint.get(e.id);
          const st = states.get(e.id);
          return (
            <tr key={e.id}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Select ${e.name}`}
                  checked={chosen.has(e.id)}
                  onChange={(x) => toggle(e.id, x.currentTarget.checked)}
                />
              </td>
              <td>
                <a href={`#/endpoints/${e.id}`}>{e.name}</a> <ManagedBadge of={e} />
              </td>
              <td data-testid="endpoint-state">
                {st ? <Badge value={st.state === 'unknown' ? 'not checked' : st.state} /> : '—'}
                {st?.reason && (
                  <div class={st.state === 'down' ? 'bad reason' : 'warn reason'} data-testid="reason">
                    {st.reason}
                  </div>
                )}
              </td>
              <td>{e.endpoint_type}</td>
              <td class="url">
                <Breakable text={e.full_url} />
              </td>
              <td>
                {l ? (
                  <>
                    <Badge value={l.is_enabled ? 'active' : 'paused'} />{' '}
                    {l.interval_seconds ? <span class="muted">every {l.interval_seconds} s</span> : null}
                  </>
                ) : (
                  <span class="muted">none</span>
                )}
              </td>
            </tr>
          );
        })}
      </Table>
      <EndpointBulkActions
        picked={picked.map((e) => e.id)}
        names={new Map(rows.map((e) => [e.id, e.name]))}
        done={() => setChosen(new Set())}
      />
    </>
  );
}
