// Pure rules of public status pages (docs/status-pages.md): the 90 daily uptime bars, incidents
// paired from down/recovery events, and the page's overall status. No ids go in or out of here
// except as opaque keys the caller maps to public names.
import { dayString, round2, uptimePercent } from './liveness.js';

/** Seconds a public page's data is reused before the next read (also its Cache-Control max-age). */
export const STATUS_PAGE_CACHE_SECONDS = 10;
/** Days of bars (and of incidents) a page shows. */
export const STATUS_PAGE_DAYS = 90;
/** Incidents a page lists at most (newest first). */
export const STATUS_PAGE_INCIDENTS = 50;

/** `maintenance`: a maintenance window covers the endpoint now. */
export type PublicStatus = 'up' | 'down' | 'unknown' | 'maintenance';
type OverallStatus = 'operational' | 'partial_outage' | 'major_outage' | 'unknown' | 'maintenance';

export interface UptimeDay {
  date: string;
  uptime: number | null;
}

/** The last `STATUS_PAGE_DAYS` UTC days up to `today` (a day number), oldest first, from daily sums. */
export function uptimeDays(
  today: number,
  rows: readonly { bucket: number; total: number; ok: number }[],
): { days: UptimeDay[]; uptime: number | null } {
  const byDay = new Map(rows.map((r) => [r.bucket, r]));
  const days: UptimeDay[] = [];
  let total = 0;
  let ok = 0;
  for (let d = today - STATUS_PAGE_DAYS + 1; d <= today; d++) {
    const r = byDay.get(d);
    if (r) {
      total += r.total;
      ok += r.ok;
    }
    days.push({ date: dayString(d), uptime: uptimePercent(r) });
  }
  return { days, uptime: total ? round2((ok / total) * 100) : null };
}

interface Transition {
  /** The caller's key of the endpoint (mapped to its public name afterwards). */
  key: string;
  kind: 'down' | 'recovery';
  at: string;
}

interface Incident {
  key: string;
  started_at: string | null;
  resolved_at: string | null;
  duration_seconds: number | null;
}

/**
 * Down periods from an endpoint's transitions (any order): a down opens one, the next recovery closes
 * it. A recovery with nothing open started before the window (`started_at` null); a down still open
 * lasts (`resolved_at` null). Newest first (by start, an open-ended start counting as oldest).
 */
export function pairIncidents(events: readonly Transition[], limit = STATUS_PAGE_INCIDENTS): Incident[] {
  const sorted = [...events].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const open = new Map<string, string>();
  const out: Incident[] = [];
  const span = (a: string, b: string) => Math.max(0, Math.round((Date.parse(b) - Date.parse(a)) / 1000));
  for (const e of sorted) {
    const started = open.get(e.key);
    if (e.kind === 'down') {
      if (started === undefined) open.set(e.key, e.at);
      continue;
    }
    open.delete(e.key);
    out.push({
      key: e.key,
      started_at: started ?? null,
      resolved_at: e.at,
      duration_seconds: started === undefined ? null : span(started, e.at),
    });
  }
  for (const [key, at] of open) out.push({ key, started_at: at, resolved_at: null, duration_seconds: null });
  const start = (i: Incident) => i.started_at ?? '';
  const end = (i: Incident) => i.resolved_at ?? '\uffff';
  out.sort((a, b) => (start(b) !== start(a) ? (start(b) > start(a) ? 1 : -1) : end(b) > end(a) ? 1 : -1));
  return out.slice(0, limit);
}

/** operational when every endpoint with a known status is up, major_outage when all are down. */
export function overallStatus(statuses: readonly PublicStatus[]): OverallStatus {
  const known = statuses.filter((s) => s !== 'unknown');
  if (!known.length) return 'unknown';
  const down = known.filter((s) => s === 'down').length;
  if (!down) return known.includes('maintenance') ? 'maintenance' : 'operational';
  return down === known.length ? 'major_outage' : 'partial_outage';
}

/**
 * What the public page calls the endpoint at `index` (0-based, page order): its display name, else
 * "Service N". The endpoint's own name is internal (a host, a port, a team's shorthand) and is never
 * the default on a public page.
 */
export function publicEndpointName(displayName: string | null, index: number): string {
  return displayName ?? `Service ${index + 1}`;
}

/** One endpoint a status page shows, in its order. */
export interface StatusPageEndpoint {
  endpoint_id: string;
  display_name: string | null;
  /** The endpoint's own name (owner side only; the public page shows publicEndpointName()). */
  name: string;
}

/** A status page as its owner manages it. */
export interface StatusPage {
  id: string;
  team_id: string;
  portfolio_id: string;
  slug: string;
  title: string;
  description: string | null;
  show_certificates: boolean;
  enabled: boolean;
  endpoints: StatusPageEndpoint[];
  created_at: string;
  updated_at: string;
}
