// The team's recorded events (down/recovery, certificate, registration and exposure alerts), read
// back for the dashboard and API clients: the same rows the notification channels fan out.
import type { Page, PageOf } from '../domain/types.js';
import type { EventFilter, EventRow } from '../store/repos/events.js';
import type { ServiceDeps } from './deps.js';

export function createEventService({ store }: Pick<ServiceDeps, 'store'>) {
  return {
    /** Newest first; `since` may be any date-time or date, compared as an ISO instant. */
    list(teamId: string, f: EventFilter, page: Page): Promise<PageOf<EventRow>> {
      const since = f.since === undefined ? undefined : new Date(f.since).toISOString();
      return store.events.page(teamId, { ...f, since }, page);
    },
  };
}
