// Maintenance windows: one-off (start, end) or recurring (a cron expression in an IANA time zone and a
// duration), covering chosen endpoints, the endpoints of chosen domains, or of a portfolio's domains.
// While a window covers an endpoint its checks go on but raise no alert, and its state reads
// `maintenance` (docs/maintenance-windows.md).
import { Cron } from 'croner';

export interface MaintenanceWindow {
  id: string;
  team_id: string;
  name: string;
  /** One-off: both set. Recurring: optional bounds of the recurrence. */
  starts_at: string | null;
  ends_at: string | null;
  /** Recurring: five or six fields (croner's syntax, the same as Vixie cron's with seconds optional). */
  cron: string | null;
  duration_minutes: number | null;
  /** IANA zone name the cron expression is read in. */
  timezone: string;
  endpoint_ids: string[];
  domain_ids: string[];
  portfolio_ids: string[];
  is_enabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface Span {
  start: number;
  end: number;
}

/** Whether `tz` names a time zone this runtime knows (Intl's list, plus `UTC`). */
export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A cron expression's parse error (null: valid); read in `tz`. */
export function cronError(expr: string, tz: string): string | null {
  try {
    new Cron(expr, { timezone: tz, paused: true });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

const cronOf = (w: Pick<MaintenanceWindow, 'cron' | 'timezone'>) =>
  new Cron(w.cron!, { timezone: w.timezone, paused: true });

const ms = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

/**
 * The occurrence of `w` that holds `at` (epoch ms), or null. A recurring window's occurrence starts at
 * each time the cron expression names in its zone (so it follows that zone's daylight-saving changes)
 * and lasts `duration_minutes`; bounds, when set, clip the recurrence.
 */
export function activeSpan(w: MaintenanceWindow, at: number): Span | null {
  if (!w.is_enabled) return null;
  const from = ms(w.starts_at);
  const to = ms(w.ends_at);
  if (w.cron === null) return from !== null && to !== null && from <= at && at < to ? { start: from, end: to } : null;
  if ((from !== null && at < from) || (to !== null && at >= to)) return null;
  const dur = (w.duration_minutes ?? 0) * 60_000;
  // The latest start in (at - duration, at]: the first one after at - duration, if it is not past at.
  const next = cronOf(w).nextRun(new Date(at - dur));
  if (!next || next.getTime() > at) return null;
  return { start: next.getTime(), end: next.getTime() + dur };
}

/** The next occurrence starting after `at` (null: none, a one-off window past its start). */
export function nextSpan(w: MaintenanceWindow, at: number): Span | null {
  if (!w.is_enabled) return null;
  const from = ms(w.starts_at);
  const to = ms(w.ends_at);
  if (w.cron === null) return from !== null && to !== null && from > at ? { start: from, end: to } : null;
  const next = cronOf(w).nextRun(new Date(Math.max(at, (from ?? at) - 1)));
  if (!next || (to !== null && next.getTime() >= to)) return null;
  const start = next.getTime();
  return { start, end: start + (w.duration_minutes ?? 0) * 60_000 };
}

/** What a window is checked against: an endpoint, its domain and that domain's portfolio. */
export interface Covered {
  endpoint_id: string;
  domain_id: string;
  portfolio_id: string | null;
}

/** Whether `w` names the domain or its portfolio: it covers the domain as a whole (its delegation). */
export const coversDomain = (w: MaintenanceWindow, d: Omit<Covered, 'endpoint_id'>): boolean =>
  w.domain_ids.includes(d.domain_id) || (d.portfolio_id !== null && w.portfolio_ids.includes(d.portfolio_id));

/** Whether `w` names the endpoint, its domain, or its domain's portfolio. */
export const covers = (w: MaintenanceWindow, t: Covered): boolean =>
  w.endpoint_ids.includes(t.endpoint_id) || coversDomain(w, t);

/** Most occurrences of one window spansIn() lists (a window every minute for a week is 10,080). */
const MAX_SPANS = 20_000;

/**
 * The occurrences of `w` that overlap [from, to) (epoch ms), clipped to it, merged where they touch:
 * what an uptime that leaves windows out subtracts.
 */
export function spansIn(w: MaintenanceWindow, from: number, to: number): Span[] {
  if (!w.is_enabled || to <= from) return [];
  const lo = ms(w.starts_at);
  const hi = ms(w.ends_at);
  if (w.cron === null) {
    if (lo === null || hi === null) return [];
    const s = Math.max(lo, from);
    const e = Math.min(hi, to);
    return s < e ? [{ start: s, end: e }] : [];
  }
  const dur = (w.duration_minutes ?? 0) * 60_000;
  const cron = cronOf(w);
  const out: Span[] = [];
  let cursor = new Date(Math.max(from - dur, (lo ?? from - dur) - 1));
  while (out.length < MAX_SPANS) {
    const next = cron.nextRun(cursor);
    if (!next || next.getTime() >= to || (hi !== null && next.getTime() >= hi)) break;
    const s = Math.max(next.getTime(), from);
    const e = Math.min(next.getTime() + dur, to);
    const last = out.at(-1);
    if (last && s <= last.end) last.end = Math.max(last.end, e);
    else if (s < e) out.push({ start: s, end: e });
    cursor = next;
  }
  return out;
}

/** Several windows' spans as one sorted list without overlaps. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
