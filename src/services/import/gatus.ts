// `dommon import gatus config.yaml`: a Gatus configuration as a dommon configuration file. What maps
// to what, and what is reported instead, is in docs/import-gatus.md; every key of the Gatus file that
// is not carried over is named with its line.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { parseConditions, PLACEHOLDERS, type Placeholder } from '../../domain/conditions.js';
import type { EndpointType } from '../../domain/endpoint.js';
import { Invalid } from '../../domain/errors.js';
import { pluginOf } from '../../probes/index.js';
import { PING_KEY, pingKeyOf } from '../../domain/push.js';
import { envName, FileBuilder, goDurationSeconds, splitHost, type FileEndpoint, type ImportResult } from './file.js';

type Json = Record<string, unknown>;
type Path = (string | number)[];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'CAA', 'DS'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** Top-level keys of a Gatus file that dommon has no counterpart for, and why. */
const TOP_LEVEL_NOT_CARRIED: Record<string, string> = {
  metrics: 'dommon serves Prometheus metrics at /metrics always',
  storage: 'dommon keeps its own store (DOMMON_DATA_DIR or DOMMON_DATABASE_URL)',
  security: 'dommon has its own tokens and users (dommon token create)',
  web: 'dommon listens where DOMMON_HOST and DOMMON_PORT say',
  ui: "Gatus's dashboard settings: dommon's dashboard has none of these",
  announcements: 'dommon has no announcements',
  concurrency: 'dommon sizes its own check concurrency',
  'disable-monitoring-lock': 'dommon sizes its own check concurrency',
  'skip-invalid-config-update': 'dommon apply refuses an invalid file as a whole',
  connectivity: 'dommon has no connectivity checker',
  remote: 'dommon has no remote instances; several dommon nodes share a PostgreSQL database instead',
  tunneling: 'dommon has no SSH tunnels',
  suites: 'dommon has no multi-step suites',
  debug: 'not a setting dommon has',
};

/** Gatus alerting providers dommon has a channel for, and how their fields map. */
interface ProviderMap {
  type: string;
  /** Gatus field -> dommon config field (secret: written as a `${NAME}` reference). */
  fields: Record<string, { to: string; secret?: boolean; list?: boolean }>;
  /** Why the provider's other fields are not carried over. */
  otherwise?: string;
}

const PROVIDERS: Record<string, ProviderMap> = {
  slack: { type: 'slack', fields: { 'webhook-url': { to: 'webhook_url' } } },
  discord: { type: 'discord', fields: { 'webhook-url': { to: 'webhook_url' } } },
  teams: { type: 'teams', fields: { 'webhook-url': { to: 'webhook_url' } } },
  'teams-workflows': { type: 'teams', fields: { 'webhook-url': { to: 'webhook_url' } } },
  googlechat: { type: 'googlechat', fields: { 'webhook-url': { to: 'webhook_url' } } },
  mattermost: { type: 'mattermost', fields: { 'webhook-url': { to: 'webhook_url' }, channel: { to: 'channel' } } },
  telegram: {
    type: 'telegram',
    fields: { token: { to: 'bot_token', secret: true }, id: { to: 'chat_id' } },
    otherwise: 'the Bot API base URL is DOMMON_TELEGRAM_URL',
  },
  ntfy: {
    type: 'ntfy',
    fields: { topic: { to: 'topic' }, url: { to: 'server_url' }, token: { to: 'token', secret: true } },
  },
  pagerduty: { type: 'pagerduty', fields: { 'integration-key': { to: 'routing_key', secret: true } } },
  opsgenie: { type: 'opsgenie', fields: { 'api-key': { to: 'api_key', secret: true }, tags: { to: 'tags' } } },
  pushover: {
    type: 'pushover',
    fields: {
      'application-token': { to: 'app_token', secret: true },
      'user-key': { to: 'user_key', secret: true },
    },
  },
  matrix: {
    type: 'matrix',
    fields: {
      'server-url': { to: 'homeserver_url' },
      'access-token': { to: 'access_token', secret: true },
      'internal-room-id': { to: 'room_id' },
    },
  },
  email: {
    type: 'email',
    fields: { to: { to: 'recipients', list: true } },
    otherwise: 'dommon sends mail through the relay DOMMON_SMTP_URL names (smtp://user:password@host:port)',
  },
  custom: {
    type: 'webhook',
    fields: { url: { to: 'webhook_url' } },
    otherwise: "dommon's webhook sends its own JSON body (docs/notifications.md), signed when secret_key is set",
  },
};

/** The Gatus file with the line of every node. */
class Source {
  readonly lines = new LineCounter();
  readonly doc: Document;
  constructor(
    readonly file: string,
    text: string,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lines, uniqueKeys: false });
  }

  /** `file:line` of the node at `path` (or of its nearest parent that exists). */
  at(path: Path): string {
    for (let n = path.length; n >= 0; n--) {
      const node = this.doc.getIn(path.slice(0, n), true) as Node | undefined;
      const start = node && (isMap(node) || isSeq(node) || isScalar(node)) ? node.range?.[0] : undefined;
      if (start !== undefined) return `${this.file}:${this.lines.linePos(start).line}`;
    }
    return this.file;
  }
}

/** Gatus expands `$NAME` and `${NAME}` from the environment (`$$` is a `$`): dommon's file keeps `${NAME}`. */
function envText(s: string): string {
  return s.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (m, a?: string, b?: string) =>
    m === '$$' ? '$' : `\${${a ?? b!}}`,
  );
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? envText(v) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Gatus's external-endpoint key: `<group>_<name>` with ` /_,.#+&` made `-`. */
const gatusKey = (group: string, name: string) =>
  `${group}_${name}`.replace(/[ /_,.#+&]/g, (c, i: number) => (i === group.length ? '_' : '-'));

interface Alerting {
  /** Provider names dommon carried over as channels. */
  carried: Set<string>;
  /** Each provider's default-alert. */
  defaults: Map<string, Json>;
}

interface GatusOptions {
  /** The domain `external-endpoints` (push monitors, which have no host in Gatus) go under. */
  pushDomain?: string;
}

export function importGatus(file: string, text: string, options: GatusOptions = {}): ImportResult {
  const src = new Source(file, text);
  if (src.doc.errors.length) {
    const e = src.doc.errors[0]!;
    throw new Invalid(`${file}:${e.linePos?.[0]?.line ?? 1}: not valid YAML: ${e.message.split('\n')[0]}`);
  }
  const root: unknown = src.doc.toJS({ maxAliasCount: 1000 });
  if (!isObj(root)) throw new Invalid(`${file}: not a Gatus configuration (a YAML mapping with endpoints)`);
  const b = new FileBuilder();

  for (const key of Object.keys(root)) {
    if (key in TOP_LEVEL_NOT_CARRIED) b.note(src.at([key]), `${key}: not carried over: ${TOP_LEVEL_NOT_CARRIED[key]}`);
    else if (!['endpoints', 'external-endpoints', 'alerting', 'maintenance'].includes(key))
      b.note(src.at([key]), `${key}: not carried over: not a Gatus setting dommon knows`);
  }

  const alerting = importAlerting(src, b, root.alerting);
  const endpointRefs: string[] = [];
  const endpoints = Array.isArray(root.endpoints) ? root.endpoints : [];
  endpoints.forEach((e, i) => {
    const ref = importEndpoint(src, b, alerting, e, ['endpoints', i]);
    if (ref) endpointRefs.push(ref);
  });

  const externals = Array.isArray(root['external-endpoints']) ? root['external-endpoints'] : [];
  if (externals.length) {
    const pushDomain = options.pushDomain ?? b.domainNames()[0];
    const tokens = new Set<string>();
    externals.forEach((e, i) => importExternal(src, b, alerting, e, ['external-endpoints', i], pushDomain, tokens));
  }

  if (isObj(root.maintenance)) {
    const w = maintenanceWindow(src, b, root.maintenance, ['maintenance'], 'Gatus maintenance');
    if (w) b.maintenanceWindow({ ...w, domains: b.domainNames() });
  }
  return b.result();
}

function importAlerting(src: Source, b: FileBuilder, alerting: unknown): Alerting {
  const out: Alerting = { carried: new Set(), defaults: new Map() };
  if (!isObj(alerting)) return out;
  for (const [provider, conf] of Object.entries(alerting)) {
    const path = ['alerting', provider];
    const map = PROVIDERS[provider];
    if (!map) {
      b.note(src.at(path), `alerting.${provider}: not carried over: dommon has no ${provider} channel`);
      continue;
    }
    if (!isObj(conf)) continue;
    const row: Json = { type: map.type, delivery_class: 'instant' };
    for (const [k, v] of Object.entries(conf)) {
      const f = map.fields[k];
      if (k === 'default-alert' && isObj(v)) {
        out.defaults.set(provider, v);
        continue;
      }
      if (k === 'overrides') {
        b.note(
          src.at([...path, k]),
          `alerting.${provider}.overrides: not carried over: dommon has no per-group channel overrides`,
        );
        continue;
      }
      if (!f) {
        b.note(
          src.at([...path, k]),
          `alerting.${provider}.${k}: not carried over${map.otherwise ? `: ${map.otherwise}` : `: the ${map.type} channel has no such setting`}`,
        );
        continue;
      }
      if (f.secret) {
        row[f.to] = b.secret(envName(map.type, f.to), `alerting.${provider}.${k}`, str(v));
      } else if (f.list) {
        const list = (Array.isArray(v) ? v.map(str) : (str(v) ?? '').split(','))
          .map((s) => s?.trim())
          .filter((s): s is string => Boolean(s));
        row[f.to] = [...new Set(list)];
      } else if (f.to === 'tags' && Array.isArray(v)) row[f.to] = v.map(str);
      else {
        const s = str(v);
        if (s !== undefined) row[f.to] = s;
      }
    }
    if (b.channel(src.at(path), row, `alerting.${provider}`)) out.carried.add(provider);
  }
  return out;
}

/** The liveness failure threshold from an endpoint's alerts; the alerts' other settings are reported. */
function alertsThreshold(
  src: Source,
  b: FileBuilder,
  alerting: Alerting,
  alerts: unknown,
  path: Path,
  label: string,
): number | undefined {
  if (!Array.isArray(alerts)) return undefined;
  const thresholds: number[] = [];
  alerts.forEach((raw, i) => {
    if (!isObj(raw)) return;
    const at = src.at([...path, i]);
    const type = str(raw.type) ?? '';
    const a: Json = { ...(alerting.defaults.get(type) ?? {}), ...raw };
    if (a.enabled === false) return;
    if (!alerting.carried.has(type)) {
      b.note(
        at,
        `${label}: alert "${type}" not carried over: ${PROVIDERS[type] ? `alerting.${type} is not configured` : `dommon has no ${type} channel`}`,
      );
      return;
    }
    thresholds.push(typeof a['failure-threshold'] === 'number' ? a['failure-threshold'] : 3);
    if (a['success-threshold'] !== undefined && a['success-threshold'] !== 1)
      b.note(
        at,
        `${label}: alert ${type} success-threshold not carried over: dommon reports a recovery at the first success`,
      );
    if (a['send-on-resolved'] === false)
      b.note(at, `${label}: alert ${type} send-on-resolved: false not carried over: dommon always tells of a recovery`);
    if (a.description)
      b.note(at, `${label}: alert ${type} description not carried over: dommon writes its own messages`);
    if (a['minimum-reminder-interval'])
      b.note(at, `${label}: alert ${type} minimum-reminder-interval not carried over: dommon sends no reminders`);
    if (a['provider-override'])
      b.note(
        at,
        `${label}: alert ${type} provider-override not carried over: dommon's channels are the team's, not an endpoint's`,
      );
  });
  if (!thresholds.length) return undefined;
  // dommon has one threshold per check: the first alert Gatus would send decides when it is down.
  const min = Math.min(...thresholds);
  if (new Set(thresholds).size > 1)
    b.note(
      src.at(path),
      `${label}: alerts with failure thresholds ${thresholds.join(', ')}: dommon uses the lowest, ${min}`,
    );
  return Math.max(1, Math.min(100, min));
}

/** Splits a Gatus URL into dommon's endpoint type and parts; a note and null when dommon has no such check. */
function endpointTarget(
  src: Source,
  b: FileBuilder,
  e: Json,
  path: Path,
  label: string,
): { domain: string; ep: Omit<FileEndpoint, 'name'> } | null {
  const url = str(e.url) ?? '';
  if (isObj(e.dns)) {
    const host = str(e.dns['query-name']) ?? '';
    const split = splitHost(host);
    if (!split.ok) {
      b.note(src.at([...path, 'dns', 'query-name']), `${label}: not carried over: ${split.reason}`);
      return null;
    }
    const qtype = (str(e.dns['query-type']) ?? 'A').toUpperCase();
    if (!RECORD_TYPES.includes(qtype)) {
      b.note(
        src.at([...path, 'dns', 'query-type']),
        `${label}: not carried over: dommon's dns checks ask for ${RECORD_TYPES.join(', ')}, not ${qtype}`,
      );
      return null;
    }
    const resolver = url.replace(/^(udp|tcp|dns):\/\//i, '').replace(/\/$/, '');
    if (/^tcp:/i.test(url)) b.note(src.at([...path, 'url']), `${label}: DNS over TCP: dommon asks over UDP`);
    return {
      domain: split.domain,
      ep: {
        type: 'dns',
        ...(split.subdomain ? { subdomain: split.subdomain } : {}),
        record_type: qtype,
        ...(resolver ? { resolver } : {}),
      },
    };
  }
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/.exec(url);
  if (!m) {
    b.note(src.at([...path, 'url']), `${label}: not carried over: "${url}" is not a URL dommon can check`);
    return null;
  }
  const scheme = m[1]!.toLowerCase();
  if (scheme === 'http' || scheme === 'https') {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      b.note(src.at([...path, 'url']), `${label}: not carried over: "${url}" is not a valid URL`);
      return null;
    }
    const split = splitHost(decodeURIComponent(u.hostname));
    if (!split.ok) {
      b.note(src.at([...path, 'url']), `${label}: not carried over: ${split.reason}`);
      return null;
    }
    if (u.username || u.password)
      b.note(
        src.at([...path, 'url']),
        `${label}: credentials in the URL not carried over: set liveness.auth (sealed) instead`,
      );
    const p = `${u.pathname}${u.search}`;
    return {
      domain: split.domain,
      ep: {
        type: scheme,
        ...(split.subdomain ? { subdomain: split.subdomain } : {}),
        ...(p && p !== '/' ? { path: p } : {}),
        ...(u.port ? { port: Number(u.port) } : {}),
      },
    };
  }
  const hostPort = /^(\[[^\]]+\]|[^:/?#]+)(?::(\d+))?\/?$/.exec(m[2]!);
  const types: Record<string, string> = { tcp: 'port', tls: 'port', starttls: 'smtp', icmp: 'icmp' };
  const type = types[scheme];
  if (!type) {
    b.note(src.at([...path, 'url']), `${label}: not carried over: dommon has no ${scheme}:// checks`);
    return null;
  }
  if (!hostPort) {
    b.note(src.at([...path, 'url']), `${label}: not carried over: "${url}" is not host:port`);
    return null;
  }
  const split = splitHost(hostPort[1]!);
  if (!split.ok) {
    b.note(src.at([...path, 'url']), `${label}: not carried over: ${split.reason}`);
    return null;
  }
  const port = hostPort[2] ? Number(hostPort[2]) : undefined;
  if ((type === 'port' || type === 'smtp') && !port) {
    b.note(src.at([...path, 'url']), `${label}: not carried over: ${scheme}:// needs a port`);
    return null;
  }
  if (scheme === 'tls')
    b.note(
      src.at([...path, 'url']),
      `${label}: tls:// carried over as a port check (the certificate is inspected on ports 443, 8443, 993, 995, 465 only)`,
    );
  return {
    domain: split.domain,
    ep: {
      type,
      ...(split.subdomain ? { subdomain: split.subdomain } : {}),
      ...(type !== 'icmp' && port ? { port } : {}),
    },
  };
}

/** The conditions dommon can judge for the type; the others reported. */
function conditionsFor(src: Source, b: FileBuilder, type: string, list: unknown, path: Path, label: string): string[] {
  if (!Array.isArray(list)) return [];
  // The placeholders the type's probe supplies (src/probes): none for a connection check.
  const allowed: readonly Placeholder[] = pluginOf(type as EndpointType).placeholders ?? [];
  const out: string[] = [];
  list.forEach((raw, i) => {
    const c = str(raw);
    if (c === undefined) return;
    const at = src.at([...path, i]);
    // A connection check is what a port or smtp check is: the condition says no more.
    if (!allowed.length && /^\[CONNECTED\] == true$/.test(c.trim())) return;
    if (!allowed.length) {
      b.note(at, `${label}: condition "${c}" not carried over: ${type} checks take no conditions`);
      return;
    }
    try {
      parseConditions([c], { placeholders: allowed });
      out.push(c);
    } catch (err) {
      const used = PLACEHOLDERS.filter((p) => c.includes(`[${p}]`) && !allowed.includes(p));
      b.note(
        at,
        `${label}: condition "${c}" not carried over: ${used.length ? `${type} checks have no ${used.map((p) => `[${p}]`).join(', ')}` : (err as Error).message}`,
      );
    }
  });
  return out.slice(0, 32);
}

function importEndpoint(src: Source, b: FileBuilder, alerting: Alerting, raw: unknown, path: Path): string | null {
  if (!isObj(raw)) return null;
  const name = str(raw.name)?.trim();
  if (!name) {
    b.note(src.at(path), 'endpoint without a name not carried over');
    return null;
  }
  const label = `endpoint "${name}"`;
  const target = endpointTarget(src, b, raw, path, label);
  if (!target) return null;
  const { domain, ep } = target;
  const type = String(ep.type);
  const http = type === 'http' || type === 'https';
  const liveness: Json = {};
  if (raw.enabled === false) liveness.is_enabled = false;
  if (raw.interval !== undefined) {
    const s = goDurationSeconds(raw.interval);
    if (s === null)
      b.note(
        src.at([...path, 'interval']),
        `${label}: interval "${String(raw.interval)}" not carried over: not a duration`,
      );
    else {
      liveness.interval_seconds = Math.max(1, Math.min(86400, s));
      if (s > 86400)
        b.note(
          src.at([...path, 'interval']),
          `${label}: interval ${String(raw.interval)} carried over as 24h, dommon's longest`,
        );
    }
  }
  const threshold = alertsThreshold(src, b, alerting, raw.alerts, [...path, 'alerts'], label);
  if (threshold !== undefined) liveness.failure_threshold = threshold;

  if (raw.method !== undefined) {
    const method = (str(raw.method) ?? '').toUpperCase();
    if (!http)
      b.note(src.at([...path, 'method']), `${label}: method not carried over: ${type} checks send no HTTP request`);
    else if (!METHODS.includes(method))
      b.note(
        src.at([...path, 'method']),
        `${label}: method ${method} not carried over: dommon sends ${METHODS.join(', ')}`,
      );
    else if (method !== 'GET') liveness.method = method;
  }
  if (isObj(raw.headers)) {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw.headers)) {
      const value = str(v) ?? '';
      const at = src.at([...path, 'headers', k]);
      if (!http) b.note(at, `${label}: header ${k} not carried over: ${type} checks send no HTTP request`);
      else if (/^authorization$/i.test(k)) {
        const auth = authOf(b, value, name);
        if (auth) liveness.auth = auth;
        else
          b.note(
            at,
            `${label}: header Authorization not carried over: dommon takes Basic or Bearer credentials in liveness.auth`,
          );
      } else if (
        /^(host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|proxy-authorization)$/i.test(
          k,
        )
      )
        b.note(at, `${label}: header ${k} not carried over: dommon's probe sets it itself`);
      else headers[k] = value;
    }
    if (Object.keys(headers).length) liveness.headers = headers;
  }
  if (raw.body !== undefined && raw.body !== '') {
    let body = str(raw.body) ?? '';
    if (!http)
      b.note(src.at([...path, 'body']), `${label}: body not carried over: ${type} checks send no HTTP request`);
    else {
      body = body
        .replaceAll('[ENDPOINT_NAME]', name)
        .replaceAll('[ENDPOINT_GROUP]', str(raw.group) ?? '')
        .replaceAll('[ENDPOINT_URL]', str(raw.url) ?? '');
      const left = /\[(LOCAL_ADDRESS|RANDOM_STRING_\d+|CONTEXT)\]?/.exec(body);
      if (left)
        b.note(
          src.at([...path, 'body']),
          `${label}: the body's placeholder [${left[1]}] is sent as written: dommon fills in no placeholders`,
        );
      if (raw.graphql === true) {
        body = JSON.stringify({ query: body });
        const h = (liveness.headers ??= {}) as Record<string, string>;
        if (!Object.keys(h).some((k) => /^content-type$/i.test(k))) h['Content-Type'] = 'application/json';
      }
      liveness.body = body;
    }
  }
  const conditions = conditionsFor(src, b, type, raw.conditions, [...path, 'conditions'], label);
  if (conditions.length) liveness.conditions = conditions;

  if (isObj(raw.client)) {
    for (const [k, v] of Object.entries(raw.client)) {
      const at = src.at([...path, 'client', k]);
      if (k === 'timeout') {
        const s = goDurationSeconds(v);
        if (s !== null) liveness.timeout_seconds = Math.max(1, Math.min(300, s));
        else b.note(at, `${label}: client.timeout not carried over: not a duration`);
      } else if (k === 'ignore-redirect') {
        // dommon's default is Gatus's ignore-redirect: true (a redirect is the answer judged); below, false is Gatus's default.
      } else if (k === 'insecure' && v === false) {
        // dommon always verifies certificates: the same
      } else if (k === 'insecure')
        b.note(
          at,
          `${label}: client.insecure not carried over: dommon always verifies the certificate (and reports it when it fails)`,
        );
      else if (k === 'dns-resolver')
        b.note(
          at,
          `${label}: client.dns-resolver not carried over: dommon resolves through DOMMON_DNS_SERVERS for every check`,
        );
      else if (k === 'network')
        b.note(at, `${label}: client.network not carried over: dommon uses what the name resolves to`);
      else if (k === 'store-cookies' && v === false) {
        // the same: dommon keeps no cookies
      } else b.note(at, `${label}: client.${k} not carried over: dommon has no such client setting`);
    }
  }
  if (http && !(isObj(raw.client) && raw.client['ignore-redirect'] === true)) liveness.follow_redirects = true;

  for (const k of Object.keys(raw)) {
    if (
      [
        'name',
        'group',
        'url',
        'enabled',
        'interval',
        'alerts',
        'method',
        'headers',
        'body',
        'graphql',
        'conditions',
        'client',
        'dns',
        'maintenance-windows',
      ].includes(k)
    )
      continue;
    const why: Record<string, string> = {
      ui: "dashboard display settings: dommon's dashboard has none of these",
      'extra-labels': 'dommon has no per-endpoint metric labels',
      ssh: 'dommon has no SSH checks',
    };
    b.note(src.at([...path, k]), `${label}: ${k} not carried over: ${why[k] ?? 'not a setting dommon has'}`);
  }

  const group = str(raw.group)?.trim();
  const ref = b.endpoint(
    src.at(path),
    domain,
    { name, ...ep, ...(Object.keys(liveness).length ? { liveness } : {}) } as FileEndpoint,
    group || undefined,
  );
  if (Array.isArray(raw['maintenance-windows']))
    raw['maintenance-windows'].forEach((w, i) => {
      if (!isObj(w)) return;
      const mw = maintenanceWindow(src, b, w, [...path, 'maintenance-windows', i], `${name} maintenance`);
      if (mw) b.maintenanceWindow({ ...mw, endpoints: [ref] });
    });
  return ref;
}

/** An Authorization header as dommon's sealed credentials (the secret as a `${NAME}` reference). */
function authOf(b: FileBuilder, value: string, endpoint: string): Json | null {
  const bearer = /^Bearer\s+(\S+)$/i.exec(value);
  if (bearer)
    return {
      type: 'bearer',
      token: b.secret(envName(endpoint, 'token'), `the bearer token of endpoint "${endpoint}"`, bearer[1]),
    };
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(value);
  if (basic) {
    const plain = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = plain.indexOf(':');
    if (colon > 0)
      return {
        type: 'basic',
        username: plain.slice(0, colon),
        password: b.secret(envName(endpoint, 'password'), `the basic-auth password of endpoint "${endpoint}"`),
      };
  }
  return null;
}

function importExternal(
  src: Source,
  b: FileBuilder,
  alerting: Alerting,
  raw: unknown,
  path: Path,
  pushDomain: string | undefined,
  tokens: Set<string>,
): void {
  if (!isObj(raw)) return;
  const name = str(raw.name)?.trim();
  if (!name) {
    b.note(src.at(path), 'external endpoint without a name not carried over');
    return;
  }
  const label = `external endpoint "${name}"`;
  if (!pushDomain) {
    b.note(
      src.at(path),
      `${label}: not carried over: a push monitor sits under a domain, and the file has none (name one with --push-domain)`,
    );
    return;
  }
  const split = splitHost(pushDomain);
  if (!split.ok) {
    b.note(src.at(path), `${label}: not carried over: --push-domain ${pushDomain}: ${split.reason}`);
    return;
  }
  const group = str(raw.group)?.trim() ?? '';
  const ep: Json = { type: 'push', ...(split.subdomain ? { subdomain: split.subdomain } : {}) };
  // The token becomes the ping key: the job's POST to /api/v1/endpoints/<key>/external with the same
  // Bearer token keeps working with dommon's address as the base.
  const url = `/api/v1/endpoints/${gatusKey(group, name)}/external`;
  const token = str(raw.token);
  let keyNote: string;
  if (!token) keyNote = `it has no token: its pushes go to the ping URL dommon gives it, not to ${url}`;
  else if (!PING_KEY.test(token))
    keyNote = `its token is not carried over (a ping key is 10 to 64 letters, digits, - and _; a \${...} reference is not resolved by an import): its pushes go to the ping URL dommon gives it, not to ${url}`;
  else if (tokens.has(pingKeyOf(token)))
    keyNote = `its token is another external endpoint's, kept there: its pushes go to the ping URL dommon gives it, not to ${url}`;
  else {
    tokens.add(pingKeyOf(token));
    ep.ping_key = token;
    keyNote = `its token is its ping key: the job's POST to ${url} with that Bearer token keeps working with dommon's address as the base (and /ping/<token>)`;
  }
  b.note(
    src.at(path),
    `${label}: carried over as a push monitor under ${split.domain}${split.subdomain ? ` (subdomain ${split.subdomain})` : ''}: Gatus's external endpoints have no host (--push-domain picks the domain); ${keyNote}`,
  );
  const heartbeat = isObj(raw.heartbeat) ? goDurationSeconds(raw.heartbeat.interval) : null;
  if (heartbeat) {
    ep.period_seconds = Math.min(31536000, heartbeat);
    ep.grace_seconds = Math.max(1, Math.min(60, Math.floor(heartbeat / 10)));
  } else
    b.note(
      src.at(path),
      `${label}: no heartbeat interval: dommon expects a ping at least every 24 h (period_seconds 86400); set period_seconds to match the pushes`,
    );
  const liveness: Json = {};
  if (raw.enabled === false) liveness.is_enabled = false;
  const threshold = alertsThreshold(src, b, alerting, raw.alerts, [...path, 'alerts'], label);
  if (threshold !== undefined) liveness.failure_threshold = threshold;
  for (const k of Object.keys(raw))
    if (!['name', 'group', 'token', 'heartbeat', 'alerts', 'enabled'].includes(k))
      b.note(src.at([...path, k]), `${label}: ${k} not carried over: not a setting dommon has`);
  b.endpoint(
    src.at(path),
    split.domain,
    { name, ...ep, ...(Object.keys(liveness).length ? { liveness } : {}) } as FileEndpoint,
    group || undefined,
  );
}

/** A Gatus maintenance window (start hh:mm, duration, timezone, every [days]) as a recurring dommon window. */
function maintenanceWindow(
  src: Source,
  b: FileBuilder,
  w: Json,
  path: Path,
  name: string,
): (Json & { name: string }) | null {
  const at = src.at(path);
  const start = /^(\d{1,2}):(\d{2})$/.exec(str(w.start) ?? '');
  const minutes = goDurationSeconds(w.duration);
  if (!start || Number(start[1]) > 23 || Number(start[2]) > 59 || !minutes) {
    b.note(at, `maintenance window not carried over: start (hh:mm) and duration are required`);
    return null;
  }
  const days: number[] = [];
  if (Array.isArray(w.every))
    for (const d of w.every) {
      const i = DAYS.indexOf((str(d) ?? '').toLowerCase());
      if (i < 0) {
        b.note(at, `maintenance window not carried over: "${String(d)}" is not a day of the week`);
        return null;
      }
      days.push(i);
    }
  const duration = Math.ceil(minutes / 60);
  if (duration > 10080) {
    b.note(at, `maintenance window not carried over: dommon's windows last at most 7 days`);
    return null;
  }
  return {
    name,
    cron: `${Number(start[2])} ${Number(start[1])} * * ${days.length ? [...new Set(days)].sort().join(',') : '*'}`,
    duration_minutes: duration,
    timezone: str(w.timezone) ?? 'UTC',
    ...(w.enabled === false ? { is_enabled: false } : {}),
  };
}
