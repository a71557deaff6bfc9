// Notification vocabulary shared by services and the channel plug-ins: the message a channel renders
// (one event or a digest), one attempt's outcome, severity order, and which events open or close an
// incident. The channel kinds are the registry's keys (src/channels/index.ts).

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;

/** True when `sev` is at least `min` (unknown severities count as `info`). */
function severityAtLeast(sev: string, min: string): boolean {
  const rank = (s: string) => Math.max(0, (SEVERITIES as readonly string[]).indexOf(s));
  return rank(sev) >= rank(min);
}

/**
 * Event types only digests list: a resolved exposure finding is good news, noted in the next digest
 * instead of paging anyone (the `exposure` event of a new or re-opened finding is the alert).
 */
const DIGEST_ONLY_EVENTS: readonly string[] = ['exposure_resolved'];

/**
 * Whether an instant row alerts on an event: never on digest-only types; exposure findings from the
 * row's `min_severity` up; every other event always (min_severity is about exposure alerts only).
 */
export function instantAlert(e: { event_type: string; severity: string }, minSeverity: string): boolean {
  if (DIGEST_ONLY_EVENTS.includes(e.event_type)) return false;
  return e.event_type !== 'exposure' || severityAtLeast(e.severity, minSeverity);
}

/** Event categories that end an incident an earlier event of the same target opened (liveness down -> recovered). */
const RECOVERY_CATEGORIES: readonly string[] = ['endpoint_recovered'];

export function isRecovery(e: { category: string | null }): boolean {
  return e.category !== null && RECOVERY_CATEGORIES.includes(e.category);
}

/**
 * The key of the incident an event belongs to, the same for the event that opens it and the one that
 * ends it: liveness by endpoint (down and recovered share it); other events by type, category and
 * target. Incident channels (PagerDuty dedup_key, Opsgenie alias) trigger and resolve with it.
 */
export function incidentKey(e: {
  event_id: string;
  event_type: string;
  category: string | null;
  endpoint_id: string | null;
  domain_id: string | null;
}): string {
  const target = e.endpoint_id ?? e.domain_id ?? e.event_id;
  return e.event_type === 'liveness'
    ? `dommon/liveness/${target}`
    : `dommon/${e.event_type}/${e.category ?? '-'}/${target}`;
}

/** One event as every channel sees it; the field names are the spec's webhook payload. */
export interface OutgoingEvent {
  event_id: string;
  event_type: string;
  severity: string;
  category: string | null;
  team: string;
  user: string;
  domain_id: string | null;
  domain: string | null;
  endpoint_id: string | null;
  endpoint_name: string | null;
  details: Record<string, unknown>;
  message: string;
  timestamp: string;
  /** E-mail subject of a test send. */
  subject?: string;
}

export interface DigestGroup {
  /** Portfolio name; null for domains outside any portfolio. */
  portfolio: string | null;
  items: OutgoingEvent[];
}

export interface OutgoingDigest {
  kind: 'digest';
  digest_id: string;
  team: string;
  user: string;
  from: string;
  to: string;
  groups: DigestGroup[];
}

export type Outgoing = ({ kind: 'event' } & OutgoingEvent) | OutgoingDigest;

/** The result of one delivery attempt; channels return it instead of throwing. */
export interface SendOutcome {
  ok: boolean;
  /** HTTP status (or SMTP reply code) when the peer answered. */
  status: number | null;
  /** Retried when true (5xx, 408, 429, network errors, timeouts). */
  transient: boolean;
  /** Retry-After of a 429/503, in seconds. */
  retryAfterSeconds?: number | null;
  error: string | null;
}

export function digestItemCount(d: OutgoingDigest): number {
  return d.groups.reduce((n, g) => n + g.items.length, 0);
}

/** What a delivery asks for beyond its event: a test send's subject and user, a digest's period and events. */
export interface DeliveryRequest {
  subject?: string | null;
  user_id?: string;
  digest?: { from: string; to: string; event_ids: string[] };
}

/** One message to one recipient (an outbox entry), with its lease and the outcome of its attempts. */
export interface Delivery {
  id: string;
  team_id: string;
  event_id: string | null;
  setting_id: string | null;
  channel: string;
  recipient: string | null;
  is_test: boolean;
  request: DeliveryRequest;
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  /** Grows with every claim: the fencing token of the current lease. */
  lease_token: number;
  message_preview: string | null;
  error_message: string | null;
  metadata: Record<string, unknown> | null;
  created_at: string;
  sent_at: string | null;
}

/** One notification setting of a user (a channel, instant or digest), with what delivery needs to know of its user and team. */
export interface NotificationSetting {
  id: string;
  team_id: string;
  user_id: string;
  user_email: string;
  notification_type: string;
  delivery_class: 'instant' | 'digest';
  is_enabled: boolean;
  frequency_days: number | null;
  notification_time: string | null;
  config: Record<string, unknown>;
  min_severity: string;
  last_digest_at: string | null;
  created_at: string;
  updated_at: string;
  /** The team's IANA time zone (digests are sent at local notification_time). */
  team_timezone: string;
  /** Set when the stored config could not be unsealed (wrong or missing key): why; `config` is then `{}`. */
  unreadable?: string;
}
