// Shared pieces of the resource command tables: paging options, id-or-name look-ups, list/detail text.
import { ApiError, call, qs, type Transport } from '../transport.js';
import { keyValues, table, type Palette } from '../output.js';
import type { CommandSpec, OptSpec } from '../spec.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const pageOptions: OptSpec[] = [
  { flags: '--limit <n>', description: 'page size (max 100)', field: 'limit', kind: 'int' },
  { flags: '--offset <n>', description: 'items to skip', field: 'offset', kind: 'int' },
];

/** Accepts a domain id or name. */
export async function domainId(t: Transport, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const name = ref.toLowerCase().replace(/\.$/, '');
  const r = await call<ListBody<{ id: string; domain: string }>>(
    t,
    'GET',
    `/api/v1/domains${qs({ domain: name, limit: 100 })}`,
  );
  const hit = r.data.find((d) => d.domain === name);
  if (!hit) throw new ApiError(404, `domain ${ref} not found`);
  return hit.id;
}

/** A page of a list endpoint, as the API answers it. */
export interface ListBody<T extends object = Record<string, unknown>> {
  data: T[];
  pagination?: { total: number; offset: number };
}

const listText = (columns: string[]) => (r: ListBody, paint: Palette) => {
  const p = r.pagination;
  const more =
    p && p.total > p.offset + r.data.length
      ? ` (showing ${p.offset + 1}-${p.offset + r.data.length}; --offset for more)`
      : '';
  return `${table(r.data, columns, paint)}\n${paint.dim(`${p?.total ?? r.data.length} total${more}`)}`;
};

const oneText = (r: Record<string, unknown>, paint: Palette) => keyValues(r, paint);

const messageText = (r: { message?: unknown } | undefined) => String(r?.message ?? 'done');

interface CrudOptions {
  /** API path, e.g. /api/v1/domains */
  path: string;
  /** singular noun for descriptions */
  one: string;
  columns: string[];
  create: OptSpec[];
  update: OptSpec[];
  filters: OptSpec[];
  /** the positional argument of `add` and the API field it fills */
  addArg?: { name: string; field: string };
  /** turns a user's reference (name or id) into the id the path needs */
  resolve?: (t: Transport, ref: string) => Promise<string>;
  showOptions?: OptSpec[];
  /** The text of `show` (default: one `key  value` line per field). */
  showText?: (r: Record<string, unknown>, paint: Palette) => string;
  examples?: Partial<Record<'list' | 'add' | 'show' | 'update' | 'remove', string[]>>;
}

/** list / add / show / update / remove over one API collection. */
export function crud(o: CrudOptions): CommandSpec[] {
  const a = /^[aeiou]/.test(o.one) ? 'an' : 'a';
  const id = (t: Transport, ref: string) => (o.resolve ? o.resolve(t, ref) : Promise.resolve(ref));
  return [
    {
      name: 'list',
      description: `list ${o.one}s`,
      options: [...o.filters, ...pageOptions],
      examples: o.examples?.list,
      action: ({ t, body }) => call(t, 'GET', `${o.path}${qs(body as Record<string, string>)}`),
      text: listText(o.columns),
    },
    {
      name: `add${o.addArg ? ` <${o.addArg.name}>` : ''}`,
      description: `add ${a} ${o.one}`,
      options: o.create,
      examples: o.examples?.add,
      action: ({ t, args, body }) => call(t, 'POST', o.path, o.addArg ? { [o.addArg.field]: args[0], ...body } : body),
      text: oneText,
    },
    {
      name: 'show <id>',
      description: `show one ${o.one}`,
      options: o.showOptions,
      examples: o.examples?.show,
      action: async ({ t, args, body }) =>
        call(t, 'GET', `${o.path}/${await id(t, args[0]!)}${qs(body as Record<string, string>)}`),
      text: o.showText ?? oneText,
    },
    {
      name: 'update <id>',
      description: `change fields of ${a} ${o.one}`,
      options: o.update,
      examples: o.examples?.update,
      action: async ({ t, args, body }) => call(t, 'PUT', `${o.path}/${await id(t, args[0]!)}`, body),
      text: oneText,
    },
    {
      name: 'remove <id>',
      description: `delete ${a} ${o.one} (cascades as the API does)`,
      examples: o.examples?.remove,
      action: async ({ t, args }) => call(t, 'DELETE', `${o.path}/${await id(t, args[0]!)}`),
      text: messageText,
    },
  ];
}
