// Maintenance windows (/api/v1/maintenance-windows): the team's CRUD; docs/maintenance-windows.md.
import type Koa from 'koa';
import type { ApiDeps, ApiRouter } from '../context.js';
import { deleteBody, listBody } from '../shape.js';
import { created, page, pathId, team } from './common.js';
import type { MaintenanceWindow } from '../../domain/maintenance.js';
import type { MaintenanceWindowInput } from '../../services/maintenance-windows.js';

export function maintenanceWindowRoutes(router: ApiRouter, deps: ApiDeps, secure: Koa.Middleware[]): void {
  const { services: s, validator: v } = deps;
  const base = '/api/v1/maintenance-windows';
  const json = (w: MaintenanceWindow) => {
    const { team_id: _team, ...rest } = w;
    const { active, span } = s.maintenanceWindows.occurrence(w);
    return {
      ...rest,
      active,
      current_or_next: span
        ? { starts_at: new Date(span.start).toISOString(), ends_at: new Date(span.end).toISOString() }
        : null,
    };
  };
  router.get(base, ...secure, async (ctx) => {
    const q = v.query<{ limit?: number; offset?: number }>('maintenance-window-list', ctx.query);
    const r = await s.maintenanceWindows.list(team(ctx), page(q));
    const managed = await s.managed.of(
      'maintenance_window',
      r.items.map((w) => w.id),
    );
    ctx.body = listBody('maintenance_windows', r, (w) => ({ ...json(w), ...managed(w.id) }));
  });
  router.post(base, ...secure, async (ctx) => {
    const body = v.body<MaintenanceWindowInput>('maintenance-window-create', ctx.request.body);
    created(ctx, json(await s.maintenanceWindows.create(team(ctx), body)));
  });
  router.get(`${base}/:windowId`, ...secure, async (ctx) => {
    const w = await s.maintenanceWindows.get(team(ctx), pathId(ctx, 'windowId', 'Maintenance window'));
    ctx.body = { ...json(w), ...(await s.managed.of('maintenance_window', [w.id]))(w.id) };
  });
  router.put(`${base}/:windowId`, ...secure, async (ctx) => {
    const id = pathId(ctx, 'windowId', 'Maintenance window');
    const body = v.body<Partial<MaintenanceWindowInput>>('maintenance-window-update', ctx.request.body);
    ctx.body = json(await s.maintenanceWindows.update(team(ctx), id, body));
  });
  router.delete(`${base}/:windowId`, ...secure, async (ctx) => {
    const w = await s.maintenanceWindows.remove(team(ctx), pathId(ctx, 'windowId', 'Maintenance window'));
    ctx.body = deleteBody('maintenance_window', 'Maintenance window', json(w));
  });
}
