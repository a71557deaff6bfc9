// The team's events, newest first (extension): what the monitors recorded and the channels fan out.
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { listBody } from '../shape.js';
import type { EventFilter } from '../../domain/types.js';
import { page, team } from './common.js';

export function eventRoutes(router: ApiRouter, { services: s, validator: v }: ApiDeps, secure: Koa.Middleware[]): void {
  router.get('/api/v1/events', ...secure, async (ctx) => {
    const q = v.query<EventFilter & { limit?: number; offset?: number }>('event-list', ctx.query);
    const f: EventFilter = {
      category: q.category,
      event_type: q.event_type,
      severity: q.severity,
      domain_id: q.domain_id?.toLowerCase(),
      endpoint_id: q.endpoint_id?.toLowerCase(),
      since: q.since,
    };
    ctx.body = listBody('events', await s.events.list(team(ctx), f, page(q)), (e) => e);
  });
}
