import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { Invalid } from '../../domain/errors.js';
import type { SettingInput, TestInput } from '../../services/notifications.js';
import { created, page, pathId } from './common.js';

export function notificationRoutes(
  router: ApiRouter,
  { services: s, validator: v }: ApiDeps,
  secure: Koa.Middleware[],
): void {
  const base = '/api/v1/notifications';
  router.get(`${base}/settings`, ...secure, async (ctx) => {
    const rows = await s.notifications.listSettings(ctx.state.principal);
    const managed = await s.managed.of(
      'channel',
      rows.map((r) => r.id),
    );
    ctx.body = rows.map((r) => ({ ...r, ...managed(r.id) }));
  });
  router.put(`${base}/settings/:type`, ...secure, async (ctx) => {
    const type = (ctx as unknown as { params: { type: string } }).params.type;
    const body = v.body<SettingInput>('notification-setting', ctx.request.body);
    if (body.config && v.schemas[`channels/${type}`]) {
      const err = v.check(`channels/${type}`, body.config);
      if (err) throw new Invalid(`config.${err.replace(/^item: /, '')}`);
    }
    ctx.body = await s.notifications.upsertSetting(ctx.state.principal, type, body);
  });
  router.post(`${base}/test`, ...secure, async (ctx) => {
    created(
      ctx,
      await s.notifications.testSend(ctx.state.principal, v.body<TestInput>('notification-test', ctx.request.body)),
    );
  });
  router.get(`${base}/log`, ...secure, async (ctx) => {
    const q = v.query<{ channel?: string; status?: string; limit?: number; offset?: number }>(
      'notification-log',
      ctx.query,
    );
    const r = await s.notifications.log(ctx.state.principal, { channel: q.channel, status: q.status, ...page(q) });
    ctx.set('X-Total-Count', String(r.total));
    ctx.body = r.items;
  });
  router.get(`${base}/log/:id`, ...secure, async (ctx) => {
    ctx.body = await s.notifications.logEntry(ctx.state.principal, pathId(ctx, 'id', 'Delivery log entry'));
  });
}
