// push: a heartbeat. Nothing is dialled: the job calls its ping URL (services/push.ts keeps each ping),
// and this check, run by the liveness scheduler at the next deadline it asked for, reads the last start
// and finish and judges them: down when the last run failed, when a run started and did not finish
// within the grace time, or when no ping came by the expected time plus the grace time (the expected
// time is one period after the last finish, or the next time of the cron schedule after it, in its
// time zone). Before the first ping the expected time counts from the check's creation.
import type { EndpointSettings } from '../domain/endpoint.js';
import type { PushSchedule } from '../domain/push.js';
import type { EndpointPlugin } from './plugin.js';
import { failure } from './types.js';

declare module '../domain/endpoint.js' {
  interface EndpointTypeNames {
    push: true;
  }
}

const YEAR_S = 31_536_000;

// The verdict's module carries the cron parser (croner): it loads with the first push check, so a
// command that only reads the registry (`dommon --help`, `token list`) does not load it.
const heartbeat = () => import('./heartbeat.js');

/** The type's fields (defaults as Healthchecks.io's: a day, an hour's grace), stored in the endpoint's settings. */
const FIELDS = {
  period_seconds: {
    type: 'integer',
    minimum: 1,
    maximum: YEAR_S,
    default: 86_400,
    description: 'a ping is expected this long after the last one (unless `schedule` is set)',
  },
  grace_seconds: {
    type: 'integer',
    minimum: 1,
    maximum: YEAR_S,
    default: 3_600,
    description: 'how long after the expected time a ping may still come, and how long a started run may take',
  },
  schedule: {
    type: ['string', 'null'],
    minLength: 9,
    maxLength: 200,
    default: null,
    description: 'instead of the period: a cron expression (5 fields, or 6 with seconds first), when the job runs',
  },
  tz: {
    type: ['string', 'null'],
    minLength: 1,
    maxLength: 64,
    default: null,
    description: 'the IANA time zone `schedule` is read in (default UTC)',
  },
} as const;

/** A push endpoint's schedule from its settings (a `dommon check` target has none: the defaults). */
function scheduleOf(s: EndpointSettings = {}): PushSchedule {
  const int = (v: unknown, d: number) => (typeof v === 'number' ? v : d);
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  return {
    period_seconds: int(s.period_seconds, FIELDS.period_seconds.default),
    grace_seconds: int(s.grace_seconds, FIELDS.grace_seconds.default),
    schedule: str(s.schedule),
    tz: str(s.tz),
  };
}

/** `push`: judged from the pings the job sent (its ping URL); nothing is dialled, no certificate. */
export const push: EndpointPlugin<'push'> = {
  name: 'push',
  defaultPort: 0,
  url: 'name',
  certificate: 'never',
  extension: true,
  fields: FIELDS,
  docs: {
    liveness:
      'the job pinged its ping URL in time and its last run did not fail (a heartbeat: nothing is dialled, docs/push.md)',
    certificate: 'none',
  },
  upSummary: () => 'heartbeat: the job pinged in time and its last run did not fail',
  liveness: async (e, _c, deps) => {
    const pings = e.id && deps.heartbeat ? await deps.heartbeat(e.id) : undefined;
    if (!pings) return failure('error', 'a push endpoint is judged by its pings, not probed', 0);
    const { judgeHeartbeat } = await heartbeat();
    return judgeHeartbeat({ ...scheduleOf(e.settings), ...pings }, pings.now);
  },
};
