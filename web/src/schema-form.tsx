// Forms made from the API's JSON Schemas (GET /ui/schemas, the ones the API validates with): a field
// per property, by its type: text (date, URL), number, yes/no, a choice of its enum, lines for an array
// of strings (checkboxes when they are an enum), "Name: value" lines for a map of strings, a fieldset
// for a nested object (an optional one behind a checkbox), and JSON text for anything else. A
// `writeOnly` property is a secret: a password field that, left empty, sends back the masked value the
// API gave (which keeps the stored secret). `if`/`then` conditions on sibling values (as in
// `allOf: [{ if: { properties: { endpoint_type: { const: "dns" } } }, then: { ... } }]`) add their
// fields when they hold, and a property marked `x-endpoint-types` (a field of some endpoint types
// only, generated from their plug-ins) is there only while the form's `endpoint_type` is one of them.
// The API's validation errors ("liveness.interval_seconds: must be >= 1") are
// shown at the field they name.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { fieldErrors, getShared } from './api.js';
import { refreshAll } from './hooks.js';

export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  title?: string;
  description?: string;
  format?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  writeOnly?: boolean;
  readOnly?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  if?: Schema;
  then?: Schema;
  else?: Schema;
  /** A field of these endpoint types only (the endpoint schemas' generated fields). */
  'x-endpoint-types'?: string[];
}
export type Defs = Record<string, Schema>;
type Obj = Record<string, unknown>;
type FieldErrors = Record<string, string>;

let loading: Promise<Defs> | undefined;
/** The forms' schemas, read once per page load. */
export function useSchemas(): Defs | undefined {
  const [defs, setDefs] = useState<Defs>();
  useEffect(() => {
    loading ??= getShared<{ schemas: Defs }>('/ui/schemas').then((r) => r.schemas);
    loading.then(setDefs, () => (loading = undefined));
  }, []);
  return defs;
}

/** The channel kinds there are a schema for (the channel registry's). */
export const channelKinds = (defs: Defs) =>
  Object.keys(defs)
    .filter((k) => k.startsWith('channels/'))
    .map((k) => k.slice('channels/'.length));

/** The endpoint types there are a probe for (endpoint-create's `endpoint_type`, from the probe registry). */
export const endpointTypes = (defs: Defs): string[] =>
  (resolve(defs['endpoint-create']?.properties?.endpoint_type ?? {}, defs).enum ?? []).filter(
    (x): x is string => typeof x === 'string',
  );

export function resolve(s: Schema, defs: Defs): Schema {
  if (!s.$ref) return s;
  const { $ref, ...rest } = s;
  return { ...resolve(defs[$ref] ?? {}, defs), ...rest };
}

/** Whether `value` meets the simple conditions of an `if`: const, enum and required of its properties. */
function holds(cond: Schema, value: Obj): boolean {
  for (const k of cond.required ?? []) if (value[k] === undefined) return false;
  for (const [k, c] of Object.entries(cond.properties ?? {})) {
    const v = value[k];
    if (v === undefined) continue;
    if ('const' in c && v !== c.const) return false;
    if (c.enum && !c.enum.includes(v)) return false;
  }
  return true;
}

/** An object schema's properties and required keys, with those its conditions add for `value`. */
function effective(s: Schema, value: Obj, defs: Defs): { properties: Record<string, Schema>; required: string[] } {
  const properties = { ...(s.properties ?? {}) };
  const required = [...(s.required ?? [])];
  for (const part of [s, ...(s.allOf ?? []).map((x) => resolve(x, defs))]) {
    const add = part.if ? (holds(part.if, value) ? part.then : part.else) : part === s ? undefined : part;
    if (!add) continue;
    const r = resolve(add, defs);
    for (const [k, p] of Object.entries(r.properties ?? {})) properties[k] = { ...(properties[k] ?? {}), ...p };
    required.push(...(r.required ?? []));
  }
  for (const [k, p] of Object.entries(properties)) {
    const types = p['x-endpoint-types'];
    if (types && !types.includes(value.endpoint_type as string)) delete properties[k];
  }
  return { properties, required };
}

/** Of a form's value, what its schema takes for it now (a field of another endpoint type left out). */
export function applicable(schema: Schema, defs: Defs, value: Obj): Obj {
  const { properties } = effective(resolve(schema, defs), value, defs);
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) if (k in properties) out[k] = v;
  return out;
}

const types = (s: Schema) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
const nullable = (s: Schema) => types(s).includes('null');
const baseType = (s: Schema) => {
  const t = types(s).filter((x) => x !== 'null');
  return t.length === 1 ? t[0] : undefined;
};

type Kind = 'enum' | 'boolean' | 'number' | 'string' | 'lines' | 'multi' | 'object' | 'map' | 'json';
function kindOf(s: Schema, defs: Defs): Kind {
  const t = baseType(s);
  if (s.enum) return 'enum';
  if (t === 'boolean') return 'boolean';
  if (t === 'integer' || t === 'number') return 'number';
  if (t === 'string') return 'string';
  if (t === 'array' && s.items) {
    const it = resolve(s.items, defs);
    if (baseType(it) === 'string') return it.enum ? 'multi' : 'lines';
  }
  if (t === 'object' && s.properties) return 'object';
  if (t === 'object' && typeof s.additionalProperties === 'object' && baseType(s.additionalProperties) === 'string')
    return 'map';
  return 'json';
}

/** "interval_seconds" → "Interval seconds". */
const labelOf = (key: string, s: Schema) => s.title ?? key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');

/** A masked secret as the API shows it (`********` and the last 4 characters). */
const isMasked = (v: unknown): v is string => typeof v === 'string' && v.startsWith('********');

/** The error for a field: its own, or one of a part of it (an array item: "regions.0"). */
const errorAt = (errors: FieldErrors, path: string) =>
  errors[path] ?? Object.entries(errors).find(([k]) => k.startsWith(`${path}.`))?.[1];

/** The value without undefined members (a field left alone is not sent). */
function set(obj: Obj | undefined, key: string, v: unknown): Obj {
  const out = { ...(obj ?? {}) };
  if (v === undefined) delete out[key];
  else out[key] = v;
  return out;
}

interface FieldProps {
  name: string;
  path: string;
  schema: Schema;
  value: unknown;
  onChange: (v: unknown) => void;
  required: boolean;
  errors: FieldErrors;
  defs: Defs;
}

const idOf = (path: string) => `f-${path.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** A field's frame: label, control, its hint and its error. */
function Frame({
  path,
  label,
  required,
  hint,
  error,
  children,
  check,
}: {
  path: string;
  label: string;
  required: boolean;
  hint?: string;
  error?: string;
  children: ComponentChildren;
  check?: boolean;
}) {
  const id = idOf(path);
  const name = (
    <label for={id}>
      {label}
      {required && <span class="muted"> (required)</span>}
    </label>
  );
  return (
    <div class={`field${check ? ' check' : ''}${error ? ' invalid' : ''}`} data-field={path}>
      {check ? (
        <>
          {children}
          {name}
        </>
      ) : (
        <>
          {name}
          {children}
        </>
      )}
      {hint && (
        <small class="muted hint" id={`${id}-hint`}>
          {hint}
        </small>
      )}
      {error && (
        <small class="field-error" id={`${id}-error`} role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

/** Attributes tying a control to its frame's hint and error. */
const aria = (path: string, hint: string | undefined, error: string | undefined) => ({
  id: idOf(path),
  name: path,
  'aria-invalid': error ? ('true' as const) : undefined,
  'aria-describedby':
    [hint && `${idOf(path)}-hint`, error && `${idOf(path)}-error`].filter(Boolean).join(' ') || undefined,
});

/** Text kept as typed, handed up parsed (lines, "Name: value" lines, JSON). */
function TextArea({
  initial,
  parse,
  onChange,
  ...attrs
}: { initial: string; parse: (text: string) => unknown; onChange: (v: unknown) => void } & ReturnType<typeof aria>) {
  const [text, setText] = useState(initial);
  // onChange is the parsed value's handler, not the element's (whose change event would replace the
  // value with the event when the field loses focus).
  return (
    <textarea
      {...attrs}
      rows={3}
      value={text}
      onInput={(e) => {
        setText(e.currentTarget.value);
        onChange(parse(e.currentTarget.value));
      }}
    />
  );
}

function Field(p: FieldProps) {
  const s = resolve(p.schema, p.defs);
  const kind = kindOf(s, p.defs);
  const label = labelOf(p.name, s);
  const error = kind === 'object' ? p.errors[p.path] : errorAt(p.errors, p.path);
  const hint = s.description?.replace(/`/g, '');
  const a = aria(p.path, hint, error);
  const frame = (control: ComponentChildren, check = false) => (
    <Frame path={p.path} label={label} required={p.required} hint={hint} error={error} check={check}>
      {control}
    </Frame>
  );
  const empty = nullable(s) ? null : undefined;
  // A secret's masked value, as the API gave it: sent back unchanged while the field is left empty.
  const [masked] = useState(isMasked(p.value) ? p.value : undefined);
  const [hadValue] = useState(p.value !== undefined);

  switch (kind) {
    case 'enum': {
      const options = (s.enum ?? []).filter((x) => x !== null).map(String);
      const first = p.required ? [] : [['', nullable(s) ? 'none' : '(default)']];
      return frame(
        <select
          {...a}
          value={p.value === undefined || p.value === null ? '' : String(p.value)}
          onChange={(e) => {
            const v = e.currentTarget.value;
            const typed = (s.enum ?? []).find((x) => String(x) === v);
            p.onChange(v === '' ? empty : typed);
          }}
        >
          {[...first, ...options.map((o) => [o, o])].map(([v, t]) => (
            <option key={v} value={v}>
              {t}
            </option>
          ))}
        </select>,
      );
    }
    case 'boolean':
      if (p.required || s.default !== undefined)
        return frame(
          <input
            {...a}
            type="checkbox"
            checked={(p.value ?? s.default) === true}
            onChange={(e) => p.onChange(e.currentTarget.checked)}
          />,
          true,
        );
      return frame(
        <select
          {...a}
          value={p.value === undefined ? '' : p.value ? 'yes' : 'no'}
          onChange={(e) => p.onChange(e.currentTarget.value === '' ? undefined : e.currentTarget.value === 'yes')}
        >
          <option value="">(default)</option>
          <option value="yes">yes</option>
          <option value="no">no</option>
        </select>,
      );
    case 'number':
      return frame(
        <input
          {...a}
          type="number"
          inputMode="numeric"
          min={s.minimum}
          max={s.maximum}
          step={baseType(s) === 'integer' ? 1 : 'any'}
          value={typeof p.value === 'number' ? String(p.value) : ''}
          onInput={(e) => {
            const v = e.currentTarget.value;
            p.onChange(v === '' ? empty : Number(v));
          }}
        />,
      );
    case 'string': {
      if (s.writeOnly)
        return frame(
          <input
            {...a}
            type="password"
            autoComplete="new-password"
            placeholder={masked ? `unchanged (${masked.slice(-4)})` : undefined}
            value={p.value === masked || typeof p.value !== 'string' ? '' : p.value}
            onInput={(e) => p.onChange(e.currentTarget.value || masked || empty)}
          />,
        );
      const type = s.format === 'date' ? 'date' : s.format === 'uri' ? 'url' : s.format === 'email' ? 'email' : 'text';
      const control =
        (s.maxLength ?? 0) > 2000 ? (
          <textarea
            {...a}
            rows={3}
            value={typeof p.value === 'string' ? p.value : ''}
            onInput={(e) => p.onChange(e.currentTarget.value || empty)}
          />
        ) : (
          <input
            {...a}
            type={type as 'text'}
            maxLength={s.maxLength}
            value={typeof p.value === 'string' ? p.value : ''}
            onInput={(e) => p.onChange(e.currentTarget.value || empty)}
          />
        );
      return frame(control);
    }
    case 'lines':
      return frame(
        <TextArea
          {...a}
          initial={Array.isArray(p.value) ? p.value.join('\n') : ''}
          parse={(text) => {
            const lines = text
              .split(/[\n,]/)
              .map((x) => x.trim())
              .filter(Boolean);
            return lines.length || hadValue ? lines : undefined;
          }}
          onChange={p.onChange}
        />,
      );
    case 'multi': {
      const items = resolve(s.items!, p.defs).enum?.map(String) ?? [];
      const chosen = Array.isArray(p.value) ? (p.value as string[]) : [];
      return (
        <fieldset class={`field${error ? ' invalid' : ''}`} data-field={p.path}>
          <legend>{label}</legend>
          {items.map((x) => (
            <label key={x} class="check">
              <input
                type="checkbox"
                name={p.path}
                checked={chosen.includes(x)}
                onChange={(e) => p.onChange(e.currentTarget.checked ? [...chosen, x] : chosen.filter((y) => y !== x))}
              />
              {x}
            </label>
          ))}
          {error && <small class="field-error">{error}</small>}
        </fieldset>
      );
    }
    case 'map':
      return frame(
        <TextArea
          {...a}
          initial={
            p.value && typeof p.value === 'object'
              ? Object.entries(p.value as Obj)
                  .map(([k, v]) => `${k}: ${String(v)}`)
                  .join('\n')
              : ''
          }
          parse={(text) => {
            const out: Obj = {};
            for (const line of text.split('\n')) {
              const i = line.indexOf(':');
              if (line.trim()) out[(i < 0 ? line : line.slice(0, i)).trim()] = i < 0 ? '' : line.slice(i + 1).trim();
            }
            return Object.keys(out).length || hadValue ? out : undefined;
          }}
          onChange={p.onChange}
        />,
      );
    case 'object':
      return <Fieldset {...p} schema={s} label={label} error={error} hint={hint} />;
    default:
      return frame(
        <TextArea
          {...a}
          initial={p.value === undefined ? '' : typeof p.value === 'string' ? p.value : JSON.stringify(p.value)}
          parse={(text) => {
            if (!text.trim()) return empty;
            try {
              return JSON.parse(text) as unknown;
            } catch {
              return text; // a string where the schema takes one; otherwise the API says what is wrong
            }
          }}
          onChange={p.onChange}
        />,
      );
  }
}

/** A nested object: its fields in a fieldset; an optional one is sent only while its box is ticked. */
function Fieldset(p: FieldProps & { label: string; error?: string; hint?: string }) {
  const on = p.value !== undefined && p.value !== null;
  return (
    <fieldset class={`field nested${p.error ? ' invalid' : ''}`} data-field={p.path}>
      <legend>
        {p.required ? (
          p.label
        ) : (
          <label class="check">
            <input
              type="checkbox"
              checked={on}
              onChange={(e) => p.onChange(e.currentTarget.checked ? {} : undefined)}
            />
            {p.label}
          </label>
        )}
      </legend>
      {p.hint && <small class="muted hint">{p.hint}</small>}
      {(on || p.required) && (
        <Fields
          schema={p.schema}
          value={(p.value as Obj) ?? {}}
          onChange={p.onChange}
          errors={p.errors}
          defs={p.defs}
          path={p.path}
        />
      )}
      {p.error && <small class="field-error">{p.error}</small>}
    </fieldset>
  );
}

/** The fields of an object schema (less `omit`), under `path` ("" for the body itself). */
export function Fields({
  schema,
  value,
  onChange,
  errors,
  defs,
  path = '',
  omit = [],
}: {
  schema: Schema;
  value: Obj;
  onChange: (v: Obj) => void;
  errors: FieldErrors;
  defs: Defs;
  path?: string;
  omit?: readonly string[];
}) {
  const s = resolve(schema, defs);
  const { properties, required } = effective(s, value, defs);
  return (
    <>
      {Object.entries(properties)
        .filter(([k, p]) => !omit.includes(k) && !p.readOnly)
        .map(([k, p]) => (
          <Field
            key={k}
            name={k}
            path={path ? `${path}.${k}` : k}
            schema={p}
            value={value[k]}
            onChange={(v) => onChange(set(value, k, v))}
            required={required.includes(k)}
            errors={errors}
            defs={defs}
          />
        ))}
    </>
  );
}

/** Required enums and booleans start at their default (or first value), as the form shows them. */
export function initial(schema: Schema, defs: Defs, value: Obj = {}): Obj {
  const s = resolve(schema, defs);
  const out = { ...value };
  const { properties, required } = effective(s, out, defs);
  for (const k of required) {
    const p = resolve(properties[k] ?? {}, defs);
    if (out[k] !== undefined) continue;
    if (p.default !== undefined) out[k] = p.default;
    else if (p.enum?.length) out[k] = p.enum[0];
    else if (baseType(p) === 'boolean') out[k] = false;
  }
  return out;
}

/**
 * A schema form's submit: runs the write; on a validation error, the message goes to the field it
 * names (and the form's alert), and focus to the first field in error.
 */
export function useSchemaSubmit(write: () => Promise<string | undefined>) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [msg, setMsg] = useState<{ ok?: string; error?: string }>({});
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (Object.keys(errors).length)
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"], .invalid input')?.focus();
  }, [errors]);
  const onSubmit = (e: Event) => {
    e.preventDefault();
    setBusy(true);
    write().then(
      (ok) => {
        setErrors({});
        setMsg({ ok });
        setBusy(false);
        refreshAll();
      },
      (err: unknown) => {
        const fields = fieldErrors(err);
        setErrors(fields);
        // Each error shows under its field; the form's own line only says how many to fix.
        const n = Object.keys(fields).length;
        setMsg({
          error: n
            ? `${n === 1 ? 'One field needs' : `${n} fields need`} a fix: see the message under it${n === 1 ? '' : ' each'}.`
            : err instanceof Error
              ? err.message
              : String(err),
        });
        setBusy(false);
      },
    );
  };
  return { errors, msg, busy, onSubmit, form };
}
