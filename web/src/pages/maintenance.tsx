// Maintenance windows (docs/maintenance-windows.md): the team's windows, one-off or recurring, with
// what each covers and whether it holds now; a form to add or edit one and, per row, delete it, all
// through /api/v1/maintenance-windows. The form's own fields (name, cron, duration, time zone,
// enabled) are made from the maintenance-window-create/-update schemas; the times are the browser's
// date-time inputs (local time, sent as ISO) and the targets are picked from the team's endpoints,
// domains and portfolios by name.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { all, api } from '../api.js';
import { usePoll } from '../hooks.js';
import type { Domain, Endpoint, MaintenanceWindow, Portfolio } from '../types.js';
import {
  ActionsHead,
  Badge,
  EditDelete,
  Check,
  ManagedBadge,
  Message,
  Section,
  Show,
  Table,
  removeAfterConfirm,
} from '../ui.js';
import { Write } from '../scope.js';
import { type Defs, Fields, useSchemaSubmit, useSchemas } from '../schema-form.js';
import { naturalCompare } from '../sort.js';

interface Data {
  windows: MaintenanceWindow[];
  endpoints: (Endpoint & { domain: string })[];
  domains: Domain[];
  portfolios: Portfolio[];
}

async function load(): Promise<Data> {
  const [windows, endpoints, domains, portfolios] = await Promise.all([
    all<MaintenanceWindow>('/api/v1/maintenance-windows'),
    all<Endpoint>('/api/v1/endpoints', 2000),
    all<Domain>('/api/v1/domains', 1000),
    all<Portfolio>('/api/v1/portfolios'),
  ]);
  const names = new Map(domains.map((d) => [d.id, d.domain]));
  return {
    windows: windows.sort((a, b) => naturalCompare(a.name, b.name)),
    endpoints: endpoints
      .map((e) => ({ ...e, domain: names.get(e.domain_id) ?? '' }))
      .sort((a, b) => naturalCompare(`${a.domain} ${a.name}`, `${b.domain} ${b.name}`)),
    domains: domains.sort((a, b) => naturalCompare(a.domain, b.domain)),
    portfolios: portfolios.sort((a, b) => naturalCompare(a.name, b.name)),
  };
}

const WHEN: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };

/** A span in the reader's local time and words: "1 Dec 2026, 22:00 – 23:30" (the end's day when it differs). */
function fmtSpan(start: string, end: string): string {
  const a = new Date(start);
  const b = new Date(end);
  const sameDay = a.toDateString() === b.toDateString();
  return `${a.toLocaleString(undefined, WHEN)} – ${sameDay ? b.toLocaleTimeString(undefined, { timeStyle: 'short' }) : b.toLocaleString(undefined, WHEN)}`;
}

/** An ISO instant as a date-time input's value (local time, to the minute). */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A date-time input's value (local time) as an ISO instant; null when empty. */
const fromLocalInput = (v: string): string | null => (v ? new Date(v).toISOString() : null);

/** What a row's state reads: active now, scheduled, ended, or disabled. */
const stateOf = (w: MaintenanceWindow) =>
  !w.is_enabled ? 'disabled' : w.active ? 'active' : w.current_or_next ? 'scheduled' : 'ended';

/** An error the API named a field for that this form draws itself (the times, the targets). */
const errorFor = (errors: Record<string, string>, path: string) =>
  errors[path] ?? Object.entries(errors).find(([k]) => k.startsWith(`${path}.`))?.[1];

function FieldError({ error }: { error: string | undefined }) {
  return error ? (
    <small class="field-error" role="alert">
      {error}
    </small>
  ) : null;
}

function When({ w }: { w: MaintenanceWindow }) {
  if (!w.cron) return <>{w.starts_at && w.ends_at ? fmtSpan(w.starts_at, w.ends_at) : '—'}</>;
  const next = w.current_or_next;
  return (
    <>
      every <code>{w.cron}</code> ({w.timezone}), {w.duration_minutes} min
      {next && (
        <span class="muted">
          <br />
          {w.active ? 'now: ' : 'next: '}
          {fmtSpan(next.starts_at, next.ends_at)}
        </span>
      )}
    </>
  );
}

function Covers({ w, d }: { w: MaintenanceWindow; d: Data }) {
  const links: [string, string, string][] = [
    ...w.endpoint_ids.map((id): [string, string, string] => {
      const e = d.endpoints.find((x) => x.id === id);
      return [id, `#/endpoints/${id}`, e ? `${e.domain} · ${e.name}` : 'an endpoint since removed'];
    }),
    ...w.domain_ids.map((id): [string, string, string] => [
      id,
      `#/domains/${id}`,
      `domain ${d.domains.find((x) => x.id === id)?.domain ?? '(removed)'}`,
    ]),
    ...w.portfolio_ids.map((id): [string, string, string] => [
      id,
      '#/portfolios',
      `portfolio ${d.portfolios.find((x) => x.id === id)?.name ?? '(removed)'}`,
    ]),
  ];
  return (
    <>
      {links.map(([id, href, text], i) => (
        <span key={id}>
          {i > 0 && ', '}
          <a href={href}>{text}</a>
        </span>
      ))}
    </>
  );
}

type Values = Record<string, unknown>;

/** The schema fields a window's edit starts from. */
const fromWindow = (w: MaintenanceWindow): Values => ({
  name: w.name,
  ...(w.cron ? { cron: w.cron, duration_minutes: w.duration_minutes, timezone: w.timezone } : {}),
  is_enabled: w.is_enabled,
});

const TARGETS = ['starts_at', 'ends_at', 'endpoint_ids', 'domain_ids', 'portfolio_ids'];
const RECURRING = ['cron', 'duration_minutes', 'timezone'];

/** Ticks a set of ids: a fieldset of checkboxes, with the API's error for it. */
function Pick({
  legend,
  field,
  options,
  chosen,
  set,
  error,
  none,
}: {
  legend: string;
  field: string;
  options: [string, string][];
  chosen: string[];
  set: (ids: string[]) => void;
  error?: string;
  none: ComponentChildren;
}) {
  return (
    <fieldset class={`field nested${error ? ' invalid' : ''}`} data-field={field}>
      <legend>{legend}</legend>
      {options.length === 0 && <p class="muted">{none}</p>}
      {options.map(([id, label]) => (
        <Check
          key={id}
          label={label}
          checked={chosen.includes(id)}
          set={(on) => set(on ? [...chosen, id] : chosen.filter((x) => x !== id))}
        />
      ))}
      <FieldError error={error} />
    </fieldset>
  );
}

/** Add (no `editing`) or edit a window: one-off (start, end) or recurring (cron, duration, time zone, optional bounds). */
function WindowForm({
  data,
  defs,
  editing,
  done,
}: {
  data: Data;
  defs: Defs;
  editing?: MaintenanceWindow;
  done: () => void;
}) {
  const [values, setValues] = useState<Values>(() => (editing ? fromWindow(editing) : {}));
  const [recurring, setRecurring] = useState(!!editing?.cron);
  const [start, setStart] = useState(toLocalInput(editing?.starts_at ?? null));
  const [end, setEnd] = useState(toLocalInput(editing?.ends_at ?? null));
  const [endpoints, setEndpoints] = useState(editing?.endpoint_ids ?? []);
  const [domains, setDomains] = useState(editing?.domain_ids ?? []);
  const [portfolios, setPortfolios] = useState(editing?.portfolio_ids ?? []);
  const { errors, msg, busy, onSubmit, form } = useSchemaSubmit(async () => {
    const own = Object.fromEntries(Object.entries(values).filter(([k]) => recurring || !RECURRING.includes(k)));
    const body: Values = {
      ...own,
      endpoint_ids: endpoints,
      domain_ids: domains,
      portfolio_ids: portfolios,
    };
    const s = fromLocalInput(start);
    const e = fromLocalInput(end);
    // An edit sends what it clears (null); a new window leaves out what it does not have.
    if (s || editing) body.starts_at = s;
    if (e || editing) body.ends_at = e;
    if (editing && !recurring) Object.assign(body, { cron: null, duration_minutes: null });
    const w = editing
      ? await api<MaintenanceWindow>('PUT', `/api/v1/maintenance-windows/${editing.id}`, body)
      : await api<MaintenanceWindow>('POST', '/api/v1/maintenance-windows', body);
    if (editing) {
      done();
      return `Saved ${w.name}.`;
    }
    setValues({});
    setStart('');
    setEnd('');
    setEndpoints([]);
    setDomains([]);
    setPortfolios([]);
    return `Added ${w.name}.`;
  });
  const startError = errorFor(errors, 'starts_at');
  const endError = errorFor(errors, 'ends_at');
  return (
    <form
      ref={form}
      class="stack schema"
      noValidate
      onSubmit={onSubmit}
      aria-label={editing ? `Edit the maintenance window ${editing.name}` : 'Add a maintenance window'}
    >
      <fieldset class="field nested" data-field="kind">
        <legend>Kind</legend>
        <label class="check">
          <input type="radio" name="kind" checked={!recurring} onChange={() => setRecurring(false)} />
          One-off (from a start to an end)
        </label>
        <label class="check">
          <input type="radio" name="kind" checked={recurring} onChange={() => setRecurring(true)} />
          Recurring (a cron schedule)
        </label>
      </fieldset>
      <Fields
        key={`${msg.ok ?? ''}${recurring}`}
        schema={defs[editing ? 'maintenance-window-update' : 'maintenance-window-create']!}
        defs={defs}
        value={values}
        onChange={setValues}
        errors={errors}
        omit={recurring ? TARGETS : [...TARGETS, ...RECURRING]}
      />
      <div class={`field${startError ? ' invalid' : ''}`} data-field="starts_at">
        <label>
          {recurring ? 'Not before (optional, your local time)' : 'Starts (your local time)'}
          <input
            type="datetime-local"
            name="starts_at"
            value={start}
            onInput={(e) => setStart(e.currentTarget.value)}
            aria-invalid={startError ? 'true' : undefined}
          />
        </label>
        <FieldError error={startError} />
      </div>
      <div class={`field${endError ? ' invalid' : ''}`} data-field="ends_at">
        <label>
          {recurring ? 'Not from (optional, your local time)' : 'Ends (your local time)'}
          <input
            type="datetime-local"
            name="ends_at"
            value={end}
            onInput={(e) => setEnd(e.currentTarget.value)}
            aria-invalid={endError ? 'true' : undefined}
          />
        </label>
        <FieldError error={endError} />
      </div>
      <Pick
        legend="Endpoints it covers"
        field="endpoint_ids"
        options={data.endpoints.map((e) => [e.id, `${e.domain} · ${e.name}`])}
        chosen={endpoints}
        set={setEndpoints}
        error={errorFor(errors, 'endpoint_ids')}
        none={
          <>
            No endpoint yet: add one on a domain's page (<a href="#/domains">Domains</a>).
          </>
        }
      />
      <Pick
        legend="Domains it covers (all their endpoints, now and later)"
        field="domain_ids"
        options={data.domains.map((d) => [d.id, d.domain])}
        chosen={domains}
        set={setDomains}
        error={errorFor(errors, 'domain_ids')}
        none={
          <>
            No domain yet: <a href="#/domains">add one</a>.
          </>
        }
      />
      <Pick
        legend="Portfolios it covers (their domains' endpoints)"
        field="portfolio_ids"
        options={data.portfolios.map((p) => [p.id, p.name])}
        chosen={portfolios}
        set={setPortfolios}
        error={errorFor(errors, 'portfolio_ids')}
        none={
          <>
            No portfolio yet: <a href="#/portfolios">add one</a>.
          </>
        }
      />
      <div class="inline">
        <button type="submit" disabled={busy}>
          {editing ? 'Save window' : 'Add window'}
        </button>
        {editing && (
          <button type="button" onClick={done}>
            Cancel
          </button>
        )}
      </div>
      <Message msg={msg} />
    </form>
  );
}

export function Maintenance() {
  const s = usePoll(load, 'maintenance');
  const defs = useSchemas();
  const [editing, setEditing] = useState<string | null>(null);
  const remove = async (w: MaintenanceWindow) => {
    const gone = await removeAfterConfirm(
      `Delete the maintenance window ${w.name}?`,
      `/api/v1/maintenance-windows/${w.id}`,
    );
    if (gone && editing === w.id) setEditing(null);
  };
  return (
    <>
      <h1>Maintenance</h1>
      <Show s={s}>
        {(d) => {
          const current = d.windows.find((w) => w.id === editing);
          return (
            <>
              <Section title="Maintenance windows" wide>
                <p class="muted">
                  While a window covers an endpoint its checks go on, no alert is sent, and its state reads maintenance.
                  Times are in your browser's time zone.
                </p>
                {d.windows.length === 0 ? (
                  <p class="muted" data-testid="empty">
                    No maintenance window yet: add one below (a one-off for a planned upgrade, or a recurring one for a
                    nightly backup) and pick the endpoints, domains or portfolios it covers.
                  </p>
                ) : (
                  <Table testid="maintenance-table" head={['Name', 'When', 'Covers', 'State', <ActionsHead key="a" />]}>
                    {d.windows.map((w) => (
                      <tr key={w.id} data-testid="maintenance-row" data-name={w.name}>
                        <th scope="row">
                          {w.name} <ManagedBadge of={w} />
                        </th>
                        <td data-testid="when">
                          <When w={w} />
                        </td>
                        <td data-testid="covers">
                          <Covers w={w} d={d} />
                        </td>
                        <td>
                          <Badge value={stateOf(w)} />
                        </td>
                        <td>
                          <EditDelete
                            of={w}
                            name={w.name}
                            onEdit={() => setEditing(w.id)}
                            onDelete={() => void remove(w)}
                          />
                        </td>
                      </tr>
                    ))}
                  </Table>
                )}
              </Section>
              <Write>
                {!defs ? (
                  <p class="muted">Loading the form…</p>
                ) : current ? (
                  <Section title={`Edit ${current.name}`}>
                    <WindowForm key={current.id} data={d} defs={defs} editing={current} done={() => setEditing(null)} />
                  </Section>
                ) : (
                  <Section title="New maintenance window">
                    <WindowForm key="new" data={d} defs={defs} done={() => undefined} />
                  </Section>
                )}
              </Write>
            </>
          );
        }}
      </Show>
    </>
  );
}
