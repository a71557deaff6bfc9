// Shared bits of the pages: status badges, dates, loading and error lines, data tables, form fields
// and a form's submit with its status line.
import { Fragment, type ButtonHTMLAttributes, type ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, fieldErrors } from './api.js';
import { refreshAll, type Loaded } from './hooks.js';
import { Write } from './scope.js';

export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
export const addDays = (n: number) => new Date(Date.now() + n * 86_400_000);

export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/**
 * A date (an ISO date or date-time, such as a registry's "2031-05-04T00:00:00Z") as the day it names,
 * in the reader's words ("4 May 2031"), not as raw ISO text; '—' for none.
 */
export function fmtDay(iso: string | null | undefined): string {
  if (!iso) return '—';
  if (!/^\d{4}-\d{2}-\d{2}/.test(iso)) return iso;
  const d = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
}

export function pct(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : `${(Math.round(v * 100) / 100).toFixed(2)} %`;
}

const TONE: Record<string, string> = {
  healthy: 'good',
  up: 'good',
  valid: 'good',
  active: 'good',
  live: 'good',
  sent: 'good',
  success: 'good',
  A: 'good',
  B: 'good',
  warning: 'warn',
  expiring_soon: 'warn',
  degraded: 'warn',
  C: 'warn',
  D: 'warn',
  pending: 'warn',
  stale: 'warn',
  paused: 'warn',
  maintenance: 'warn',
  critical: 'bad',
  down: 'bad',
  expired: 'bad',
  invalid: 'bad',
  error: 'bad',
  failed: 'bad',
  F: 'bad',
  ok: 'good',
  bad: 'bad',
};

export function Badge({ value }: { value: string | null | undefined }) {
  const v = value ?? 'unknown';
  return <span class={`badge ${TONE[v] ?? 'none'}`}>{v.replace(/_/g, ' ')}</span>;
}

/** What the API's reads say of a configuration file's hold on an object (docs/configuration-file.md#managed-objects). */
export interface Managed {
  managed_by?: 'config' | null;
  editable?: boolean;
}

/** The tooltip of a control a configuration file keeps from being used. */
export const MANAGED_WHY =
  'Managed by the configuration file (dommon serve --config): change it in the file, not here.';

/** True when a configuration file manages the object and does not allow editing it elsewhere. */
export const locked = (m: Managed | undefined): boolean => m?.managed_by === 'config' && m.editable === false;

/** "managed by config" beside an object a configuration file manages (editable or not). */
export function ManagedBadge({ of }: { of: Managed | undefined }) {
  if (of?.managed_by !== 'config') return null;
  return (
    <span
      class="badge managed"
      data-testid="managed-badge"
      title={of.editable ? 'Made by the configuration file, which allows editing it here' : MANAGED_WHY}
    >
      managed by config
    </span>
  );
}

/**
 * A button that changes an object: disabled, with the reason as its tooltip (on a wrapper too, since
 * a disabled control gets no pointer events in every browser), when a configuration file holds it.
 */
export function ChangeButton({
  of,
  children,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { of: Managed | undefined }) {
  if (!locked(of))
    return (
      <button type="button" {...rest}>
        {children}
      </button>
    );
  return (
    <span class="locked" title={MANAGED_WHY}>
      <button type="button" {...rest} onClick={undefined} disabled title={MANAGED_WHY}>
        {children}
      </button>
    </span>
  );
}

/** A row's Edit and Delete buttons (disabled, with the reason, on an object a configuration file manages). */
export function EditDelete({
  of,
  name,
  onEdit,
  onDelete,
}: {
  of: Managed | undefined;
  name: string;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <Write>
      <ChangeButton of={of} class="small" onClick={onEdit} aria-label={`Edit ${name}`}>
        Edit
      </ChangeButton>{' '}
      <ChangeButton of={of} class="danger small" onClick={onDelete} aria-label={`Delete ${name}`}>
        Delete
      </ChangeButton>
    </Write>
  );
}

export function Days({ days }: { days: number | null | undefined }) {
  if (days === null || days === undefined) return <span class="muted">—</span>;
  const tone = days < 0 ? 'bad' : days <= 30 ? 'warn' : '';
  return <span class={tone}>{days}</span>;
}

/** A titled card; `wide`: across the whole row of a grid (for content that reads badly squeezed). */
export function Section({ title, children, wide }: { title: string; children: ComponentChildren; wide?: boolean }) {
  return (
    <section class={wide ? 'card wide' : 'card'} aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** The loading line, the error line, or the children once the data is there. */
/** A failed read (a 429, the network, ...) and a button to read again. */
export function LoadError({ error, retry }: { error: string; retry: () => void }) {
  return (
    <p class="error" role="alert">
      {error}{' '}
      <button type="button" onClick={retry}>
        Retry
      </button>
    </p>
  );
}

export function Show<T>({ s, children }: { s: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (s.data !== undefined)
    return (
      <>
        {s.error && <LoadError error={s.error} retry={s.reload} />}
        {children(s.data)}
      </>
    );
  if (s.error) return <LoadError error={s.error} retry={s.reload} />;
  return <p class="muted">Loading…</p>;
}

/** A data table that scrolls inside its box: column headings (a string is a plain `th`), rows as children. */
export function Table({
  testid,
  caption,
  head,
  children,
}: {
  testid?: string;
  caption?: ComponentChildren;
  head: ComponentChildren[];
  children: ComponentChildren;
}) {
  return (
    <div class="scroll">
      <table class="data" data-testid={testid}>
        {caption && <caption class="muted">{caption}</caption>}
        <thead>
          <tr>
            {head.map((h, i) =>
              typeof h === 'string' ? (
                <th key={i} scope="col">
                  {h}
                </th>
              ) : (
                h
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A heading cell that names a column of buttons without a visible heading. */
export const ActionsHead = () => (
  <th scope="col">
    <span class="sr-only">Actions</span>
  </th>
);

interface FormMessage {
  error?: string;
  ok?: string;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * A form's submit: runs the write, shows what it returns as the form's status line, and has every
 * view reload. A refused write's errors at the fields the form shows (`fields`, the API's names)
 * go under those fields (`errors`, for Field and Choice); the form's alert has the rest, or says how
 * many fields to fix. `busy` while it runs.
 */
export function useSubmit(write: () => Promise<string | undefined>, fields: readonly string[] = []) {
  const [msg, setMsg] = useState<FormMessage>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget instanceof HTMLFormElement ? e.currentTarget : null;
    setBusy(true);
    try {
      setMsg({ ok: await write() });
      setErrors({});
      refreshAll();
    } catch (err) {
      const all = Object.entries(fieldErrors(err));
      const shown = Object.fromEntries(all.filter(([f]) => fields.includes(f)));
      const rest = all.filter(([f]) => !fields.includes(f));
      const n = Object.keys(shown).length;
      setErrors(shown);
      setMsg({
        error:
          !n || rest.length
            ? rest.length
              ? rest.map(([f, m]) => `${f}: ${m}`).join('; ')
              : errorText(err)
            : `${n === 1 ? 'One field needs' : `${n} fields need`} a fix: see the message under it${n === 1 ? '' : ' each'}.`,
      });
      // The first field in error takes the focus, once drawn.
      if (n) setTimeout(() => form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
    } finally {
      setBusy(false);
    }
  };
  return { msg, errors, busy, onSubmit: (e: Event) => void submit(e) };
}

/**
 * Text with URLs or host names in it, breakable after `/`, `.`, `?`, `&` and `=` (a `<wbr>` there)
 * rather than mid-word: `https://www.example.com:44287/ping` wraps as `https://www.` `example.com:44287/`.
 */
export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[/.?&=])(?=\S)/);
  return (
    <>
      {parts.map((p, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {p}
        </Fragment>
      ))}
    </>
  );
}

/**
 * A secret shown once (an API token, a one-time link): what it is (`children`), a read-only field that
 * selects itself, Copy, and Done (`done` hides it). Give it a `key` of the secret, so a new one starts
 * without the last one's "copied" line.
 */
export function ShownOnce({
  label,
  field,
  value,
  size,
  done,
  children,
}: {
  label: string;
  field: string;
  value: string;
  size: number;
  done: () => void;
  children: ComponentChildren;
}) {
  const [copied, setCopied] = useState('');
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setCopied('Copied to the clipboard.'),
      () => setCopied(`The browser refused the clipboard: select the ${field.toLowerCase()} and copy it.`),
    );
  return (
    <div class="card" role="region" aria-label={label}>
      <p>{children}</p>
      <p>
        <input readOnly aria-label={field} value={value} size={size} onFocus={(e) => e.currentTarget.select()} />{' '}
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>{' '}
        <button type="button" onClick={done}>
          Done
        </button>
      </p>
      {copied && <p role="status">{copied}</p>}
    </div>
  );
}

/** A field's error under it (the API's message for that field). */
function FieldError({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <small class="field-error" id={id} role="alert">
      {error}
    </small>
  ) : null;
}

let fieldIds = 0;
const useFieldId = () => useState(() => `f${++fieldIds}`)[0];

/** The form's alert (an error) or status line (what was done). */
export function Message({ msg }: { msg: FormMessage }) {
  return (
    <>
      {msg.error && (
        <p class="error" role="alert">
          {msg.error}
        </p>
      )}
      {msg.ok && <p role="status">{msg.ok}</p>}
    </>
  );
}

/** Asks, then DELETEs `path`, and has every view reload (an error is shown in an alert). */
export async function removeAfterConfirm(question: string, path: string): Promise<boolean> {
  if (!confirm(question)) return false;
  try {
    await api('DELETE', path);
    refreshAll();
    return true;
  } catch (err) {
    alert(errorText(err));
    return false;
  }
}

interface InputProps {
  name?: string;
  id?: string;
  type?: string;
  required?: boolean;
  placeholder?: string;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  autoComplete?: string;
}

/** A labelled text input. */
export function Field({
  label,
  value,
  set,
  type,
  error,
  ...rest
}: { label: ComponentChildren; value: string; set: (v: string) => void; error?: string } & InputProps) {
  const id = useFieldId();
  return (
    <label class={error ? 'invalid' : undefined}>
      {label}
      {/* preact types `type` per value; the ones used here all take these attributes */}
      <input
        {...rest}
        type={(type ?? 'text') as 'text'}
        value={value}
        onInput={(e) => set(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? id : undefined}
      />
      <FieldError id={id} error={error} />
    </label>
  );
}

/** A labelled checkbox. */
export function Check({
  label,
  checked,
  set,
}: {
  label: ComponentChildren;
  checked: boolean;
  set: (v: boolean) => void;
}) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => set(e.currentTarget.checked)} />
      {label}
    </label>
  );
}

/** A labelled select of `[value, text]` options (or plain values). */
export function Choice({
  label,
  value,
  set,
  options,
  name,
  error,
}: {
  label: ComponentChildren;
  value: string;
  set: (v: string) => void;
  options: readonly (string | readonly [string, string])[];
  name?: string;
  error?: string;
}) {
  const id = useFieldId();
  return (
    <label class={error ? 'invalid' : undefined}>
      {label}
      <select
        name={name}
        value={value}
        onChange={(e) => set(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? id : undefined}
      >
        {options.map((o) => {
          const [v, text] = typeof o === 'string' ? [o, o] : o;
          return (
            <option key={v} value={v}>
              {text}
            </option>
          );
        })}
      </select>
      <FieldError id={id} error={error} />
    </label>
  );
}

/** The portfolio select of the forms: none, or one of the team's portfolios. */
export function PortfolioChoice({
  portfolios,
  ...rest
}: { portfolios: readonly { id: string; name: string }[] } & Omit<Parameters<typeof Choice>[0], 'options' | 'label'> & {
    label?: ComponentChildren;
  }) {
  return (
    <Choice label="Portfolio" {...rest} options={[['', 'none'], ...portfolios.map((p) => [p.id, p.name] as const)]} />
  );
}

interface BulkAnswer {
  succeeded: number;
  failed: number;
  results: { endpoint_id: string; status: number; error?: string }[];
}

const DONE = { pause: 'Paused', resume: 'Resumed', delete: 'Removed' } as const;

/**
 * Pause checks, resume checks or remove the ticked endpoints, in one request
 * (POST /api/v1/endpoints/bulk-actions); the line under the buttons says how many were done and why
 * any failed. `names` gives the endpoints' names for that line; `done` clears the ticks.
 */
export function EndpointBulkActions({
  picked,
  names,
  done,
}: {
  picked: readonly string[];
  names: ReadonlyMap<string, string>;
  done: () => void;
}) {
  const [msg, setMsg] = useState<FormMessage>({});
  const [busy, setBusy] = useState(false);
  const run = async (action: keyof typeof DONE) => {
    if (action === 'delete' && !confirm(`Remove ${picked.length} endpoint(s) with their checks and history?`)) return;
    setBusy(true);
    try {
      const r = await api<BulkAnswer>('POST', '/api/v1/endpoints/bulk-actions', { action, endpoint_ids: picked });
      const why = r.results
        .filter((x) => x.error)
        .map((x) => `${names.get(x.endpoint_id) ?? x.endpoint_id}: ${x.error}`);
      setMsg(
        r.failed
          ? { error: `${DONE[action]} ${r.succeeded} of ${picked.length}; ${why.join('; ')}` }
          : { ok: `${DONE[action]} ${r.succeeded} endpoint${r.succeeded === 1 ? '' : 's'}.` },
      );
      done();
      refreshAll();
    } catch (err) {
      setMsg({ error: errorText(err) });
    } finally {
      setBusy(false);
    }
  };
  const off = busy || !picked.length;
  return (
    <Write>
      <p class="actions" aria-label="With the selected endpoints">
        <span class="muted">{picked.length} selected:</span>{' '}
        <button type="button" class="small" disabled={off} onClick={() => void run('pause')}>
          Pause checks
        </button>{' '}
        <button type="button" class="small" disabled={off} onClick={() => void run('resume')}>
          Resume checks
        </button>{' '}
        <button type="button" class="small danger" disabled={off} onClick={() => void run('delete')}>
          Remove
        </button>
      </p>
      <Message msg={msg} />
    </Write>
  );
}
