// Exposure scanning vocabulary and pure rules: categories, severities and their order, finding identity.
export const EXPOSURE_CATEGORIES = [
  'subdomain_takeover',
  'dangling_dns',
  'open_port',
  'zone_transfer',
  'weak_tls',
  'dns_misconfiguration',
] as const;
export type ExposureCategory = (typeof EXPOSURE_CATEGORIES)[number];

/** Most severe first. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const FINDING_STATUSES = ['open', 'resolved'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];

export const SCAN_STATUSES = ['running', 'completed', 'failed'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];
export type ScanTrigger = 'manual' | 'schedule';

/** 0 for critical .. 4 for info; smaller is worse. */
export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

/** True when `s` is at least as severe as `min`. */
export function atLeast(s: Severity, min: Severity): boolean {
  return severityRank(s) <= severityRank(min);
}

export interface FindingDetails {
  provider: string | null;
  evidence: string;
  remediation: string;
}

/** What a check reports; `key` makes it the same finding across scans (with category and host). */
export interface DetectedFinding {
  category: ExposureCategory;
  severity: Severity;
  host: string;
  key: string;
  title: string;
  details: FindingDetails;
}

export interface ExposureFinding {
  id: string;
  team_id: string;
  domain_id: string;
  scan_id: string | null;
  host: string;
  category: ExposureCategory;
  severity: Severity;
  title: string;
  details: FindingDetails;
  status: FindingStatus;
  first_seen: string;
  last_seen: string;
  resolved_at: string | null;
}

export interface ExposureScan {
  id: string;
  team_id: string;
  domain_id: string;
  domain: string;
  status: ScanStatus;
  trigger: ScanTrigger;
  started_at: string;
  finished_at: string | null;
  findings_count: number;
  error: string | null;
  hosts: string[];
  wildcard: boolean;
  checks: Record<string, string>;
}

export interface ExposureSubdomain {
  id: string;
  domain_id: string;
  name: string;
  created_at: string;
}

export function findingFingerprint(f: Pick<DetectedFinding, 'category' | 'host' | 'key'>): string {
  return `${f.category}|${f.host}|${f.key}`;
}

/** True when `name` is the domain itself or a name under it (the only names a scan may probe). */
export function withinDomain(name: string, domain: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return n === domain || n.endsWith(`.${domain}`);
}

export function findingJson(f: ExposureFinding) {
  return {
    id: f.id,
    domain_id: f.domain_id,
    scan_id: f.scan_id,
    host: f.host,
    category: f.category,
    severity: f.severity,
    title: f.title,
    details: f.details,
    status: f.status,
    first_seen: f.first_seen,
    last_seen: f.last_seen,
    resolved_at: f.resolved_at,
  };
}

export function scanJson(s: ExposureScan) {
  return {
    id: s.id,
    domain_id: s.domain_id,
    domain: s.domain,
    status: s.status,
    trigger: s.trigger,
    started_at: s.started_at,
    finished_at: s.finished_at,
    findings_count: s.findings_count,
    hosts_scanned: s.hosts.length,
    hosts: s.hosts,
    wildcard_dns: s.wildcard,
    checks: s.checks,
    error: s.error,
  };
}

/** What the finding list is filtered by. */
export interface FindingFilter {
  domain_id?: string;
  severity?: Severity;
  category?: ExposureCategory;
  status?: FindingStatus;
}

/** A stored finding as a scan's reconciliation sees it: which one it is (its fingerprint) and whether it is open. */
export interface KnownFinding {
  id: string;
  fingerprint: string;
  category: string;
  status: string;
  /** The host it was found on. */
  target: string | null;
  title: string;
}
