// Pure digest timing: when a digest row is next due, from its frequency and local send time.
const DAY_MS = 86_400_000;

function atTime(dayStartMs: number, hhmmss: string): number {
  const [h, m, s] = hhmmss.split(':').map(Number) as [number, number, number];
  return dayStartMs + ((h * 60 + m) * 60 + s) * 1000;
}

/**
 * Next send instant (epoch ms, UTC; team time zone UTC): the first `notification_time` after the row
 * was created, then every `frequencyDays` days after the previous send, at `notification_time`.
 */
export function nextDigestAt(lastSentIso: string | null, createdIso: string, frequencyDays: number, notificationTime: string): number {
  if (!lastSentIso) {
    const created = Date.parse(createdIso);
    const first = atTime(Math.floor(created / DAY_MS) * DAY_MS, notificationTime);
    return first > created ? first : first + DAY_MS;
  }
  const last = Date.parse(lastSentIso);
  return atTime(Math.floor(last / DAY_MS) * DAY_MS + frequencyDays * DAY_MS, notificationTime);
}
