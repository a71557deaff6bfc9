// `dommon import uptime-kuma FILE`: an Uptime Kuma kuma.db (1.23 or 2.x) or JSON backup as a dommon
// configuration file. What maps to what, and what is reported instead, is in docs/import-uptime-kuma.md;
// every monitor, notification, tag, maintenance window and status page is either in the file or named
// in a note.
import fs from 'node:fs';
import { Invalid } from '../../domain/errors.js';
import { PING_KEY, pingKeyOf } from '../../domain/push.js';
import { KUMA_TABLES, type KumaRow, type KumaTables } from '../../domain/uptime-kuma.js';
import { readKumaDatabase } from '../../store/uptime-kuma.js';
import { envName, FileBuilder, splitHost, type FileEndpoint, type ImportResult } from './file.js';

type Json = Record<string, unknown>;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'CAA', 'DS'];
/** Header names whose values are credentials: written as `${NAME}` references. */
const SECRET_NAME = /key|token|secret|passw|auth|cookie|session|signature/i;
const BODY_TYPES: Record<string, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  xml: 'text/xml; charset=utf-8',
};

const s = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const n = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const on = (v: unknown): boolean => v === 1 || v === true || v === '1' || v === 'true';
const jsonOf = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
};

/** The tables of a kuma.db, or of a JSON backup (Kuma 1.x `/backup`: monitors and notifications only). */
function readKuma(file: string): { tables: KumaTables; kind: 'kuma.db' | 'backup' } {
  let head: Buffer;
  try {
    head = fs.readFileSync(file).subarray(0, 16);
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (head.toString('latin1') === 'SQLite format 3\0') {
    try {
      return { tables: readKumaDatabase(file), kind: 'kuma.db' };
    } catch (err) {
      throw new Invalid(`${file}: ${(err as Error).message}`);
    }
  }
  const backup = jsonOf(fs.readFileSync(file, 'utf8')) as Json | undefined;
  if (!backup || !Array.isArray(backup.monitorList))
    throw new Invalid(`${file} is neither an Uptime Kuma data file (kuma.db) nor a JSON backup (with monitorList)`);
  return { tables: fromBackup(backup), kind: 'backup' };
}

/** A JSON backup's monitorList and notificationList as the tables' rows (camelCase to Kuma's columns). */
function fromBackup(backup: Json): KumaTables {
  const t = Object.fromEntries(KUMA_TABLES.map((k) => [k, [] as KumaRow[]])) as unknown as KumaTables;
  const tags = new Map<number, KumaRow>();
  for (const raw of backup.monitorList as Json[]) {
    const row: KumaRow = {};
    for (const [k, v] of Object.entries(raw)) {
      if (k === 'accepted_statuscodes') row.accepted_statuscodes_json = JSON.stringify(v);
      else if (k === 'notificationIDList' && v && typeof v === 'object') {
        for (const [id, yes] of Object.entries(v))
          if (yes) t.monitor_notification.push({ monitor_id: raw.id, notification_id: Number(id) });
      } else if (k === 'tags' && Array.isArray(v)) {
        for (const tag of v as Json[]) {
          tags.set(n(tag.tag_id), { id: n(tag.tag_id), name: tag.name, color: tag.color });
          t.monitor_tag.push({ monitor_id: raw.id, tag_id: tag.tag_id, value: tag.value ?? '' });
        }
      } else row[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    }
    t.monitor.push(row);
  }
  t.tag = [...tags.values()];
  for (const raw of (backup.notificationList ?? []) as Json[])
    t.notification.push({
      id: raw.id,
      name: raw.name,
      active: raw.active ?? 1,
      is_default: raw.isDefault,
      config: raw.config,
    });
  return t;
}

interface Ctx {
  b: FileBuilder;
  file: string;
  tables: KumaTables;
  /** monitor id -> the endpoint reference made from it */
  refs: Map<number, string>;
  pushDomain?: string;
  /** The push tokens given to endpoints so far (a ping key is unique). */
  pushTokens: Set<string>;
}

const monitorAt = (c: Ctx, m: KumaRow) => `${c.file}: monitor ${s(m.id)} "${s(m.name)}"`;

export function importUptimeKuma(file: string, options: { pushDomain?: string } = {}): ImportResult {
  const { tables, kind } = readKuma(file);
  const b = new FileBuilder();
  const c: Ctx = { b, file, tables, refs: new Map(), pushDomain: options.pushDomain, pushTokens: new Set() };
  importNotifications(c);
  const byId = new Map(tables.monitor.map((m) => [n(m.id), m]));
  // Hosted monitors first: push monitors (no host) go under a domain the others made.
  const order = [...tables.monitor].sort((a, b2) => Number(a.type === 'push') - Number(b2.type === 'push'));
  for (const m of order) importMonitor(c, m, byId);
  importMaintenance(c);
  importStatusPages(c);
  if (kind === 'backup')
    b.note(
      file,
      'a JSON backup holds monitors and notifications only: maintenance windows and status pages are in kuma.db',
    );
  return b.result();
}

/** The names of a monitor and the groups above it, outermost first. */
function groupPath(m: KumaRow, byId: Map<number, KumaRow>): string[] {
  const path: string[] = [];
  const seen = new Set<number>();
  for (
    let p: KumaRow | undefined = m;
    p && !seen.has(n(p.id));
    p = p.parent == null ? undefined : byId.get(n(p.parent))
  ) {
    seen.add(n(p.id));
    path.unshift(s(p.name).trim() || `monitor ${s(p.id)}`);
  }
  return path;
}

/** A monitor's portfolio: its group (the groups' path), else its first tag; the other tags are reported. */
function portfolioOf(c: Ctx, m: KumaRow, byId: Map<number, KumaRow>): { portfolio?: string; unused: string[] } {
  const names: string[] = [];
  const path = groupPath(m, byId).slice(0, -1);
  if (path.length) names.push(path.join(' / '));
  const tagNames = new Map(c.tables.tag.map((t) => [n(t.id), s(t.name)]));
  for (const mt of c.tables.monitor_tag.filter((x) => n(x.monitor_id) === n(m.id))) {
    const name = tagNames.get(n(mt.tag_id)) ?? `tag ${s(mt.tag_id)}`;
    names.push(s(mt.value) ? `${name}: ${s(mt.value)}` : name);
  }
  return { portfolio: names[0], unused: names.slice(1) };
}

/** Kuma's accepted status codes (`["200-299", "401"]`) as conditions, or one expected code. */
function statusRule(codes: string[]): { expected?: number; conditions: string[] } | null {
  const list = codes.map((x) => x.trim()).filter(Boolean);
  if (!list.length || (list.length === 1 && list[0] === '200-299'))
    return { conditions: ['[STATUS] >= 200', '[STATUS] <= 299'] };
  if (list.length === 1 && /^\d{3}$/.test(list[0]!)) return { expected: Number(list[0]), conditions: [] };
  if (list.length === 1 && /^\d{3}-\d{3}$/.test(list[0]!)) {
    const [lo, hi] = list[0]!.split('-');
    return { conditions: [`[STATUS] >= ${lo}`, `[STATUS] <= ${hi}`] };
  }
  const all: number[] = [];
  for (const x of list) {
    const r = /^(\d{3})(?:-(\d{3}))?$/.exec(x);
    if (!r) return null;
    for (let i = Number(r[1]); i <= Number(r[2] ?? r[1]); i++) all.push(i);
  }
  if (all.length > 200) return null;
  return { conditions: [`[STATUS] == any(${[...new Set(all)].join(', ')})`] };
}

function importMonitor(c: Ctx, m: KumaRow, byId: Map<number, KumaRow>): void {
  const { b } = c;
  const at = monitorAt(c, m);
  const type = s(m.type);
  const name = s(m.name).trim() || `monitor ${s(m.id)}`;
  if (type === 'group') {
    b.portfolio(groupPath(m, byId).join(' / '));
    const tags = c.tables.monitor_tag.filter((x) => n(x.monitor_id) === n(m.id)).length;
    if (tags)
      b.note(at, `group carried over as a portfolio; its ${tags} tag(s) not carried over: a portfolio has no tags`);
    return;
  }
  if (!['http', 'keyword', 'json-query', 'port', 'ping', 'dns', 'push'].includes(type)) {
    b.note(at, `not carried over: dommon has no ${type} monitors`);
    return;
  }
  if (on(m.upside_down)) {
    b.note(at, 'not carried over: upside-down mode (up when the check fails) is not something dommon has');
    return;
  }
  const http = ['http', 'keyword', 'json-query'].includes(type);
  let domain: string;
  let ep: Json;
  if (type === 'push') {
    const pd = c.pushDomain ?? b.domainNames()[0];
    const split = pd ? splitHost(pd) : null;
    if (!split?.ok) {
      b.note(
        at,
        `not carried over: a push monitor sits under a domain${pd ? `; --push-domain ${pd}: ${split && !split.ok ? split.reason : ''}` : ', and the file has none (name one with --push-domain)'}`,
      );
      return;
    }
    domain = split.domain;
    const interval = Math.max(1, n(m.interval) || 60);
    const retries = Math.max(0, n(m.maxretries) || 0);
    ep = {
      type: 'push',
      ...(split.subdomain ? { subdomain: split.subdomain } : {}),
      period_seconds: Math.min(31536000, interval),
      grace_seconds: Math.max(
        1,
        Math.min(
          31536000,
          retries ? retries * (n(m.retry_interval) || interval) : Math.min(60, Math.floor(interval / 10)),
        ),
      ),
    };
    // Kuma's token becomes the ping key: the job's push URL keeps working on dommon's address.
    const token = s(m.push_token);
    let keyNote: string;
    if (!token) keyNote = 'it has no push token: the job pings the URL dommon gives it';
    else if (!PING_KEY.test(token))
      keyNote = `its push token is not carried over (a ping key is 10 to 64 letters, digits, - and _): the job pings the URL dommon gives it`;
    else if (c.pushTokens.has(pingKeyOf(token)))
      keyNote = `its push token is another monitor's, kept there: the job pings the URL dommon gives it`;
    else {
      c.pushTokens.add(pingKeyOf(token));
      ep.ping_key = token;
      keyNote = `its push token is its ping key: the job's URL /api/push/<token> keeps working with dommon's address as the base (and /ping/<token>)`;
    }
    b.note(
      at,
      `carried over as a push monitor under ${split.domain}: Kuma's push monitors have no host (--push-domain picks the domain); ${keyNote}; grace_seconds is the retries' time (retries x retry interval)`,
    );
  } else if (http) {
    let u: URL;
    try {
      u = new URL(s(m.url));
    } catch {
      b.note(at, `not carried over: "${s(m.url)}" is not a URL`);
      return;
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      b.note(at, `not carried over: dommon checks http and https URLs, not ${u.protocol}`);
      return;
    }
    const split = splitHost(decodeURIComponent(u.hostname));
    if (!split.ok) {
      b.note(at, `not carried over: ${split.reason}`);
      return;
    }
    domain = split.domain;
    const p = `${u.pathname}${u.search}`;
    ep = {
      type: u.protocol.slice(0, -1),
      ...(split.subdomain ? { subdomain: split.subdomain } : {}),
      ...(p && p !== '/' ? { path: p } : {}),
      ...(u.port ? { port: Number(u.port) } : {}),
    };
  } else {
    const host = s(m.hostname).trim();
    const split = splitHost(host);
    if (!split.ok) {
      b.note(at, `not carried over: ${host ? split.reason : 'no hostname'}`);
      return;
    }
    domain = split.domain;
    ep = { type: type === 'ping' ? 'icmp' : type, ...(split.subdomain ? { subdomain: split.subdomain } : {}) };
    if (type === 'port') {
      if (!(n(m.port) >= 1 && n(m.port) <= 65535)) {
        b.note(at, 'not carried over: no port');
        return;
      }
      ep.port = n(m.port);
    }
    if (type === 'ping') {
      const count = n(m.ping_count);
      if (count >= 1) ep.count = Math.min(20, count);
      if (m.packet_size != null && n(m.packet_size) !== 56)
        b.note(at, `packet size ${s(m.packet_size)} not carried over: dommon sends 56-byte echo requests`);
    }
    if (type === 'dns') {
      const rtype = s(m.dns_resolve_type).toUpperCase() || 'A';
      if (!RECORD_TYPES.includes(rtype)) {
        b.note(at, `not carried over: dommon's dns checks ask for ${RECORD_TYPES.join(', ')}, not ${rtype}`);
        return;
      }
      ep.record_type = rtype;
      const servers = s(m.dns_resolve_server)
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      if (servers.length) {
        const port = n(m.port) && n(m.port) !== 53 ? `:${n(m.port)}` : '';
        ep.resolver = `${servers[0]!.includes(':') ? `[${servers[0]}]` : servers[0]}${port}`;
        if (servers.length > 1)
          b.note(
            at,
            `resolvers ${servers.slice(1).join(', ')} not carried over: a dommon dns check asks one server (${servers[0]})`,
          );
      }
      const conds = jsonOf(m.conditions);
      if (Array.isArray(conds) && conds.length)
        b.note(
          at,
          `conditions not carried over: Kuma's DNS conditions have another syntax; write them as dommon conditions (docs/conditions.md)`,
        );
    }
  }

  const liveness: Json = {};
  if (!on(m.active)) liveness.is_enabled = false;
  const interval = n(m.interval);
  if (interval >= 1) liveness.interval_seconds = Math.min(86400, Math.round(interval));
  const retries = n(m.maxretries);
  if (retries >= 1) liveness.failure_threshold = Math.min(100, retries + 1);
  if (retries >= 1 && n(m.retry_interval) && n(m.retry_interval) !== interval && type !== 'push')
    b.note(
      at,
      `retry interval ${s(m.retry_interval)} s not carried over: dommon checks at the interval (${interval} s) while it retries`,
    );
  if (n(m.resend_interval) > 0) b.note(at, 'resend interval not carried over: dommon sends no reminders while down');
  if (m.timeout != null && type !== 'push' && n(m.timeout) > 0)
    liveness.timeout_seconds = Math.max(1, Math.min(300, Math.ceil(n(m.timeout))));
  if (s(m.description).trim()) ep.notes = s(m.description).slice(0, 5000);

  if (http) {
    const method = (s(m.method) || 'GET').toUpperCase();
    if (!METHODS.includes(method)) b.note(at, `method ${method} not carried over: dommon sends ${METHODS.join(', ')}`);
    else if (method !== 'GET') liveness.method = method;
    const headers: Record<string, string> = {};
    const h = s(m.headers).trim() ? jsonOf(m.headers) : {};
    if (!h || typeof h !== 'object' || Array.isArray(h)) b.note(at, 'headers not carried over: not a JSON object');
    else
      for (const [k, v] of Object.entries(h as Json)) {
        if (
          /^(authorization|host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|proxy-authorization)$/i.test(
            k,
          )
        ) {
          b.note(
            at,
            `header ${k} not carried over: ${/auth/i.test(k) ? 'credentials go in liveness.auth (basic or bearer)' : "dommon's probe sets it itself"}`,
          );
          continue;
        }
        headers[k] = SECRET_NAME.test(k)
          ? b.secret(envName(name, k), `header ${k} of monitor ${s(m.id)} "${name}"`, s(v))
          : s(v);
      }
    let body = s(m.body);
    if (body.trim()) {
      const enc = s(m.http_body_encoding) || 'json';
      if (enc === 'form') body = secretsInForm(c, body, name, m);
      else if (enc === 'json') body = secretsInJson(c, body, name, m);
      if (BODY_TYPES[enc] && !Object.keys(headers).some((k) => /^content-type$/i.test(k)))
        headers['Content-Type'] = BODY_TYPES[enc];
      liveness.body = body.slice(0, 65536);
    }
    if (Object.keys(headers).length) liveness.headers = headers;
    const authMethod = s(m.auth_method);
    if (authMethod === 'basic' || (!authMethod && s(m.basic_auth_user))) {
      if (s(m.basic_auth_user) && !s(m.basic_auth_user).includes(':'))
        liveness.auth = {
          type: 'basic',
          username: s(m.basic_auth_user),
          password: b.secret(envName(name, 'password'), `the basic-auth password of monitor ${s(m.id)} "${name}"`),
        };
      else b.note(at, 'basic auth not carried over: no user name, or one with a colon');
    } else if (authMethod)
      b.note(at, `authentication ${authMethod} not carried over: dommon sends basic or bearer credentials`);
    if (s(m.bearer_token))
      liveness.auth = {
        type: 'bearer',
        token: b.secret(envName(name, 'token'), `the bearer token of monitor ${s(m.id)} "${name}"`),
      };
    if (on(m.ignore_tls))
      b.note(
        at,
        'ignore TLS errors not carried over: dommon always verifies the certificate (and reports it when it fails)',
      );
    const redirects = m.maxredirects == null ? 10 : n(m.maxredirects);
    if (redirects > 0) liveness.follow_redirects = true;
    if (redirects > 0 && redirects !== 10) b.note(at, `max redirects ${redirects}: dommon follows up to 10`);
    if (on(m.cache_bust)) b.note(at, 'cache busting not carried over: dommon sends the URL as it is');
    if (s(m.proxy_id)) b.note(at, 'proxy not carried over: dommon connects directly');

    const codes = (jsonOf(m.accepted_statuscodes_json) as string[] | undefined) ?? ['200-299'];
    const rule = statusRule(Array.isArray(codes) ? codes.map(String) : ['200-299']);
    if (!rule)
      b.note(at, `accepted status codes ${codes.join(', ')} not carried over: too many to list; dommon expects 200`);
    const status = rule ? (rule.expected !== undefined ? [`[STATUS] == ${rule.expected}`] : rule.conditions) : [];
    if (type === 'http') {
      if (rule?.expected !== undefined) liveness.expected_status_code = rule.expected;
      else if (status.length) liveness.conditions = status;
    } else if (type === 'keyword') {
      const kw = s(m.keyword);
      if (!kw || /[*?[\]()]/.test(kw)) {
        b.note(
          at,
          `not carried over: ${kw ? 'its keyword holds * ? [ ] ( or ), which a dommon pattern reads as more than text' : 'no keyword set'}`,
        );
        return;
      }
      liveness.conditions = [...status, `[BODY] ${on(m.invert_keyword) ? '!=' : '=='} pat(*${kw}*)`];
    } else {
      const cond = jsonCondition(s(m.json_path), s(m.json_path_operator) || '==', s(m.expected_value));
      if (!cond) {
        b.note(
          at,
          `not carried over: the JSON query "${s(m.json_path)}" ${s(m.json_path_operator) || '=='} "${s(m.expected_value)}" is not a plain path dommon's [BODY] conditions can read`,
        );
        return;
      }
      liveness.conditions = [...status, cond];
    }
  }

  const { portfolio, unused } = portfolioOf(c, m, byId);
  for (const tag of unused)
    b.note(at, `tag "${tag}" not carried over: a domain is in one portfolio ("${portfolio}" here)`);
  if (type === 'push') delete liveness.interval_seconds;
  const ref = b.endpoint(
    at,
    domain,
    { name: name.slice(0, 200), ...ep, ...(Object.keys(liveness).length ? { liveness } : {}) } as FileEndpoint,
    portfolio,
    m.parent == null ? 'tag' : 'group',
  );
  c.refs.set(n(m.id), ref);
}

/** Kuma's json-query (a path, an operator, a value) as one [BODY] condition; null when the path is not a plain one. */
function jsonCondition(path: string, op: string, value: string): string | null {
  const p = path.trim().replace(/^\$\.?/, '');
  if (!/^([A-Za-z_][\w-]*|\[\d+\])(\.[A-Za-z_][\w-]*|\[\d+\])*$/.test(p)) return null;
  if (/ (==|!=|<|<=|>|>=) /.test(value) || value.includes('\n')) return null;
  const body = `[BODY].${p}`.replace('.[', '[');
  if (['==', '!=', '<', '<=', '>', '>='].includes(op)) return `${body} ${op} ${value}`;
  if (op === 'contains' && !/[*?[\]]/.test(value)) return `${body} == pat(*${value}*)`;
  return null;
}

/** A form body's credential fields as `${NAME}` references. */
function secretsInForm(c: Ctx, body: string, name: string, m: KumaRow): string {
  if (!body.includes('=')) return body;
  const params = new URLSearchParams(body);
  let changed = false;
  for (const [k, v] of [...params]) {
    if (!SECRET_NAME.test(k) || !v) continue;
    params.set(k, c.b.secret(envName(name, k), `form field ${k} of monitor ${s(m.id)} "${name}"`));
    changed = true;
  }
  return changed
    ? [...params]
        .map(([k, v]) => `${encodeURIComponent(k)}=${/^\$\{\w+\}$/.test(v) ? v : encodeURIComponent(v)}`)
        .join('&')
    : body;
}

/** A JSON body's top-level credential fields as `${NAME}` references. */
function secretsInJson(c: Ctx, body: string, name: string, m: KumaRow): string {
  const o = jsonOf(body);
  if (!o || typeof o !== 'object' || Array.isArray(o)) return body;
  let changed = false;
  for (const [k, v] of Object.entries(o as Json))
    if (SECRET_NAME.test(k) && typeof v === 'string' && v) {
      (o as Json)[k] = c.b.secret(envName(name, k), `JSON field ${k} of monitor ${s(m.id)} "${name}"`);
      changed = true;
    }
  return changed ? JSON.stringify(o, null, 4) : body;
}

/** A monitor and, for a group, every monitor under it. */
function descendants(c: Ctx, id: number): number[] {
  const out = [id];
  for (let i = 0; i < out.length && out.length < 10000; i++)
    for (const m of c.tables.monitor)
      if (m.parent != null && n(m.parent) === out[i] && !out.includes(n(m.id))) out.push(n(m.id));
  return out;
}

/** Kuma notification providers dommon has, and how their settings map. */
interface Provider {
  type: string;
  fields: Record<string, { to: string; secret?: boolean }>;
  otherwise?: string;
  /** A setting that is carried another way, or is the default: not reported. */
  ignores?(key: string, value: unknown): boolean;
  /** Last touches to the channel; false when it cannot be carried over (the reason noted). */
  finish?(out: Json, cfg: Json, note: (what: string) => void): boolean;
}
const RECIPIENT_KEYS = ['smtpTo', 'smtpCC', 'smtpBCC'];
const PROVIDERS: Record<string, Provider> = {
  webhook: {
    type: 'webhook',
    fields: { webhookURL: { to: 'webhook_url' } },
    otherwise: "dommon's webhook sends its own JSON body, signed with secret_key when set",
  },
  slack: {
    type: 'slack',
    fields: { slackwebhookURL: { to: 'webhook_url' } },
    otherwise: "the incoming webhook's own channel, name and icon are used",
    finish(out) {
      if (s(out.webhook_url) && !/^https?:\/\//.test(s(out.webhook_url))) out.webhook_url = undefined;
      return true;
    },
  },
  discord: {
    type: 'discord',
    fields: { discordWebhookUrl: { to: 'webhook_url' }, discordUsername: { to: 'username' } },
  },
  telegram: {
    type: 'telegram',
    fields: { telegramBotToken: { to: 'bot_token', secret: true }, telegramChatID: { to: 'chat_id' } },
    otherwise: 'the Bot API base URL is DOMMON_TELEGRAM_URL',
  },
  ntfy: {
    type: 'ntfy',
    fields: {
      ntfyserverurl: { to: 'server_url' },
      ntfytopic: { to: 'topic' },
      ntfyaccesstoken: { to: 'token', secret: true },
    },
    ignores: (k, v) => k === 'ntfyAuthenticationMethod' && ['accessToken', 'none', ''].includes(s(v)),
  },
  smtp: {
    type: 'email',
    fields: {},
    otherwise: 'dommon sends mail through the relay DOMMON_SMTP_URL names (smtp://user:password@host:port)',
    ignores: (k) => RECIPIENT_KEYS.includes(k),
    finish(out, cfg, note) {
      const to = RECIPIENT_KEYS.flatMap((k) => s(cfg[k]).split(','))
        .map((x) => x.trim())
        .filter(Boolean);
      if (!to.length) {
        note('not carried over: no recipient');
        return false;
      }
      out.recipients = [...new Set(to)].slice(0, 50);
      if (s(cfg.smtpCC) || s(cfg.smtpBCC))
        note('CC and BCC recipients carried over as recipients: dommon sends to each one');
      return true;
    },
  },
  teams: { type: 'teams', fields: { webhookUrl: { to: 'webhook_url' } } },
  GoogleChat: { type: 'googlechat', fields: { googleChatWebhookURL: { to: 'webhook_url' } } },
  mattermost: {
    type: 'mattermost',
    fields: {
      mattermostWebhookUrl: { to: 'webhook_url' },
      mattermostchannel: { to: 'channel' },
      mattermostusername: { to: 'username' },
    },
  },
  pushover: {
    type: 'pushover',
    fields: { pushoveruserkey: { to: 'user_key', secret: true }, pushoverapptoken: { to: 'app_token', secret: true } },
  },
  PagerDuty: { type: 'pagerduty', fields: { pagerdutyIntegrationKey: { to: 'routing_key', secret: true } } },
  Opsgenie: { type: 'opsgenie', fields: { opsgenieApiKey: { to: 'api_key', secret: true } } },
  matrix: {
    type: 'matrix',
    fields: {
      homeserverUrl: { to: 'homeserver_url' },
      internalRoomId: { to: 'room_id' },
      accessToken: { to: 'access_token', secret: true },
    },
  },
};
/** Settings every Kuma notification has, or that only steer Kuma's UI: not reported. */
const COMMON = new Set(['name', 'type', 'isDefault', 'applyExisting', 'active', 'id', 'userId']);

function importNotifications(c: Ctx): void {
  const { b } = c;
  for (const row of c.tables.notification) {
    const at = `${c.file}: notification ${s(row.id)} "${s(row.name)}"`;
    const conf = jsonOf(row.config);
    if (!conf || typeof conf !== 'object') {
      b.note(at, 'not carried over: its settings are not JSON');
      continue;
    }
    const cfg = conf as Json;
    const kind = s(cfg.type);
    const map = PROVIDERS[kind];
    if (!map) {
      b.note(at, `not carried over: dommon has no ${kind} channel`);
      continue;
    }
    const out: Json = { type: map.type, delivery_class: 'instant' };
    if (!on(row.active ?? 1)) out.is_enabled = false;
    const skipped: string[] = [];
    for (const [k, v] of Object.entries(cfg)) {
      if (COMMON.has(k)) continue;
      const f = map.fields[k];
      if (f) {
        if (f.secret) {
          if (s(v))
            out[f.to] = b.secret(envName(map.type, f.to), `${f.to} of notification ${s(row.id)} "${s(row.name)}"`);
        } else if (s(v)) out[f.to] = s(v).trim();
        continue;
      }
      if (map.ignores?.(k, v)) continue;
      // An empty or false setting is Kuma's default: nothing is lost.
      if (v === false || v === '' || v === null || v === undefined) continue;
      skipped.push(k);
    }
    if (map.finish && !map.finish(out, cfg, (what) => b.note(at, what))) continue;
    if (skipped.length)
      b.note(
        at,
        `settings ${skipped.join(', ')} not carried over${map.otherwise ? `: ${map.otherwise}` : ': the channel has no such settings'}`,
      );
    const attached = c.tables.monitor_notification
      .filter((x) => n(x.notification_id) === n(row.id))
      .map((x) => s(x.monitor_id));
    if (b.channel(at, out, `notification ${s(row.id)} "${s(row.name)}"`) && attached.length)
      b.note(
        at,
        `carried over as the team's ${map.type} channel: it was on monitors ${attached.join(', ')}; dommon's channels hear of every endpoint`,
      );
  }
}

/** A local date-time (`2027-03-14T22:00`) in an IANA zone as an ISO instant. */
function zonedIso(local: string, tz: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/.exec(local);
  if (!m) return null;
  const asUtc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0));
  const offset = (t: number) => {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
        .formatToParts(new Date(t))
        .map((p) => [p.type, p.value]),
    );
    return Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!) - t;
  };
  try {
    const first = asUtc - offset(asUtc);
    return new Date(asUtc - offset(first)).toISOString();
  } catch {
    return null;
  }
}

function importMaintenance(c: Ctx): void {
  const { b } = c;
  for (const w of c.tables.maintenance) {
    const at = `${c.file}: maintenance ${s(w.id)} "${s(w.title)}"`;
    const strategy = s(w.strategy);
    let tz = s(w.timezone) || 'UTC';
    if (tz === 'SAME_AS_SERVER') {
      b.note(at, 'time zone "same as server" read as UTC: set the window\'s timezone to the Kuma server\'s');
      tz = 'UTC';
    }
    const base: Json & { name: string } = { name: s(w.title).trim() || `maintenance ${s(w.id)}`, timezone: tz };
    if (!on(w.active ?? 1)) base.is_enabled = false;
    if (strategy === 'single') {
      const start = zonedIso(s(w.start_date), tz);
      const end = zonedIso(s(w.end_date), tz);
      if (!start || !end) {
        b.note(at, 'not carried over: a one-off window needs its start and end');
        continue;
      }
      Object.assign(base, { starts_at: start, ends_at: end });
    } else if (['recurring-weekday', 'recurring-day-of-month', 'cron', 'recurring-interval'].includes(strategy)) {
      if (strategy === 'recurring-interval' && n(w.interval_day) > 1) {
        b.note(at, `not carried over: every ${s(w.interval_day)} days is not a cron schedule`);
        continue;
      }
      const cron = s(w.cron).trim();
      const minutes = Math.ceil(n(w.duration) / 60);
      if (!cron || !(minutes >= 1)) {
        b.note(at, 'not carried over: the window has no cron schedule and duration (made by a Kuma before 1.23?)');
        continue;
      }
      if (minutes > 10080) {
        b.note(at, "not carried over: dommon's windows last at most 7 days");
        continue;
      }
      Object.assign(base, { cron, duration_minutes: minutes });
      if (w.start_date || w.end_date) {
        const start = w.start_date ? zonedIso(s(w.start_date), tz) : null;
        const end = w.end_date ? zonedIso(s(w.end_date), tz) : null;
        if (start) base.starts_at = start;
        if (end) base.ends_at = end;
      }
    } else {
      b.note(
        at,
        `not carried over: the ${strategy || 'unknown'} strategy (${strategy === 'manual' ? 'switched on and off by hand' : 'no schedule'}) is not a dommon window`,
      );
      continue;
    }
    const eps: string[] = [];
    for (const mm of c.tables.monitor_maintenance.filter((x) => n(x.maintenance_id) === n(w.id))) {
      const ids = descendants(c, n(mm.monitor_id));
      for (const id of ids) {
        const ref = c.refs.get(id);
        if (ref) eps.push(ref);
        else if (c.tables.monitor.find((m) => n(m.id) === id)?.type !== 'group')
          b.note(at, `monitor ${id} not covered: it was not carried over`);
      }
    }
    const pages = c.tables.maintenance_status_page.filter((x) => n(x.maintenance_id) === n(w.id)).length;
    if (pages)
      b.note(at, `shown on ${pages} status page(s): dommon's pages show a window through the endpoints it covers`);
    if (!eps.length) b.note(at, 'covers no endpoint of the file: add endpoints, domains or portfolios to it');
    b.maintenanceWindow({ ...base, ...(eps.length ? { endpoints: [...new Set(eps)] } : {}) });
  }
}

function importStatusPages(c: Ctx): void {
  const { b } = c;
  for (const p of c.tables.status_page) {
    const at = `${c.file}: status page ${s(p.id)} "${s(p.slug)}"`;
    const slug = s(p.slug).toLowerCase();
    if (!/^[a-z0-9][a-z0-9-]*[a-z0-9]$/.test(slug) || slug.length < 3 || slug.length > 64) {
      b.note(at, 'not carried over: dommon slugs are 3-64 lower-case letters, digits and dashes');
      continue;
    }
    const groups = c.tables.group.filter((g) => n(g.status_page_id) === n(p.id));
    const endpoints: Json[] = [];
    const portfolios = new Map<string, number>();
    for (const g of groups)
      for (const mg of c.tables.monitor_group.filter((x) => n(x.group_id) === n(g.id))) {
        const ref = c.refs.get(n(mg.monitor_id));
        const mon = c.tables.monitor.find((m) => n(m.id) === n(mg.monitor_id));
        if (!ref) {
          b.note(
            at,
            `monitor ${s(mg.monitor_id)} "${s(mon?.name)}" not shown: ${mon?.type === 'group' ? 'a group (a portfolio in the file) is no endpoint; list its endpoints on the page instead' : 'it was not carried over'}`,
          );
          continue;
        }
        endpoints.push({ endpoint: ref, display_name: s(mon?.name).slice(0, 200) || undefined });
      }
    // A dommon page belongs to one portfolio and shows endpoints of it: the one most of its endpoints are in.
    const file = b.result().file;
    const portfolioOfRef = (ref: string) => file.domains?.find((d) => d.name === ref.split('/')[0])?.portfolio;
    for (const e of endpoints) {
      const pf = portfolioOfRef(String(e.endpoint));
      if (pf) portfolios.set(pf, (portfolios.get(pf) ?? 0) + 1);
    }
    const portfolio = [...portfolios].sort((a, b2) => b2[1] - a[1])[0]?.[0];
    if (!portfolio) {
      b.note(
        at,
        'not carried over: none of its monitors is in a portfolio, and a dommon page shows the endpoints of one',
      );
      continue;
    }
    const shown = endpoints.filter((e) => portfolioOfRef(String(e.endpoint)) === portfolio);
    for (const e of endpoints.filter((x) => !shown.includes(x)))
      b.note(
        at,
        `endpoint ${String(e.endpoint)} not shown: a dommon page shows the endpoints of one portfolio ("${portfolio}")`,
      );
    if (groups.length > 1)
      b.note(
        at,
        `its groups (${groups.map((g) => `"${s(g.name)}"`).join(', ')}) not carried over: a dommon page lists its endpoints in one list, in the groups' order`,
      );
    const extra = ['description', 'footer_text', 'custom_css', 'password', 'analytics_id', 'icon'].filter(
      (k) => s(p[k]) && !(k === 'icon' && s(p[k]) === '/icon.svg'),
    );
    if (extra.length) b.note(at, `${extra.join(', ')} not carried over: dommon's pages have none of these`);
    b.statusPage({
      slug,
      portfolio,
      title: s(p.title).slice(0, 200) || slug,
      ...(on(p.show_certificate_expiry) ? { show_certificates: true } : {}),
      ...(on(p.published ?? 1) ? {} : { enabled: false }),
      endpoints: shown.slice(0, 100).map((e) => (e.display_name ? e : { endpoint: e.endpoint })),
    });
  }
}
