// The audit trail: who changed what, through which door, when, with the object before and after
// (secrets masked). Written by the services in the transaction of the change (services/audit.ts).

/** How a change came in: an API token, a dashboard session, the local command line, or a configuration apply. */
export const AUDIT_VIA = ['token', 'session', 'cli-local', 'config-apply'] as const;
export type AuditVia = (typeof AUDIT_VIA)[number];

/** Who makes the changes of one request or command (set once at the door, read by the services). */
export interface AuditActor {
  /** null: the server's own command line (`dommon token create` run by the operator, no person known). */
  user_id: string | null;
  user_email: string | null;
  via: AuditVia;
  /** The token's id, the session's reference (a hash prefix, never its cookie), or a configuration apply's id. */
  via_id: string | null;
  /** The token's name, when it has one. */
  via_name: string | null;
  request_id: string | null;
}

/** One change, as a service states it. */
export interface AuditChange {
  /** create, update, delete, pause, resume, revoke, refresh, scan, verify, ... */
  action: string;
  /** The kind of object: domain, endpoint, liveness, portfolio, status_page, maintenance_window, channel, token, user, ... */
  kind: string;
  id: string;
  name?: string | null;
  before?: unknown;
  after?: unknown;
}

export interface AuditEntry {
  id: string;
  team_id: string;
  at: string;
  actor: { user_id: string | null; email: string | null };
  via: { kind: AuditVia; id: string | null; name: string | null };
  action: string;
  object: { kind: string; id: string; name: string | null };
  before: unknown;
  after: unknown;
  request_id: string | null;
}

export interface AuditFilter {
  since?: string;
  until?: string;
  /** A user id or an e-mail address. */
  actor?: string;
  object_kind?: string;
  object_id?: string;
  action?: string;
}
