// The parts of the Public API's answers the pages read (see docs/http-api.md and schemas/responses/).

/** Every read of a resource a configuration file can manage says so (docs/configuration-file.md#managed-objects). */
interface ManagedFields {
  managed_by?: 'config' | null;
  editable?: boolean;
}

export interface Domain extends ManagedFields {
  id: string;
  domain: string;
  portfolio_id: string | null;
  notes: string | null;
  is_verified: boolean;
  health_score: number | null;
  health_grade: string | null;
  overall_status: string;
  expiry_date: string | null;
  whois: { registrar: string | null; expiry_date: string | null; nameservers: string[] };
  endpoints?: Endpoint[];
  /** Detail only: each input of the grade, the points it cost, or that it was left out (unknown) and why. */
  health_reasons?: HealthReason[];
}

export interface HealthReason {
  input: string;
  status: 'ok' | 'warning' | 'bad' | 'unknown';
  counted: boolean;
  points_lost: number;
  reason: string;
}

export interface DomainStatus {
  health_score: number | null;
  health_grade: string | null;
  overall_status: string;
  whois: { registrar: string | null; expiry_date: string | null; days_until_expiry: number | null };
  ssl: { status: string; expiry_date: string | null; days_until_expiry: number | null };
}

export interface Security {
  security_score: number | null;
  transfer_lock: boolean | null;
  dnssec_enabled: boolean | null;
  checks: Record<string, string | null>;
  recommendations: (string | { message?: string; title?: string; severity?: string })[];
}

export interface Portfolio extends ManagedFields {
  id: string;
  name: string;
}

export interface Endpoint extends ManagedFields {
  id: string;
  domain_id: string;
  name: string;
  full_url: string;
  endpoint_type: string;
  is_enabled: boolean;
}

export interface EndpointStatus {
  endpoint_id: string;
  endpoint: { id: string; name: string; full_url: string; endpoint_type: string; is_enabled: boolean };
  ssl: { status: string; expiry_date: string | null; days_until_expiry: number | null; issuer: string | null };
  liveness: {
    enabled: boolean;
    status: string;
    uptime_24h: number | null;
    uptime_7d: number | null;
    uptime_30d: number | null;
    avg_response_time_ms: number | null;
    last_check: string | null;
    consecutive_failures: number;
  };
  overall_health: string;
  subject: string | null;
}

export interface Renewal {
  id: string;
  kind: 'domain' | 'certificate';
  name: string;
  domain_id: string;
  endpoint_id: string | null;
  expiry_date: string;
  days_until_expiry: number;
  status: string;
  registrar: string | null;
  issuer: string | null;
}

export interface LogEntry {
  id: string;
  channels: string[];
  status: string;
  message_preview: string | null;
  recipient: string;
  created_at: string;
  sent_at: string | null;
  error_message: string | null;
  is_test: boolean;
}

export interface Liveness extends ManagedFields {
  id: string;
  endpoint_id: string;
  is_enabled: boolean;
  interval_seconds?: number;
  /** Regions it is checked from (empty: any one node). */
  regions?: string[];
  confirm_from?: number;
}

/** One region's own view of a configuration checked from several (GET /api/v1/liveness/:id/status). */
export interface RegionView {
  region: string;
  status: string;
  consecutive_failures: number;
  last_check: string | null;
  response_time_ms: number | null;
  last_error: string | null;
  /** The last failure in words (null while the last check passed). */
  reason: string | null;
}

export interface LivenessResult {
  test_timestamp: string;
  is_successful: boolean;
  response_time_ms: number | null;
}

export interface DailyStat {
  date: string;
  total_tests: number;
  successful_tests: number;
  success_rate: number;
  avg_response_time_ms: number;
}

export interface StatusPage extends ManagedFields {
  id: string;
  portfolio_id: string;
  slug: string;
  url: string;
  title: string;
  description: string | null;
  show_certificates: boolean;
  enabled: boolean;
  endpoints: { endpoint_id: string; display_name: string | null; name: string; public_name?: string }[];
}

export interface MaintenanceWindow extends ManagedFields {
  id: string;
  name: string;
  starts_at: string | null;
  ends_at: string | null;
  cron: string | null;
  duration_minutes: number | null;
  timezone: string;
  endpoint_ids: string[];
  domain_ids: string[];
  portfolio_ids: string[];
  is_enabled: boolean;
  /** An occurrence holds now. */
  active: boolean;
  /** The occurrence holding now, else the next one; null when none is left. */
  current_or_next: { starts_at: string; ends_at: string } | null;
}
