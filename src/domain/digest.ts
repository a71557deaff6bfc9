// Pure digest timing: when a digest row is next due, from its frequency and its local send time
// in the team's time zone (IANA name; unknown names fall back to UTC).
const DAY_MS = 86_400_000;

interface Ymd {
  y: number;
  m: number;
  d: number;
}

function formatter(tz: string): Intl.DateTimeFormat {
  const opts: Intl.DateTimeFormatOptions = {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  };
  try {
    return new Intl.DateTimeFormat('en-US', { ...opts, timeZone: tz });
  } catch {
    return new Intl.DateTimeFormat('en-US', { ...opts, timeZone: 'UTC' });
  }
}

/** Wall-clock fields of an instant in `tz`. */
function wall(epochMs: number, tz: string): Ymd & { h: number; mi: number; s: number } {
  const parts = Object.fromEntries(
    formatter(tz)
      .formatToParts(new Date(epochMs))
      .map((p) => [p.type, p.value]),
  );
  return {
    y: Number(parts.year),
    m: Number(parts.month),
    d: Number(parts.day),
    h: Number(parts.hour),
    mi: Number(parts.minute),
    s: Number(parts.second),
  };
}

/** Offset of `tz` at an instant, in ms (local wall clock minus UTC). */
function offsetMs(epochMs: number, tz: string): number {
  const w = wall(epochMs, tz);
  return Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s) - Math.floor(epochMs / 1000) * 1000;
}

/** The instant of a local date + `HH:MM:SS` in `tz` (a time skipped by a DST jump moves forward). */
function zonedInstant(date: Ymd, hhmmss: string, tz: string): number {
  const [h, mi, s] = hhmmss.split(':').map(Number) as [number, number, number];
  const guess = Date.UTC(date.y, date.m - 1, date.d, h, mi, s);
  const first = guess - offsetMs(guess, tz);
  const second = guess - offsetMs(first, tz);
  return second;
}

function localDate(epochMs: number, tz: string): Ymd {
  const w = wall(epochMs, tz);
  return { y: w.y, m: w.m, d: w.d };
}

function addDays(date: Ymd, days: number): Ymd {
  const t = new Date(Date.UTC(date.y, date.m - 1, date.d) + days * DAY_MS);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

/**
 * Next send instant (epoch ms): the first `notification_time` (local to `tz`) after the row was
 * created, then `frequencyDays` local days after the day of the previous send, at `notification_time`.
 */
export function nextDigestAt(
  lastSentIso: string | null,
  createdIso: string,
  frequencyDays: number,
  notificationTime: string,
  tz = 'UTC',
): number {
  if (!lastSentIso) {
    const created = Date.parse(createdIso);
    const today = localDate(created, tz);
    const first = zonedInstant(today, notificationTime, tz);
    return first > created ? first : zonedInstant(addDays(today, 1), notificationTime, tz);
  }
  const last = Date.parse(lastSentIso);
  return zonedInstant(addDays(localDate(last, tz), frequencyDays), notificationTime, tz);
}
