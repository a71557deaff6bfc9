// Injectable clock: every rule that depends on "now" takes one, so tests never sleep to reach a date.
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}

/** YYYY-MM-DD of a date in UTC. */
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;
/** Whole days from `now` until `date` (YYYY-MM-DD or ISO); negative once passed. */
export function daysUntil(date: string, now: Date): number {
  const target = Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date);
  const today = Date.parse(`${isoDate(now)}T00:00:00Z`);
  return Math.floor((target - today) / DAY_MS);
}
