// The team's recorded events (down/recovery, certificate, registration and exposure alerts), read
// back for the dashboard and API clients: the same rows the notification channels fan out.
import { Invalid } from '../domain/errors.js';
import type { EventFilter, EventRow, Page, PageOf } from '../domain/types.js';
import type { ServiceDeps } from './deps.js';

export function createEventService({ store }: Pick<ServiceDeps, 'store'>) {
  return {
    /** Newest first; `since` may be any date-time or date, compared as an ISO instant. */
    list(teamId: string, f: EventFilter, page: Page): Promise<PageOf<EventRow>> {
      const since = f.since === undefined ? undefined : instant(f.since, 'since');
      return store.events.page(teamId, { ...f, since }, page);
    },
  };
}

/** A validated date-time or date as an ISO instant; a leap second (`23:59:60`, valid RFC 3339) is the next second. */
export function instant(v: string, field: string): string {
  let ms = Date.parse(v);
  if (Number.isNaN(ms)) ms = Date.parse(v.replace(/(T\d\d:\d\d:)60/i, '$159')) + 1000;
  if (Number.isNaN(ms)) throw new Invalid(`${field}: must be a date-time or a date`);
  return new Date(ms).toISOString();
}
