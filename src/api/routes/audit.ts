// The team's audit trail (docs/audit.md): who changed what, newest first, filtered and paged by a
// cursor; owners only (its `role` in the table of operations); `format=jsonl` (or `Accept:
// application/x-ndjson`) streams every matching entry as JSON lines.
import { Readable } from 'node:stream';
import type Koa from 'koa';
import type { AuditEntry, AuditFilter } from '../../domain/audit.js';
import type { ApiDeps, ApiRouter } from '../context.js';
import { team } from './common.js';

const MAX_LIMIT = 500;

async function* lines(entries: AsyncIterable<AuditEntry>): AsyncGenerator<string> {
  for await (const e of entries) yield `${JSON.stringify(e)}\n`;
}

export function auditRoutes(router: ApiRouter, { services: s, validator: v }: ApiDeps, secure: Koa.Middleware[]): void {
  router.get('/api/v1/audit', ...secure, async (ctx) => {
    const q = v.query<AuditFilter & { limit?: number; cursor?: string; format?: 'json' | 'jsonl' }>(
      'audit-list',
      ctx.query,
    );
    const f: AuditFilter = {
      since: q.since,
      until: q.until,
      actor: q.actor,
      object_kind: q.object_kind,
      object_id: q.object_id,
      action: q.action,
    };
    if (q.format === 'jsonl' || (q.format === undefined && /application\/x-ndjson/i.test(ctx.get('accept')))) {
      // The first page is read before the answer starts, so a bad filter is still a 400.
      const entries = s.audit.each(team(ctx), f);
      const first = await entries.next();
      ctx.type = 'application/x-ndjson';
      ctx.body = Readable.from(
        lines(
          (async function* () {
            if (!first.done) yield first.value;
            yield* entries;
          })(),
        ),
      );
      return;
    }
    const r = await s.audit.list(team(ctx), f, { cursor: q.cursor, limit: Math.min(q.limit ?? 50, MAX_LIMIT) });
    ctx.body = { data: r.items, next_cursor: r.next };
  });
}
