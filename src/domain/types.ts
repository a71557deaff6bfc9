// Domain types as services see them (never rows); the store maps rows to these.
import type { EndpointSettings, EndpointType, Health } from './endpoint.js';
import type { PushCheck } from './push.js';
import type { Role } from './roles.js';

/** The endpoint type names: one per plug-in of src/probes/registry.ts (see EndpointTypeNames). */
export type { EndpointType } from './endpoint.js';

export interface Team {
  id: string;
  name: string;
  created_at: string;
}

export interface User {
  id: string;
  team_id: string;
  email: string;
  created_at: string;
  /** The member's role in the team (docs/accounts.md). */
  role: Role;
}

export interface ApiToken {
  id: string;
  team_id: string;
  user_id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** The token may only read: every write it sends is refused (403 READ_ONLY_TOKEN). */
  read_only: boolean;
  /** An operator token (`token create --operator`): it may read node details (GET /api/v1/nodes). */
  operator: boolean;
  /** The token's own role (null: its member's role, whatever that is at the time). */
  role: Role | null;
  /** When the token stops being accepted (null: never). */
  expires_at: string | null;
}

/** A person who signs in with an e-mail and a password (docs/accounts.md). */
export interface Account {
  id: string;
  /** Case-folded; one account per address. */
  email: string;
  created_at: string;
  /** A disabled account signs nobody in, and its sessions stop at once. */
  disabled: boolean;
}

/** What a one-time link is for (docs/accounts.md#one-time-links). */
export type LinkPurpose = 'setup' | 'sign-in' | 'invitation' | 'reset';

/** A one-time link as stored: what it is bound to, never its secret. */
export interface OneTimeLink {
  id: string;
  purpose: LinkPurpose;
  email: string | null;
  account_id: string | null;
  team_id: string | null;
  user_id: string | null;
  role: Role | null;
  created_by: string | null;
  /** Epoch milliseconds. */
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A passkey (WebAuthn credential) an account signs in with (docs/accounts.md#passkeys). */
export interface Passkey {
  id: string;
  account_id: string;
  /** The credential's id as the authenticator gave it, base64url. */
  credential_id: string;
  name: string;
  /** usb, nfc, ble, internal, hybrid, ...: how the browser reaches the authenticator. */
  transports: string[];
  /** The authenticator's signature counter as last seen (0: it keeps none). */
  sign_count: number;
  created_at: string;
  last_used_at: string | null;
}

/** One team an account belongs to (its users row there). */
export interface Membership {
  user_id: string;
  team_id: string;
  team_name: string;
}

/** What an authenticated request knows about its caller. */
export interface Principal {
  token_id: string;
  token_name: string;
  team_id: string;
  team_name: string;
  user_id: string;
  user_email: string;
  /** A read-only token: writes are refused. */
  read_only: boolean;
  /** An operator token: node details are shown (absent: not one). */
  operator?: boolean;
  /** What the caller may do in the team: min(member role, token role), viewer for a read-only token. */
  role: Role;
  /** When the credential's token stops being accepted (absent or null: never). */
  expires_at?: string | null;
  /** A session made by a password sign-in: the person's account (absent for a token and its sessions). */
  account_id?: string;
}

export interface Portfolio {
  id: string;
  team_id: string;
  name: string;
  description: string | null;
  domain_count: number;
  created_at: string;
  updated_at: string;
}

export interface Domain {
  id: string;
  team_id: string;
  domain: string;
  portfolio_id: string | null;
  notes: string | null;
  is_verified: boolean;
  verified_at: string | null;
  verification_token: string;
  health_score: number | null;
  health_grade: string | null;
  exposure_monitoring_enabled: boolean;
  /** Manual expiry override for TLDs nobody can query (extension). */
  expiry_override: string | null;
  dkim_selectors: string[];
  overall_status: string | null;
  /** From the latest registration lookup (RDAP/WHOIS); null until one succeeded. */
  registrar: string | null;
  registry_expiry_date: string | null;
  nameservers: string[];
  registration_checked_at: string | null;
  /** unknown | ok | error | unsupported, with the reason of the last failed lookup. */
  registration_state: string;
  registration_reason: string | null;
  registration_source: string | null;
  created_at: string;
  updated_at: string;
}

export interface Endpoint {
  id: string;
  team_id: string;
  domain_id: string;
  domain: string;
  name: string;
  endpoint_type: EndpointType;
  subdomain: string | null;
  path: string | null;
  port: number | null;
  is_enabled: boolean;
  timeout_seconds: number;
  notes: string | null;
  /** Its type's own fields (`record_type`, `count`, ...), each set; empty for a type without any. */
  settings: EndpointSettings;
  created_at: string;
  updated_at: string;
}

/** The methods an HTTP check may send. */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Credentials an HTTP check sends: HTTP basic (`username` and a password) or a bearer token. */
export interface LivenessAuth {
  type: 'basic' | 'bearer';
  /** Basic only. */
  username: string | null;
  /**
   * The password or token and the origin (scheme, host, port) it was given for, sealed like the
   * channel secrets (store/sealing.ts); opened only by the probe, never shown.
   */
  sealed: string;
}

export interface LivenessConfig {
  id: string;
  team_id: string;
  endpoint_id: string;
  is_enabled: boolean;
  timeout_seconds: number;
  expected_status_code: number;
  interval_seconds: number;
  failure_threshold: number;
  /**
   * Vantage points: checked once per interval from each of these regions (nodes' DOMMON_NODE_REGION);
   * empty: by any one node.
   */
  regions: string[];
  /** Down only when this many of `regions` see it down (1 without regions). */
  confirm_from: number;
  /** The request an HTTP check sends (GET, no headers, no body, redirects not followed by default). */
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | null;
  follow_redirects: boolean;
  /** Gatus-style conditions (domain/conditions.ts); empty: `[STATUS] == expected_status_code`. */
  conditions: string[];
  auth: LivenessAuth | null;
  /** Internal integer key of its results and aggregates. */
  seq: number;
  created_at: string;
  updated_at: string;
}

/**
 * A liveness configuration's own settings: what the API answers for it and a configuration file
 * writes for it, in this order (credentials aside: each shows them its own way, never the secret).
 */
export const LIVENESS_SETTINGS = [
  'is_enabled',
  'timeout_seconds',
  'expected_status_code',
  'interval_seconds',
  'failure_threshold',
  'regions',
  'confirm_from',
  'method',
  'headers',
  'body',
  'follow_redirects',
  'conditions',
] as const satisfies readonly (keyof LivenessConfig)[];

/** The LIVENESS_SETTINGS of a configuration. */
export function livenessSettings(c: LivenessConfig): Pick<LivenessConfig, (typeof LIVENESS_SETTINGS)[number]> {
  return Object.fromEntries(LIVENESS_SETTINGS.map((k) => [k, c[k]])) as Pick<
    LivenessConfig,
    (typeof LIVENESS_SETTINGS)[number]
  >;
}

/** A create's answer: the endpoint and, when the request carried one, its inline liveness configuration. */
export type CreatedEndpoint = Endpoint & { liveness?: LivenessConfig; push?: PushCheck };

export interface Page {
  limit: number;
  offset: number;
}

export interface PageOf<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

/** An endpoint with what detail views show: certificate state and liveness switch. */
export interface EndpointDetail {
  endpoint: Endpoint;
  ssl_status: string;
  ssl_expiry_date: string | null;
  ssl_issuer: string | null;
  ssl_subject: string | null;
  ssl_checked_at: string | null;
  liveness_enabled: boolean;
  liveness_id: string | null;
}

export interface BulkFailure {
  index: number;
  input: unknown;
  error: string;
  code: string | undefined;
}

export interface BulkResult<T> {
  created: T[];
  failed: BulkFailure[];
}

/**
 * The check_schedule kinds every domain has a row of: registration and DNS-security refreshes, and
 * the nameserver watch (its delegation at the parent zone's servers).
 */
export const DOMAIN_REFRESH_KINDS = ['registration', 'security', 'nameservers'] as const;
export type DomainRefreshKind = (typeof DOMAIN_REFRESH_KINDS)[number];
/** Rows of check_schedule that only lease a domain's run to one node (verification, exposure scans). */
export const DOMAIN_LEASE_KINDS = ['verify', 'exposure'] as const;

/** Where a registration or certificate stands against its expiry date (renewal lists). */
export type RenewalStatus = 'active' | 'expired' | 'expiring_soon';

/** What an endpoint list is filtered by. */
export interface EndpointFilter {
  domain_id?: string;
  endpoint_type?: EndpointType;
  is_enabled?: boolean;
}

/** The latest TLS inspection as detail views show it. */
export interface CertificateSummary {
  ssl_status: string;
  not_after: string | null;
  issuer: string | null;
  subject: string | null;
  checked_at: string | null;
}

/** What the endpoint status list is filtered by. */
export interface StatusFilter {
  domain_id?: string;
  health?: Health;
}

/** What a domain list is filtered by. */
export interface DomainFilter {
  domain?: string;
  portfolio_id?: string;
  ids?: string[];
}

/** What a portfolio list is filtered by. */
export interface PortfolioFilter {
  name?: string;
}

/** An event to record (the outbox: written in the transaction of the change that causes it). */
export interface NewEvent {
  team_id: string;
  event_type: string;
  severity: string;
  category?: string | null;
  domain_id?: string | null;
  endpoint_id?: string | null;
  message: string;
  details?: Record<string, unknown>;
  /** Same key, same team: recorded once (e.g. one alert per expiry window). */
  dedupe_key?: string | null;
  /** The maintenance window covering it: recorded, never notified. */
  maintenance_window_id?: string | null;
}

/** What the event list is filtered by. */
export interface EventFilter {
  category?: string;
  event_type?: string;
  severity?: string;
  domain_id?: string;
  endpoint_id?: string;
  /** ISO timestamp: events created at or after it. */
  since?: string;
}

/** A recorded event as the event list shows it. */
export interface EventRow {
  id: string;
  event_type: string;
  category: string | null;
  severity: string;
  message: string;
  domain_id: string | null;
  endpoint_id: string | null;
  created_at: string;
  details: Record<string, unknown>;
}

/** A node's row in the node list (its latest heartbeat). */
export interface NodeRecord {
  name: string;
  role: string;
  region: string;
  version: string;
  host: string;
  pid: number;
  started_at: string;
  last_heartbeat: string;
  work_claimed: number;
  /** Of work_claimed: the regional runs (of its region's runs of configurations checked from several). */
  work_regional?: number;
  checks_total: number;
  checks_per_minute: number;
  /** The jobs this node runs alone (retention, digests, ...). */
  singletons: string[];
}

/** What a liveness configuration list is filtered by. */
export interface LivenessFilter {
  endpoint_id?: string;
  domain_id?: string;
  is_enabled?: boolean;
}
