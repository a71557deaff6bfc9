// Pure endpoint rules: each endpoint type's shape (default port, how full_url is written, whether it
// carries a certificate), the computed full_url and which endpoints get TLS inspection. The types
// themselves are plug-ins in src/probes/ (one file each, listed once in src/probes/registry.ts): each
// plug-in file adds its name to EndpointTypeNames below, and the registry hands the shapes to
// defineEndpointTypes when it loads. The domain names no type and imports nothing from the plug-ins.

/**
 * The endpoint type names, one key per plug-in. Empty here: each plug-in file in src/probes/ adds
 * its own name (TypeScript declaration merging), and the registry's type refuses a name without its
 * plug-in, so the list of names is written once, in the registry.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the plug-ins' declaration merging
export interface EndpointTypeNames {}
export type EndpointType = Extract<keyof EndpointTypeNames, string>;

export interface UrlParts {
  endpoint_type: EndpointType;
  domain: string;
  subdomain: string | null;
  port: number | null;
  path: string | null;
}

/** What the pure rules (full_url, ports, certificate eligibility) need to know of an endpoint type. */
export interface EndpointShape {
  /** The port probed when the endpoint names none; null: a port is required (a `name` type has none). */
  defaultPort: number | null;
  /**
   * How full_url is written: `web` a URL with a path, the default port left out (https://host/path);
   * `host-port` host:port; `service` scheme://host:port (the port always shown: it decides the mode);
   * `name` scheme://host, for a type that checks a name or host and no port (`port` and `path` unused).
   */
  url: 'web' | 'host-port' | 'service' | 'name';
  /** Which endpoints of the type get TLS inspection: all, only those on one of TLS_PORTS, none. */
  certificate: 'always' | 'tls-ports' | 'never';
  /** Extension beyond the spec's three types (listed as such in the docs). */
  extension?: true;
  /**
   * The fields the type adds to its endpoints (`record_type`, `count`, ...), each a JSON Schema
   * fragment: the request schemas, the OpenAPI document, the CLI's options and docs/endpoint-types.md
   * are generated from them, and an endpoint of the type stores them in its `settings`.
   */
  fields?: Readonly<Record<string, EndpointFieldSchema>>;
}

/** A value an endpoint-type field holds. */
export type EndpointFieldValue = string | number | boolean | null;

/** The JSON Schema of one endpoint-type field (a property's schema, as the request schemas carry it). */
export interface EndpointFieldSchema {
  type: 'string' | 'integer' | 'boolean' | readonly ['string', 'null'] | readonly ['integer', 'null'];
  /** What it means; the docs, the OpenAPI document and the CLI's help show it. */
  description: string;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  /** Taken when a create leaves the field out; a field without a default is required on create. */
  default?: EndpointFieldValue;
}

/** An endpoint's own fields, by name (only its type's, every one of them set). */
export type EndpointSettings = Readonly<Record<string, EndpointFieldValue>>;

/** Ports on which a `port` endpoint speaks TLS from the first byte. */
export const TLS_PORTS = [443, 8443, 993, 995, 465] as const;

let shapes: Readonly<Record<string, EndpointShape>> | null = null;

/**
 * The shapes of the registered endpoint types, set once when the plug-in registry loads
 * (src/probes/registry.ts, which every process that checks or shows endpoints imports first). Only the
 * pure data is kept. Setting a different table later is a programming error.
 */
export function defineEndpointTypes(table: Readonly<Record<EndpointType, EndpointShape>>): void {
  const next = Object.freeze(
    Object.fromEntries(
      Object.entries<EndpointShape>(table).map(([name, s]) => [
        name,
        Object.freeze({
          defaultPort: s.defaultPort,
          url: s.url,
          certificate: s.certificate,
          ...(s.extension ? { extension: true as const } : {}),
          ...(s.fields && Object.keys(s.fields).length ? { fields: s.fields } : {}),
        }),
      ]),
    ),
  );
  if (shapes && JSON.stringify(shapes) !== JSON.stringify(next))
    throw new Error('endpoint types are defined once (src/probes/registry.ts)');
  shapes = next;
}

function defined(): Readonly<Record<string, EndpointShape>> {
  if (!shapes) throw new Error('endpoint types are not defined yet: import src/probes/registry.ts first');
  return shapes;
}

/** The shape of a registered endpoint type. */
export function endpointShape(type: EndpointType): EndpointShape {
  const shape = defined()[type];
  if (!shape) throw new Error(`unknown endpoint type ${type}`);
  return shape;
}

/** The fields endpoints of the type have (empty for most types). */
function endpointFields(type: EndpointType): Readonly<Record<string, EndpointFieldSchema>> {
  return endpointShape(type).fields ?? {};
}

/** Every field name some endpoint type has, with the types that have it (in the registry's order). */
function allEndpointFields(): Map<string, EndpointType[]> {
  const out = new Map<string, EndpointType[]>();
  for (const [type, shape] of Object.entries(defined()))
    for (const name of Object.keys(shape.fields ?? {})) out.set(name, [...(out.get(name) ?? []), type as EndpointType]);
  return out;
}

/** What a request names of the endpoint-type fields (the rest of its properties are left alone). */
export function givenFields(input: object): Record<string, EndpointFieldValue> {
  const out: Record<string, EndpointFieldValue> = {};
  for (const name of allEndpointFields().keys())
    if (Object.hasOwn(input, name)) out[name] = (input as Record<string, EndpointFieldValue>)[name]!;
  return out;
}

/**
 * The settings an endpoint of `type` stores: each of the type's fields from `given`, else from
 * `current` (the endpoint as it is, when its type stays), else the field's default. A field of
 * another type, or a required field left out, is refused (the message names it).
 */
export function settingsFor(
  type: EndpointType,
  given: Readonly<Record<string, EndpointFieldValue>>,
  current?: { endpoint_type: EndpointType; settings: EndpointSettings },
): { ok: true; settings: EndpointSettings } | { ok: false; error: string } {
  const fields = endpointFields(type);
  for (const name of Object.keys(given))
    if (!Object.hasOwn(fields, name)) return { ok: false, error: `${name}: not a field of endpoint_type "${type}"` };
  const kept = current?.endpoint_type === type ? current.settings : {};
  const settings: Record<string, EndpointFieldValue> = {};
  for (const [name, schema] of Object.entries(fields)) {
    const value = Object.hasOwn(given, name) ? given[name] : Object.hasOwn(kept, name) ? kept[name] : schema.default;
    if (value === undefined) return { ok: false, error: `${name}: required for endpoint_type "${type}"` };
    settings[name] = value;
  }
  return { ok: true, settings };
}

export function hostOf(e: Pick<UrlParts, 'domain' | 'subdomain'>): string {
  return e.subdomain ? `${e.subdomain}.${e.domain}` : e.domain;
}

/** https://sub.example.com:8443/path; `port` endpoints are host:port; smtp://mail.example.com:587. */
export function fullUrl(e: UrlParts): string {
  const host = hostOf(e);
  const shape = endpointShape(e.endpoint_type);
  if (shape.url === 'host-port') return `${host}:${e.port ?? ''}`;
  if (shape.url === 'name') return `${e.endpoint_type}://${host}`;
  if (shape.url === 'service') return `${e.endpoint_type}://${host}:${effectivePort(e)}`;
  const port = e.port && e.port !== shape.defaultPort ? `:${e.port}` : '';
  const path = e.path ? (e.path.startsWith('/') ? e.path : `/${e.path}`) : '/';
  return `${e.endpoint_type}://${host}${port}${path}`;
}

/** The TCP port a probe connects to. */
export function effectivePort(e: Pick<UrlParts, 'endpoint_type' | 'port'>): number {
  return e.port ?? endpointShape(e.endpoint_type).defaultPort ?? 0;
}

/** The endpoint type needs a port of its own (it has no default). */
export function requiresPort(type: EndpointType): boolean {
  const shape = endpointShape(type);
  return shape.defaultPort === null && shape.url !== 'name';
}

export function wantsTls(e: Pick<UrlParts, 'endpoint_type' | 'port'>): boolean {
  const rule = endpointShape(e.endpoint_type).certificate;
  return rule === 'always' || (rule === 'tls-ports' && (TLS_PORTS as readonly number[]).includes(e.port ?? -1));
}

/** The certificate rule as lists, for the store's SQL: types always inspected, types inspected on TLS_PORTS. */
export function certificateTypes(): { always: EndpointType[]; onTlsPorts: EndpointType[] } {
  const types = Object.keys(defined()) as EndpointType[];
  return {
    always: types.filter((t) => endpointShape(t).certificate === 'always'),
    onTlsPorts: types.filter((t) => endpointShape(t).certificate === 'tls-ports'),
  };
}

/** Every endpoint of the type carries a certificate (a `port` endpoint only on a TLS port). */
export function alwaysCarriesCertificate(type: EndpointType): boolean {
  return endpointShape(type).certificate === 'always';
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
/** A subdomain prefix like `www` or `api.eu`; `*` and empty labels are refused. */
export function validSubdomain(s: string): boolean {
  return (
    s.length <= 200 &&
    s
      .toLowerCase()
      .split('.')
      .every((l) => LABEL.test(l))
  );
}

export type Health = 'healthy' | 'warning' | 'critical' | 'unknown';

const HEALTH_RANK: Record<Health, number> = { critical: 3, warning: 2, healthy: 1, unknown: 0 };

/** The worst of several healths (critical first); unknown when there are none. */
export function worstHealth(list: readonly Health[]): Health {
  return list.reduce<Health>((w, h) => ((HEALTH_RANK[h] ?? 0) > HEALTH_RANK[w] ? h : w), 'unknown');
}

/**
 * Endpoint health: critical when its liveness is down or its certificate is expired, invalid or
 * unreachable; warning when the certificate expires within 30 days or 24 h uptime is under 99 %;
 * unknown before anything was checked; healthy otherwise. healthSql (store/repos/endpoints.ts) is
 * this rule in SQL, for lists that filter and count by health; change both together (a test checks
 * they agree on every input).
 */
export function endpointHealth(
  ssl: string | null,
  liveness: 'up' | 'down' | 'unknown' | 'maintenance' | null,
  uptime24h: number | null,
): Health {
  if (liveness === 'down' || ssl === 'expired' || ssl === 'invalid' || ssl === 'error') return 'critical';
  if (ssl === 'expiring_soon' || (uptime24h !== null && uptime24h < 99)) return 'warning';
  if ((ssl === null || ssl === 'unknown') && (liveness === null || liveness === 'unknown')) return 'unknown';
  return 'healthy';
}

/** 0-100 score matching endpointHealth: healthy 100, warning 60, critical 10, unknown null. */
export function endpointScore(h: Health): number | null {
  return { healthy: 100, warning: 60, critical: 10, unknown: null }[h];
}
