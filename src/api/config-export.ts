// `dommon export` / GET /api/v1/config/export (docs/configuration-file.md): the caller's team's setup as
// the configuration file `dommon apply -f` reads. The stored objects are put in the file's terms (names,
// never ids), then shaped by the file's own schema (schemas/config/dommon.schema.json): its keys in the
// schema's order, objects sorted by their key, so the same setup always gives the same text (a stable
// diff in git). Left out: a null (nothing set) and a value equal to the schema's `default`, and an
// empty list or map. A field the schema marks `writeOnly` (a secret, or a credential such as a chat
// webhook URL) is never written: it becomes a `${NAME}` reference with a name made from where it is,
// and the names are listed with what each stands for.
import { createRequire } from 'node:module';
import type { ApiDeps } from './context.js';
import type { Page, PageOf, Principal } from '../domain/types.js';
import type { ConfigDocument } from '../domain/config-file.js';
import { CONFIG_SCHEMA_ID } from './config-schema.js';
import { configSchemaUrl } from '../config/index.js';

type Json = Record<string, unknown>;

interface ExportedSecret {
  /** The environment variable the reference reads, e.g. `DOMMON_CHANNEL_SLACK_WEBHOOK_URL`. */
  name: string;
  /** What it stands for, e.g. `slack channel (instant): webhook_url`. */
  what: string;
}

interface ConfigExport {
  format: 'yaml' | 'json';
  /** The file's text. */
  file: string;
  secrets: ExportedSecret[];
}

async function all<T>(read: (page: Page) => Promise<PageOf<T>>): Promise<T[]> {
  const out: T[] = [];
  for (;;) {
    const p = await read({ limit: 1000, offset: out.length });
    out.push(...p.items);
    if (!p.items.length || out.length >= p.total) return out;
  }
}

const domainKey = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');
const byKey =
  <T>(key: (x: T) => string) =>
  (a: T, b: T) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
/** Stands in for a secret the store holds sealed (the reference replaces it). */
const SEALED = '********';

/** The team's stored setup in the file's terms, before the schema shapes it. */
async function readDocument(deps: Pick<ApiDeps, 'services'>, p: Principal): Promise<Json> {
  const s = deps.services;
  const team = p.team_id;
  const [portfolios, domains, endpoints, liveness, pages, windows, settings] = await Promise.all([
    all((pg) => s.portfolios.list(team, {}, pg)),
    all((pg) => s.domains.list(team, {}, pg)),
    all((pg) => s.endpoints.list(team, {}, pg)),
    all((pg) => s.liveness.list(team, {}, pg)),
    all((pg) => s.statusPages.list(team, {}, pg)),
    all((pg) => s.maintenanceWindows.list(team, pg)),
    s.notifications.listSettings(p),
  ]);
  const portfolioName = new Map(portfolios.map((x) => [x.id, x.name]));
  const domainName = new Map(domains.map((x) => [x.id, x.domain]));
  const endpointRef = new Map(endpoints.map((x) => [x.id, `${x.domain}/${x.name}`]));
  const livenessOf = new Map(liveness.map((c) => [c.endpoint_id, c]));
  // A push endpoint's ping key is written: the file applied elsewhere keeps the jobs' ping URLs.
  const pingKeys = await s.push.keysOf(
    team,
    endpoints.filter((e) => e.endpoint_type === 'push').map((e) => e.id),
  );
  const endpointsOf = new Map<string, typeof endpoints>();
  for (const e of endpoints) endpointsOf.set(e.domain_id, [...(endpointsOf.get(e.domain_id) ?? []), e]);

  return {
    version: 1,
    portfolios: [...portfolios].sort(byKey((x) => x.name)),
    channels: [...settings]
      .sort(byKey((x) => `${x.notification_type}\u0000${x.delivery_class}`))
      .map(({ notification_type, config, ...row }) => ({ type: notification_type, ...row, ...config })),
    domains: [...domains].sort(byKey((x) => domainKey(x.domain))).map((d) => ({
      name: d.domain,
      portfolio: d.portfolio_id ? portfolioName.get(d.portfolio_id) : null,
      notes: d.notes,
      dkim_selectors: d.dkim_selectors,
      manual_expiry: d.expiry_override,
      endpoints: [...(endpointsOf.get(d.id) ?? [])].sort(byKey((e) => e.name)).map((e) => {
        const live = livenessOf.get(e.id);
        const auth = live?.auth;
        return {
          ...e,
          ...e.settings,
          type: e.endpoint_type,
          ping_key: pingKeys.get(e.id),
          liveness: live && {
            ...live,
            auth: auth
              ? auth.type === 'basic'
                ? { type: 'basic', username: auth.username, password: SEALED }
                : { type: auth.type, token: SEALED }
              : null,
          },
        };
      }),
    })),
    status_pages: [...pages].sort(byKey((x) => x.slug)).map((x) => ({
      ...x,
      portfolio: portfolioName.get(x.portfolio_id),
      endpoints: x.endpoints.map((e) => ({ endpoint: endpointRef.get(e.endpoint_id), display_name: e.display_name })),
    })),
    maintenance_windows: [...windows].sort(byKey((x) => x.name)).map((x) => ({
      ...x,
      endpoints: x.endpoint_ids.map((id) => endpointRef.get(id)).filter(Boolean),
      domains: x.domain_ids.map((id) => domainName.get(id)).filter(Boolean),
      portfolios: x.portfolio_ids.map((id) => portfolioName.get(id)).filter(Boolean),
    })),
  };
}

/** The properties that apply to `value`: the schema's own and those of its matching `if`/`then` and `oneOf` branches. */
function propertiesFor(schema: Json, value: Json): Record<string, Json> {
  const typeMatches = (s: Json | undefined) => {
    const c = ((s?.properties as Record<string, Json> | undefined)?.type as Json | undefined)?.const;
    return c === undefined || c === value.type;
  };
  let out = { ...((schema.properties ?? {}) as Record<string, Json>) };
  for (const branch of (schema.allOf ?? []) as Json[]) {
    const then = branch.then as Json | undefined;
    if (then && typeMatches(branch.if as Json)) out = { ...out, ...((then.properties ?? {}) as Record<string, Json>) };
  }
  const alt = ((schema.oneOf ?? []) as Json[]).find((b) => b.type === 'object' && typeMatches(b));
  if (alt) out = { ...out, ...((alt.properties ?? {}) as Record<string, Json>) };
  return out;
}

const isEmpty = (v: unknown) =>
  (Array.isArray(v) && v.length === 0) ||
  (!!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

/** A readable environment variable name: `DOMMON_` and the parts, upper case, `_` between words. */
const envName = (parts: string[]) =>
  `DOMMON_${parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}`;

/** The stored setup as the file: shaped by the file's schema, secrets as references (listed in `secrets`). */
function shapeDocument(raw: Json, schema: Json): { doc: ConfigDocument; secrets: ExportedSecret[] } {
  const secrets: ExportedSecret[] = [];
  const taken = new Set<string>();

  /** The reference of the secret at `path` (its name from the object it belongs to), listed once. */
  function reference(path: (string | number)[]): string {
    const field = String(path[path.length - 1]);
    let parts: string[];
    let what: string;
    if (path[0] === 'channels') {
      const row = (raw.channels as Json[])[path[1] as number]!;
      const digest = row.delivery_class === 'digest';
      parts = ['channel', String(row.type), ...(digest ? ['digest'] : []), field];
      what = `${String(row.type)} channel (${digest ? 'digest' : 'instant'}): ${field}`;
    } else if (path[0] === 'domains' && path[2] === 'endpoints') {
      const d = (raw.domains as Json[])[path[1] as number]!;
      const e = (d.endpoints as Json[])[path[3] as number]!;
      parts = ['endpoint', String(d.name), String(e.name), field];
      what = `${path.includes('auth') ? 'liveness credentials' : 'a secret'} of ${String(d.name)}/${String(e.name)}: ${field}`;
    } else {
      parts = path.map(String);
      what = path.join('.');
    }
    const base = envName(parts);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    secrets.push({ name, what });
    return `\${${name}}`;
  }

  function shape(value: unknown, s: Json | undefined, path: (string | number)[]): unknown {
    if (Array.isArray(value)) return value.map((v, i) => shape(v, s?.items as Json | undefined, [...path, i]));
    if (!value || typeof value !== 'object' || !s) return value;
    const v = value as Json;
    // A map (request headers): its keys are the user's, kept as stored in their sorted order.
    if (!s.properties && !s.allOf && !s.oneOf)
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, v[k]]),
      );
    const out: Json = {};
    for (const [k, ps] of Object.entries(propertiesFor(s, v))) {
      const x = v[k];
      if (x === undefined || x === null) continue;
      if (ps.writeOnly) {
        out[k] = reference([...path, k]);
        continue;
      }
      if (ps.default !== undefined && JSON.stringify(ps.default) === JSON.stringify(x)) continue;
      const shaped = shape(x, ps, [...path, k]);
      if (isEmpty(shaped) && !((s.required ?? []) as string[]).includes(k)) continue;
      out[k] = shaped;
    }
    return out;
  }

  const doc = shape(raw, schema, []) as ConfigDocument;
  return { doc, secrets };
}

/** The caller's team's setup as a configuration file (YAML with a header, or JSON), and the references it holds. */
export async function exportConfig(
  deps: Pick<ApiDeps, 'services' | 'validator' | 'config'>,
  p: Principal,
  format: 'yaml' | 'json',
): Promise<ConfigExport> {
  const schema = deps.validator.schemas[CONFIG_SCHEMA_ID] as Json | undefined;
  if (!schema) throw new Error(`schema "${CONFIG_SCHEMA_ID}" is not in schemas/: run npm run build`);
  const { doc, secrets } = shapeDocument(await readDocument(deps, p), schema);
  if (format === 'json') return { format, file: `${JSON.stringify(doc, null, 2)}\n`, secrets };
  // yaml is loaded when a file is written, not at every command's start (as the reader does).
  const { stringify } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const head = [
    `# yaml-language-server: $schema=${configSchemaUrl(deps.config)}`,
    '# Made by `dommon export`; apply with `dommon apply -f FILE` (docs/configuration-file.md).',
    ...(secrets.length
      ? [
          '# Secrets are ${NAME} references, read from the environment when the file is applied:',
          ...secrets.map((x) => `#   ${x.name}: ${x.what}`),
        ]
      : []),
  ];
  return {
    format,
    file: `${head.join('\n')}\n${stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false })}`,
    secrets,
  };
}
