// Row types of every table (Kysely's view of the database). Booleans are 0/1, JSON is text.
import type { ColumnType, Generated } from 'kysely';
type Bool = number;

export interface TeamsTable {
  id: string;
  name: string;
  timezone: string;
  created_at: string;
}
export interface UsersTable {
  id: string;
  team_id: string;
  email: string;
  created_at: string;
  /** owner | editor | viewer (migration 028; docs/accounts.md). */
  role: ColumnType<string, string | undefined, string>;
  /** The person's account (null: a member without password sign-in; migration 032). */
  account_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** `sso`: made by a single sign-on from the provider's claims, which also remove it (migration 035); else null. */
  origin: ColumnType<string | null, string | null | undefined, string | null>;
}
export interface AccountsTable {
  id: string;
  /** Case-folded, unique. */
  email: string;
  /** $scrypt$ln=..,r=..,p=..$salt$hash (services/passwords.ts); null until the person sets one. */
  password_hash: string | null;
  created_at: string;
  disabled: ColumnType<Bool, Bool | undefined, Bool>;
}
/** A one-time link (migration 033; services/links.ts): only the SHA-256 of its secret is kept. */
export interface OneTimeLinksTable {
  id: string;
  token_hash: string;
  /** setup | sign-in | invitation | reset. */
  purpose: string;
  /** Case-folded: the invitee's address (an invitation), else the account's. */
  email: string | null;
  account_id: string | null;
  team_id: string | null;
  /** The membership a sign-in or reset link signs in to. */
  user_id: string | null;
  /** The role an invitation gives. */
  role: string | null;
  /** The member who made it (an invitation, an owner's reset); null when made on the command line. */
  created_by: string | null;
  /** Epoch milliseconds. */
  created_at: number;
  expires_at: number;
  used_at: number | null;
}
export interface ApiTokensTable {
  id: string;
  team_id: string;
  user_id: string;
  name: string;
  prefix: string;
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** 1: the token may only read (docs/security.md). */
  read_only: Bool;
  /** 1: an operator token, which may read node details (GET /api/v1/nodes; migration 021). */
  operator: Bool;
  /** A role of the token's own, no higher than its member's (null: the member's role; migration 028). */
  role: string | null;
  /** When the token stops being accepted (null: never; migration 028). */
  expires_at: string | null;
}
export interface MetaTable {
  key: string;
  value: string;
}
export interface PortfoliosTable {
  id: string;
  team_id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}
export interface DomainsTable {
  id: string;
  team_id: string;
  domain: string;
  portfolio_id: string | null;
  notes: string | null;
  is_verified: Bool;
  verified_at: string | null;
  verification_token: string;
  health_score: number | null;
  health_grade: string | null;
  overall_status: string | null;
  exposure_monitoring_enabled: Bool;
  expiry_override: string | null;
  dkim_selectors: string;
  created_at: string;
  updated_at: string;
}
export interface DomainRegistrationsTable {
  domain_id: string;
  source: string | null;
  state: string;
  reason: string | null;
  registrar: string | null;
  expiry_date: string | null;
  creation_date: string | null;
  updated_date: string | null;
  nameservers: string;
  statuses: string;
  transfer_lock: Bool | null;
  dnssec_signed: Bool | null;
  checked_at: string | null;
  next_check_at: string | null;
}
export interface RegistrationHistoryTable {
  id: string;
  domain_id: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  observed_at: string;
}
export interface DomainSecurityTable {
  domain_id: string;
  spf: string | null;
  dmarc: string | null;
  dkim: string | null;
  caa: string | null;
  dnssec_enabled: Bool | null;
  security_score: number | null;
  details: string;
  recommendations: string;
  checked_at: string | null;
  next_check_at: string | null;
}
export interface DomainDelegationsTable {
  domain_id: string;
  zone: string;
  parent_zone: string | null;
  nameservers: string | null;
  ds: string | null;
  checked_at: string | null;
  changed_at: string | null;
  error: string | null;
  error_at: string | null;
}
export interface EndpointsTable {
  id: string;
  team_id: string;
  domain_id: string;
  name: string;
  endpoint_type: string;
  subdomain: string | null;
  path: string | null;
  port: number | null;
  is_enabled: Bool;
  timeout_seconds: number;
  notes: string | null;
  /** JSON object: the fields of its endpoint type (EndpointSettings); '{}' for a type without any. */
  settings: Generated<string>;
  created_at: string;
  updated_at: string;
}
export interface EndpointCertificatesTable {
  endpoint_id: string;
  ssl_status: string;
  subject: string | null;
  issuer: string | null;
  sans: string;
  not_before: string | null;
  not_after: string | null;
  serial: string | null;
  fingerprint256: string | null;
  protocol: string | null;
  trusted: Bool | null;
  hostname_match: Bool | null;
  error: string | null;
  alerted_window: number | null;
  checked_at: string | null;
  next_check_at: string | null;
  /** JSON: ChainCertificate[] (leaf first); null before migration 012. */
  chain: string | null;
}
export interface CertificateHistoryTable {
  id: string;
  endpoint_id: string;
  fingerprint256: string;
  subject: string | null;
  issuer: string | null;
  not_before: string | null;
  not_after: string | null;
  first_seen: string;
  last_seen: string;
  /** JSON: the chain (ChainCertificate[], leaf first) this certificate was last seen with; null before migration 012. */
  chain: string | null;
}
export interface LivenessConfigsTable {
  id: string;
  seq: number;
  team_id: string;
  endpoint_id: string;
  is_enabled: Bool;
  timeout_seconds: number;
  expected_status_code: number;
  interval_seconds: number;
  failure_threshold: number;
  /** JSON array of region names (migration 015); null: checked by any one node. */
  regions: string | null;
  /** How many of `regions` must see it down before it counts as down. */
  confirm_from: number;
  /** The HTTP request (migration 024): method (default GET), headers as a JSON object (null: none), body. */
  method: ColumnType<string, string | undefined, string>;
  headers: string | null;
  body: string | null;
  /** Default 0. */
  follow_redirects: ColumnType<Bool, Bool | undefined, Bool>;
  /** JSON array of condition expressions; null: none. */
  conditions: string | null;
  /** `basic` or `bearer`; null: no credentials. */
  auth_type: string | null;
  auth_username: string | null;
  /** The secret and its origin, sealed (store/sealing.ts). */
  auth_secret: string | null;
  created_at: string;
  updated_at: string;
}
export interface LivenessResultsTable {
  cfg: number;
  ts: number;
  ok: Bool;
  ms: number;
  status: number | null;
  error: string | null;
  /** The checking node's region; null: `default` (and every result written before migration 015). */
  region: string | null;
  /** JSON: the check type's own numbers (domain/liveness.ts ResultDetail); null: none (migration 029). */
  detail: string | null;
}
/** Per-region daily sums of configurations with regions (migration 015). */
export interface LivenessRegionDailyTable {
  cfg: number;
  region: string;
  bucket: number;
  total: number;
  ok: number;
  sum_ms: number;
}
/** Each region's own view of a configuration with regions; liveness_state holds the combined one (and the alert flag). */
export type LivenessRegionStateTable = Omit<LivenessStateTable, 'alerted_down'> & { region: string };
export interface LivenessAggregateTable {
  cfg: number;
  bucket: number;
  total: number;
  ok: number;
  sum_ms: number;
}
export interface LivenessStateTable {
  config_id: string;
  status: string | null;
  consecutive_failures: number;
  last_check: string | null;
  last_check_successful: Bool | null;
  response_time_ms: number | null;
  status_code: number | null;
  last_error: string | null;
  alerted_down: Bool;
}
export interface NotificationSettingsTable {
  id: string;
  team_id: string;
  user_id: string;
  notification_type: string;
  delivery_class: string;
  is_enabled: Bool;
  frequency_days: number | null;
  notification_time: string | null;
  config: string;
  min_severity: string;
  last_digest_at: string | null;
  created_at: string;
  updated_at: string;
}
export interface EventsTable {
  id: string;
  team_id: string;
  event_type: string;
  severity: string;
  category: string | null;
  domain_id: string | null;
  endpoint_id: string | null;
  message: string;
  details: string;
  dedupe_key: string | null;
  created_at: string;
  fanned_out_at: string | null;
  /** The maintenance window that covered the event's endpoint when it was raised (never fanned out). */
  maintenance_window_id: string | null;
}
export interface DeliveriesTable {
  id: string;
  team_id: string;
  event_id: string | null;
  setting_id: string | null;
  channel: string;
  recipient: string | null;
  is_test: Bool;
  request: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  /** Grows with every claim: the fencing token of the current lease. */
  lease_token: number;
  message_preview: string | null;
  error_message: string | null;
  metadata: string | null;
  created_at: string;
  sent_at: string | null;
}
export interface DeliveryAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  at: string;
  outcome: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
}
export interface ExposureScansTable {
  id: string;
  team_id: string;
  domain_id: string;
  status: string;
  trigger: string;
  started_at: string;
  finished_at: string | null;
  findings_count: number;
  error: string | null;
  hosts: string;
  wildcard: Bool;
  checks: string;
  /** The node that runs the scan (null: started before 014_shared_state). */
  node: string | null;
}
export interface ExposureSubdomainsTable {
  id: string;
  team_id: string;
  domain_id: string;
  name: string;
  created_at: string;
}
export interface ExposureFindingsTable {
  id: string;
  team_id: string;
  domain_id: string;
  scan_id: string | null;
  fingerprint: string;
  category: string;
  severity: string;
  title: string;
  target: string | null;
  details: string;
  remediation: string | null;
  status: string;
  first_seen: string;
  last_seen: string;
  resolved_at: string | null;
}
export interface CheckScheduleTable {
  kind: string;
  target_id: string;
  next_run_at: string;
  last_run_at: string | null;
  last_outcome: string | null;
  lease_until: string | null;
}
export interface StatusPagesTable {
  id: string;
  team_id: string;
  portfolio_id: string;
  slug: string;
  title: string;
  description: string | null;
  show_certificates: Bool;
  is_enabled: Bool;
  created_at: string;
  updated_at: string;
}
export interface StatusPageEndpointsTable {
  status_page_id: string;
  endpoint_id: string;
  position: number;
  display_name: string | null;
}

export interface NodesTable {
  name: string;
  role: string;
  region: string;
  version: string;
  host: string;
  pid: number;
  started_at: string;
  last_heartbeat: string;
  work_claimed: number;
  /** Of work_claimed: the regional runs (of the node's region). */
  work_regional: Generated<number>;
  checks_total: number;
  checks_per_minute: number;
  singletons: string;
}

/** The liveness due-queue (migration 013): epoch ms; `token` is int8 on PostgreSQL (read as a string there). */
export interface LivenessDueTable {
  config_id: string;
  due_at: number | null;
  fresh: number;
  owner: string | null;
  lease_until: number | null;
  token: number | string;
}

/** The due-queue of regional runs: one row per (configuration, region), claimed by that region's nodes. */
export interface LivenessRegionDueTable extends LivenessDueTable {
  region: string;
}

/** A team's API requests claimed by the nodes in one window (PostgreSQL; services/rate-limit.ts). */
export interface RateLimitsTable {
  team_id: string;
  /** Epoch milliseconds of the window's start. */
  window_start: number;
  claimed: number;
}

/** A signed-in browser of the web dashboard (src/services/sessions.ts); the cookie's id is stored hashed. */
/** A passkey (WebAuthn credential) of an account (migration 034; docs/accounts.md#passkeys). */
export interface PasskeysTable {
  id: string;
  account_id: string;
  /** base64url, unique. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter as last seen (0: it keeps none). */
  sign_count: ColumnType<number, number | undefined, number>;
  /** JSON list of transports (usb, nfc, ble, internal, hybrid, ...). */
  transports: string;
  name: string;
  created_at: string;
  last_used_at: ColumnType<string | null, string | null | undefined, string | null>;
}
/** A WebAuthn challenge handed out, good once until expires_at (migration 034). */
export interface WebauthnChallengesTable {
  challenge: string;
  /** register | sign-in */
  purpose: string;
  /** The account adding a passkey (register); null for a sign-in. */
  account_id: string | null;
  /** Epoch milliseconds. */
  expires_at: number;
}
export interface WebSessionsTable {
  id_hash: string;
  /** A session made from an API token (else null). */
  token_id: string | null;
  /** A session made by a password sign-in: the membership (team) it acts in (else null; migration 032). */
  user_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Epoch milliseconds. */
  created_at: number;
  /** Epoch milliseconds of the last use (written at most once a minute). */
  last_seen: number;
  /** Epoch milliseconds of the absolute end. */
  expires_at: number;
}

/** Failed authentications of one client address in one window (services/auth-throttle.ts). */
export interface AuthFailuresTable {
  client: string;
  /** Epoch milliseconds of the window's start. */
  window_start: number;
  failures: number;
}

/** A heartbeat (`push`) endpoint's ping key (store/repos/push.ts); its schedule is in the endpoint's settings. */
export interface PushChecksTable {
  endpoint_id: string;
  team_id: string;
  ping_key: string;
  /** Epoch milliseconds. */
  created_at: number;
}

/** One ping of a push endpoint. */
export interface PushPingsTable {
  id: string;
  endpoint_id: string;
  /** start, success, fail or log. */
  kind: string;
  /** Epoch milliseconds. */
  at: number;
  exit_status: number | null;
  /** From the run's start ping to this finish (ms), when it had one. */
  duration_ms: number | null;
  body: string | null;
  /** The body's size as sent (only its first PING_BODY_LIMIT bytes are kept). */
  body_bytes: number;
}

export interface DB {
  teams: TeamsTable;
  users: UsersTable;
  accounts: AccountsTable;
  one_time_links: OneTimeLinksTable;
  api_tokens: ApiTokensTable;
  meta: MetaTable;
  portfolios: PortfoliosTable;
  domains: DomainsTable;
  domain_registrations: DomainRegistrationsTable;
  registration_history: RegistrationHistoryTable;
  domain_security: DomainSecurityTable;
  domain_delegations: DomainDelegationsTable;
  endpoints: EndpointsTable;
  endpoint_certificates: EndpointCertificatesTable;
  certificate_history: CertificateHistoryTable;
  liveness_configs: LivenessConfigsTable;
  liveness_results: LivenessResultsTable;
  liveness_hourly: LivenessAggregateTable;
  liveness_daily: LivenessAggregateTable;
  liveness_state: LivenessStateTable;
  notification_settings: NotificationSettingsTable;
  events: EventsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  exposure_scans: ExposureScansTable;
  exposure_findings: ExposureFindingsTable;
  exposure_subdomains: ExposureSubdomainsTable;
  check_schedule: CheckScheduleTable;
  status_pages: StatusPagesTable;
  status_page_endpoints: StatusPageEndpointsTable;
  nodes: NodesTable;
  liveness_due: LivenessDueTable;
  liveness_region_due: LivenessRegionDueTable;
  liveness_region_state: LivenessRegionStateTable;
  liveness_region_daily: LivenessRegionDailyTable;
  rate_limits: RateLimitsTable;
  web_sessions: WebSessionsTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  auth_failures: AuthFailuresTable;
  push_checks: PushChecksTable;
  push_pings: PushPingsTable;
  maintenance_windows: MaintenanceWindowsTable;
  audit_log: AuditLogTable;
  config_managed: ConfigManagedTable;
}

/** An object a configuration file manages (migration 031). */
export interface ConfigManagedTable {
  kind: string;
  object_id: string;
  team_id: string;
  /** `config:<file>`. */
  source: string;
  editable: number;
}

export interface MaintenanceWindowsTable {
  id: string;
  team_id: string;
  name: string;
  starts_at: string | null;
  ends_at: string | null;
  cron: string | null;
  duration_minutes: number | null;
  timezone: string;
  /** JSON lists of ids. */
  endpoint_ids: string;
  domain_ids: string;
  portfolio_ids: string;
  is_enabled: number;
  created_at: string;
  updated_at: string;
}

export interface AuditLogTable {
  id: string;
  team_id: string;
  at: string;
  actor_user_id: string | null;
  actor_email: string | null;
  via: string;
  via_id: string | null;
  via_name: string | null;
  action: string;
  object_kind: string;
  object_id: string;
  object_name: string | null;
  /** JSON text (secrets masked), null when there is no such side (a create's before, a delete's after). */
  before: string | null;
  after: string | null;
  request_id: string | null;
}
