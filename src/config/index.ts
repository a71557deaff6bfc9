// Flags + DOMMON_* environment -> one frozen, validated Config. The only module that reads env.
import os from 'node:os';
import path from 'node:path';
import { outboundPolicy, OutboundRuleError, type OutboundPolicy } from '../domain/outbound.js';
import { secretKeyConfig, type SecretKeyConfig } from './secret-key.js';
import { oidcConfig, type OidcConfig } from './oidc.js';

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** DOMMON_ROLE: `all` (API and every scheduler), `api` (API only), `worker` (schedulers, /health and /metrics only). */
export const NODE_ROLES = ['all', 'api', 'worker'] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

/** DOMMON_SMTP_TLS: how the SMTP relay's connection is secured (src/net/smtp.ts applies it). */
export const SMTP_TLS_POLICIES = ['require', 'verify-if-offered', 'insecure'] as const;
export type SmtpTlsPolicy = (typeof SMTP_TLS_POLICIES)[number];

/**
 * Base URLs of the channels that talk to one fixed provider API (tests and proxies point them at
 * another host). Keyed by channel kind; channels whose receiver URL the user gives in full
 * (webhook, slack, teams, discord, googlechat, mattermost) or whose server is in its config
 * (matrix homeserver) have none.
 */
export const CHANNEL_URLS = {
  pushover: { env: 'DOMMON_PUSHOVER_URL', default: 'https://api.pushover.net', meaning: 'Pushover API base' },
  telegram: {
    env: 'DOMMON_TELEGRAM_URL',
    default: 'https://api.telegram.org',
    meaning: 'Telegram Bot API base (`{base}/bot<token>/sendMessage`)',
  },
  ntfy: {
    env: 'DOMMON_NTFY_URL',
    default: 'https://ntfy.sh',
    meaning: 'ntfy server for rows without their own `server_url`',
  },
  pagerduty: {
    env: 'DOMMON_PAGERDUTY_URL',
    default: 'https://events.pagerduty.com',
    meaning: 'PagerDuty Events API v2 base (`{base}/v2/enqueue`)',
  },
  opsgenie: {
    env: 'DOMMON_OPSGENIE_URL',
    default: 'https://api.opsgenie.com',
    meaning: 'Opsgenie Alert API base (`{base}/v2/alerts`; `https://api.eu.opsgenie.com` for EU accounts)',
  },
} as const;
export type ChannelUrls = { readonly [K in keyof typeof CHANNEL_URLS]: string };

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  dbPath: string;
  dnsServers: string[];
  /** DOMMON_NAMESERVER_PORT: the port authoritative name servers are asked on (null: 53). */
  nameserverPort: number | null;
  whoisServer: string | null;
  /** DOMMON_WHOIS_SERVERS: TLD (or registry suffix such as uk.com) -> host[:port] of its WHOIS server. */
  whoisServers: Readonly<Record<string, string>>;
  /** DOMMON_IANA_WHOIS (extension): host[:port] asked for the WHOIS referral of TLDs with no other server. */
  ianaWhois: string;
  rdapUrl: string | null;
  smtpUrl: string | null;
  smtpFrom: string;
  smtpTls: SmtpTlsPolicy;
  pushoverUrl: string;
  /** Provider API bases of the channels (CHANNEL_URLS); pushover's is pushoverUrl again. */
  channelUrls: ChannelUrls;
  rateLimit: number;
  /** DOMMON_AUTH_FAILURE_LIMIT: failed authentications per client address and minute before 429 (services/auth-throttle.ts). */
  authFailureLimit: number;
  /**
   * DOMMON_TRUST_PROXY / --trust-proxy: the daemon sits behind a reverse proxy whose X-Forwarded-Proto
   * and X-Forwarded-For (its last entry) are believed; off by default, when both are ignored.
   */
  trustProxy: boolean;
  /** DOMMON_SESSION_IDLE_HOURS and DOMMON_SESSION_MAX_DAYS: when a dashboard session ends unused, and at the latest. */
  session: { idleMs: number; absoluteMs: number };
  /** DOMMON_PASSWORD_COST: scrypt's cost for password hashes, log2 of N (12-20; services/passwords.ts). */
  passwordCost: number;
  maxDomains: number | null;
  maxEndpoints: number | null;
  verifyInterval: number;
  checkInterval: number;
  /** DOMMON_NS_WATCH_INTERVAL: seconds between two looks at one domain's delegation. */
  nsWatchInterval: number;
  notifyInterval: number;
  /** Seconds between exposure scans of one verified, enabled domain. */
  exposureInterval: number;
  resultRetentionDays: number;
  /** DOMMON_HOURLY_RETENTION_DAYS: days of hourly liveness aggregates kept. */
  hourlyRetentionDays: number;
  /** DOMMON_DAILY_RETENTION_DAYS: days of daily liveness aggregates kept. */
  dailyRetentionDays: number;
  /** DOMMON_AUDIT_RETENTION_DAYS: days of audit trail kept (docs/audit.md). */
  auditRetentionDays: number;
  logLevel: LogLevel;
  metricsToken: string | null;
  /** Host names (DOMMON_PUBLIC_HOSTS) a browser may use to reach the daemon's unauthenticated /metrics. */
  publicHosts: string[];
  /** DOMMON_OUTBOUND_DENY / DOMMON_OUTBOUND_ALLOW: addresses no probe, scan, webhook or chat request may reach. */
  outbound: OutboundPolicy;
  /**
   * DOMMON_PUBLIC_URL / --public-url: the address people and jobs reach this daemon at (scheme, host
   * and an optional path, no trailing slash); the URLs it writes about itself (ping URLs) use it. null:
   * the origin of the request that asked for them.
   */
  publicUrl: string | null;
  /**
   * DOMMON_CONFIG / --config (`serve`): a configuration file (docs/configuration-file.md#gitops) the
   * daemon applies at start, on SIGHUP and when it changes; an absolute path. null: none.
   */
  configFile: string | null;
  /** CLI only: a running daemon to talk to instead of the local database (--remote / DOMMON_URL). */
  remoteUrl: string | null;
  remoteToken: string | null;
  /** DOMMON_DATABASE_URL / --database-url: a PostgreSQL database instead of DIR/dommon.db (null: SQLite). */
  database: DatabaseConfig | null;
  /** DOMMON_ROLE / --role, DOMMON_NODE_NAME / --node-name, DOMMON_NODE_REGION / --region: this `serve` process in a cluster. */
  node: NodeConfig;
  /** DOMMON_SECRET_KEY / DOMMON_SECRET_KEY_FILE: the key sealing channel secrets at rest (default DIR/secret.key). */
  secretKey: SecretKeyConfig;
  /** DOMMON_OIDC_ISSUER and the rest: single sign-on with an OpenID Connect provider (null: off; docs/sso.md). */
  oidc: OidcConfig | null;
}

export interface NodeConfig {
  role: NodeRole;
  /** Unique per live node: logs, the `node` label of /metrics and the node list (default HOST-PID). */
  name: string;
  /** This node's vantage point (default `default`). */
  region: string;
}

export interface DatabaseConfig {
  /** postgres:// or postgresql:// URL, as given (it may hold a password: print `redacted` instead). */
  url: string;
  /** The URL with its password replaced by `***`. */
  redacted: string;
  /** DOMMON_DATABASE_POOL_SIZE: connections per process. */
  poolSize: number;
  /** DOMMON_DATABASE_STATEMENT_TIMEOUT: milliseconds a statement may run before the server cancels it. */
  statementTimeoutMs: number;
}

/** Options given as flags (commander camelCase names); they win over the environment. */
type ConfigFlags = Partial<{
  host: string;
  port: string | number;
  dataDir: string;
  logLevel: string;
  remote: string;
  token: string;
  databaseUrl: string;
  role: string;
  nodeName: string;
  region: string;
  trustProxy: boolean | string;
  publicUrl: string;
  config: string;
}>;

export class ConfigError extends Error {}

/** The commands that do not run on PostgreSQL yet say so (backup: use pg_dump; restore, doctor). */
export const postgresNotYet = (command: string): string =>
  `\`dommon ${command}\` works on the SQLite file only in this version; with DOMMON_DATABASE_URL / --database-url use PostgreSQL's own tools (pg_dump, pg_restore, psql)`;

type Env = Record<string, string | undefined>;

function int(name: string, raw: string | undefined, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(name: string, raw: string | boolean | undefined): boolean {
  if (typeof raw === 'boolean') return raw;
  const v = (raw ?? '').trim().toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(v)) return false;
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  throw new ConfigError(`${name} must be true or false (1/0, yes/no, on/off), got "${raw}"`);
}

function optInt(name: string, raw: string | undefined): number | null {
  if (raw === undefined || raw === '' || raw === 'unlimited') return null;
  return int(name, raw, 0, 0);
}

function hostPort(name: string, raw: string): string {
  const v = raw.trim();
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+|[0-9a-fA-F:]+?)(?::(\d{1,5}))?$/.exec(v);
  const port = m?.[2] === undefined ? undefined : Number(m[2]);
  if (!m || (port !== undefined && (port < 1 || port > 65535))) {
    throw new ConfigError(`${name}: "${raw}" is not host or host:port (port 1-65535)`);
  }
  return v;
}

/** A listen address: a host name, IPv4 or IPv6 literal (no port, no spaces). */
function host(name: string, raw: string): string {
  const v = raw.trim();
  if (!/^([A-Za-z0-9.-]+|\[?[0-9a-fA-F:.]+\]?)$/.test(v))
    throw new ConfigError(`${name} must be a host name or IP address, got "${raw}"`);
  return v.replace(/^\[(.*)\]$/, '$1');
}

/** `tld=host[:port],...`: keys are TLDs or registry suffixes, lowercase, no leading dot. */
function whoisServers(raw: string | undefined): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const part of (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const i = part.indexOf('=');
    const key = part.slice(0, i).trim().toLowerCase().replace(/^\./, '');
    if (i <= 0 || !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(key)) {
      throw new ConfigError(`DOMMON_WHOIS_SERVERS: "${part}" is not tld=host[:port]`);
    }
    out[key] = hostPort('DOMMON_WHOIS_SERVERS', part.slice(i + 1));
  }
  return Object.freeze(out);
}

const MAILBOX = /^(?:[^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

function url(name: string, raw: string | undefined, protocols: string[]): string | null {
  if (raw === undefined || raw === '') return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(u.protocol)) throw new ConfigError(`${name} must use ${protocols.join(' or ')}`);
  return raw.replace(/\/+$/, '');
}

/**
 * Where this installation's daemon serves the configuration file's JSON Schema: under DOMMON_PUBLIC_URL,
 * else at its own listening address (a wildcard address as loopback; port 0, a free one picked at start,
 * as the default 8080). What the `# yaml-language-server: $schema=` line of a file that `dommon export`
 * or `dommon import` writes names.
 */
export function configSchemaUrl(c: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  const host = ['', '0.0.0.0', '::'].includes(c.host) ? '127.0.0.1' : c.host.includes(':') ? `[${c.host}]` : c.host;
  const base = c.publicUrl ?? `http://${host}:${c.port || 8080}`;
  return `${base.replace(/\/$/, '')}/api/v1/config/schema.json`;
}

/** An http(s) base URL without credentials, query or fragment; a path is kept (a proxy may serve dommon under one). */
function publicUrl(name: string, raw: string | undefined): string | null {
  const base = url(name, raw, ['http:', 'https:']);
  if (base === null) return null;
  const u = new URL(base);
  if (u.username || u.password || u.search || u.hash || base.includes('?') || base.includes('#'))
    throw new ConfigError(`${name} must be a base URL such as https://dommon.example.com (no user, query or fragment)`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

function outbound(env: Env): OutboundPolicy {
  try {
    return outboundPolicy(env.DOMMON_OUTBOUND_DENY, env.DOMMON_OUTBOUND_ALLOW);
  } catch (err) {
    if (err instanceof OutboundRuleError) throw new ConfigError(err.message);
    throw err;
  }
}

function mailbox(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return 'dommon@localhost';
  if (!MAILBOX.test(raw.trim()))
    throw new ConfigError(`DOMMON_SMTP_FROM must be an e-mail address (or "Name <address>"), got "${raw}"`);
  return raw.trim();
}

/** Credentials in the URL must never travel in clear text: `require`; otherwise `verify-if-offered`. */
export function defaultSmtpTls(smtpUrl: string | null): SmtpTlsPolicy {
  if (!smtpUrl) return 'verify-if-offered';
  const u = new URL(smtpUrl);
  return u.username || u.password ? 'require' : 'verify-if-offered';
}

function smtpTls(raw: string | undefined, smtpUrl: string | null): SmtpTlsPolicy {
  if (raw === undefined || raw.trim() === '') return defaultSmtpTls(smtpUrl);
  const v = raw.trim().toLowerCase();
  if (!(SMTP_TLS_POLICIES as readonly string[]).includes(v))
    throw new ConfigError(`DOMMON_SMTP_TLS must be one of ${SMTP_TLS_POLICIES.join(', ')}, got "${raw}"`);
  return v as SmtpTlsPolicy;
}

/** Query parameters that hold a secret or point at one (node-postgres reads `?password=`, `?sslpassword=`, ...). */
const SECRET_PARAM = /pass|secret|token|key|auth|cred/i;

/** The URL with its password (if any) and the value of every secret-looking query parameter (`password`,
 * `sslpassword`, `passfile`, `sslkey`, ...) replaced by `***`: what logs and output may show. */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    // Masked in the text itself, so the other parameters keep their spelling.
    u.search = u.search.replace(/([?&])([^=&]*)=([^&]*)/g, (all, sep: string, name: string) => {
      let key = name;
      try {
        key = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // a malformed escape: judge the name as written
      }
      return SECRET_PARAM.test(key) ? `${sep}${name}=***` : all;
    });
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

function database(name: string, raw: string | undefined, env: Env): DatabaseConfig | null {
  if (raw === undefined || raw.trim() === '') return null;
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${name} must be a postgres:// or postgresql:// URL`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
    throw new ConfigError(`${name} must be a postgres:// or postgresql:// URL, got ${u.protocol}//...`);
  if (!u.hostname && !u.searchParams.get('host')) throw new ConfigError(`${name} needs a host`);
  return {
    url: raw.trim(),
    redacted: redactUrl(raw.trim()),
    poolSize: int('DOMMON_DATABASE_POOL_SIZE', env.DOMMON_DATABASE_POOL_SIZE, 10, 1, 1000),
    statementTimeoutMs: int('DOMMON_DATABASE_STATEMENT_TIMEOUT', env.DOMMON_DATABASE_STATEMENT_TIMEOUT, 30_000, 0),
  };
}

/** A node name or region: letters, digits and `.` `_` `-` `:` (a Prometheus label value and a log field as it is). */
const NODE_WORD = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

function nodeConfig(flags: ConfigFlags, env: Env): NodeConfig {
  const pick = (flag: string | undefined, flagName: string, envName: string) =>
    flag !== undefined ? { name: flagName, raw: flag } : { name: envName, raw: env[envName] };
  const role = pick(flags.role, '--role', 'DOMMON_ROLE');
  const roleValue = (role.raw ?? '').trim().toLowerCase() || 'all';
  if (!(NODE_ROLES as readonly string[]).includes(roleValue))
    throw new ConfigError(`${role.name} must be one of ${NODE_ROLES.join(', ')}, got "${role.raw}"`);
  const word = (w: { name: string; raw: string | undefined }, def: string) => {
    const v = (w.raw ?? '').trim() || def;
    if (!NODE_WORD.test(v))
      throw new ConfigError(
        `${w.name} must be 1-100 letters, digits, ".", "_", "-" or ":" (starting with a letter or digit), got "${w.raw}"`,
      );
    return v;
  };
  // The host's first label keeps the default short; the pid tells two nodes on one host apart.
  const host =
    os
      .hostname()
      .split('.')[0]!
      .replace(/[^A-Za-z0-9._:-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '') || 'node';
  return {
    role: roleValue as NodeRole,
    name: word(pick(flags.nodeName, '--node-name', 'DOMMON_NODE_NAME'), `${host.slice(0, 80)}-${process.pid}`),
    region: word(pick(flags.region, '--region', 'DOMMON_NODE_REGION'), 'default'),
  };
}

function secretKey(env: Env, dataDir: string): SecretKeyConfig {
  const out = secretKeyConfig(env, dataDir);
  if (typeof out === 'string') throw new ConfigError(out);
  return out;
}

export function loadConfig(flags: ConfigFlags = {}, env: Env = process.env): Readonly<Config> {
  const dataDir = path.resolve(flags.dataDir ?? env.DOMMON_DATA_DIR ?? './.dommon');
  const logLevel = (flags.logLevel ?? env.DOMMON_LOG_LEVEL ?? 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`DOMMON_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const whois = env.DOMMON_WHOIS_SERVER;
  const smtpUrl = url('DOMMON_SMTP_URL', env.DOMMON_SMTP_URL, ['smtp:', 'smtps:']);
  const channelUrls = Object.freeze(
    Object.fromEntries(
      Object.entries(CHANNEL_URLS).map(([k, v]) => [k, url(v.env, env[v.env], ['http:', 'https:']) ?? v.default]),
    ),
  ) as ChannelUrls;
  const base = publicUrl(
    flags.publicUrl !== undefined ? '--public-url' : 'DOMMON_PUBLIC_URL',
    flags.publicUrl ?? env.DOMMON_PUBLIC_URL,
  );
  const config: Config = {
    host: host(flags.host !== undefined ? '--host' : 'DOMMON_HOST', flags.host ?? env.DOMMON_HOST ?? '127.0.0.1'),
    port: int(
      flags.port !== undefined ? '--port' : 'DOMMON_PORT',
      flags.port !== undefined ? String(flags.port) : env.DOMMON_PORT,
      8080,
      0,
      65535,
    ),
    dataDir,
    dbPath: path.join(dataDir, 'dommon.db'),
    dnsServers: (env.DOMMON_DNS_SERVERS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => hostPort('DOMMON_DNS_SERVERS', s)),
    nameserverPort: env.DOMMON_NAMESERVER_PORT
      ? int('DOMMON_NAMESERVER_PORT', env.DOMMON_NAMESERVER_PORT, 53, 1, 65535)
      : null,
    whoisServer: whois ? hostPort('DOMMON_WHOIS_SERVER', whois) : null,
    whoisServers: whoisServers(env.DOMMON_WHOIS_SERVERS),
    ianaWhois: env.DOMMON_IANA_WHOIS ? hostPort('DOMMON_IANA_WHOIS', env.DOMMON_IANA_WHOIS) : 'whois.iana.org:43',
    rdapUrl: url('DOMMON_RDAP_URL', env.DOMMON_RDAP_URL, ['http:', 'https:']),
    smtpUrl,
    smtpFrom: mailbox(env.DOMMON_SMTP_FROM),
    smtpTls: smtpTls(env.DOMMON_SMTP_TLS, smtpUrl),
    pushoverUrl: channelUrls.pushover,
    channelUrls,
    rateLimit: int('DOMMON_RATE_LIMIT', env.DOMMON_RATE_LIMIT, 100, 1),
    authFailureLimit: int('DOMMON_AUTH_FAILURE_LIMIT', env.DOMMON_AUTH_FAILURE_LIMIT, 20, 1),
    trustProxy: bool(
      flags.trustProxy !== undefined ? '--trust-proxy' : 'DOMMON_TRUST_PROXY',
      flags.trustProxy ?? env.DOMMON_TRUST_PROXY,
    ),
    session: Object.freeze({
      idleMs: int('DOMMON_SESSION_IDLE_HOURS', env.DOMMON_SESSION_IDLE_HOURS, 12, 1, 24 * 366) * 3_600_000,
      absoluteMs: int('DOMMON_SESSION_MAX_DAYS', env.DOMMON_SESSION_MAX_DAYS, 7, 1, 366) * 86_400_000,
    }),
    passwordCost: int('DOMMON_PASSWORD_COST', env.DOMMON_PASSWORD_COST, 17, 12, 20),
    maxDomains: optInt('DOMMON_MAX_DOMAINS', env.DOMMON_MAX_DOMAINS),
    maxEndpoints: optInt('DOMMON_MAX_ENDPOINTS', env.DOMMON_MAX_ENDPOINTS),
    verifyInterval: int('DOMMON_VERIFY_INTERVAL', env.DOMMON_VERIFY_INTERVAL, 300, 1),
    checkInterval: int('DOMMON_CHECK_INTERVAL', env.DOMMON_CHECK_INTERVAL, 21600, 1),
    nsWatchInterval: int('DOMMON_NS_WATCH_INTERVAL', env.DOMMON_NS_WATCH_INTERVAL, 300, 60),
    notifyInterval: int('DOMMON_NOTIFY_INTERVAL', env.DOMMON_NOTIFY_INTERVAL, 5, 1),
    exposureInterval: int('DOMMON_EXPOSURE_INTERVAL', env.DOMMON_EXPOSURE_INTERVAL, 86400, 60),
    resultRetentionDays: int('DOMMON_RESULT_RETENTION_DAYS', env.DOMMON_RESULT_RETENTION_DAYS, 7, 1),
    hourlyRetentionDays: int('DOMMON_HOURLY_RETENTION_DAYS', env.DOMMON_HOURLY_RETENTION_DAYS, 90, 2),
    dailyRetentionDays: int('DOMMON_DAILY_RETENTION_DAYS', env.DOMMON_DAILY_RETENTION_DAYS, 400, 31),
    auditRetentionDays: int('DOMMON_AUDIT_RETENTION_DAYS', env.DOMMON_AUDIT_RETENTION_DAYS, 365, 1),
    logLevel: logLevel as LogLevel,
    metricsToken: env.DOMMON_METRICS_TOKEN || null,
    outbound: outbound(env),
    publicHosts: (env.DOMMON_PUBLIC_HOSTS ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase().replace(/\.$/, ''))
      .filter(Boolean),
    publicUrl: base,
    configFile: (flags.config ?? env.DOMMON_CONFIG) ? path.resolve((flags.config ?? env.DOMMON_CONFIG)!) : null,
    remoteUrl: url('--remote / DOMMON_URL', flags.remote ?? env.DOMMON_URL, ['http:', 'https:']),
    remoteToken: flags.token ?? env.DOMMON_TOKEN ?? null,
    database: database(
      flags.databaseUrl !== undefined ? '--database-url' : 'DOMMON_DATABASE_URL',
      flags.databaseUrl ?? env.DOMMON_DATABASE_URL,
      env,
    ),
    node: Object.freeze(nodeConfig(flags, env)),
    secretKey: secretKey(env, dataDir),
    oidc: oidcConfig(env, base, (m) => new ConfigError(m)),
  };
  return Object.freeze(config);
}
