// Who may call what: the role each route needs, read from the one table of operations
// (openapi/operations.ts, `role`), and the middleware that refuses a caller whose role is lower.
// A secured route missing from the table needs `owner` (fail closed); test/api/roles-matrix.test.ts
// fails on any route of the router the table does not name.
import type Koa from 'koa';
import { Forbidden } from '../domain/errors.js';
import { roleAllows, type Role } from '../domain/roles.js';
import type { ApiState } from './context.js';
import { OPERATIONS, requiredRole } from './openapi/operations.js';

/** `METHOD path` (koa-router syntax, upper-case method) -> the role it needs, for every authenticated operation. */
export const ROUTE_ROLES: ReadonlyMap<string, Role> = new Map(
  OPERATIONS.filter((op) => op.auth !== false).flatMap((op) =>
    [op.path, ...(op.alias ? [op.alias] : [])].map((p) => [`${op.method.toUpperCase()} ${p}`, requiredRole(op)]),
  ),
);

/** Refuses (403 FORBIDDEN_ROLE) a caller whose role in the team is below what the matched route needs. */
export function roleMiddleware(): Koa.Middleware<ApiState> {
  return async (ctx, next) => {
    // A HEAD is answered by its GET's handler.
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const route = (ctx as unknown as { routerPath?: string }).routerPath;
    const need = (route !== undefined && ROUTE_ROLES.get(`${method} ${route}`)) || 'owner';
    const { role, team_name } = ctx.state.principal;
    if (!roleAllows(role, need))
      throw new Forbidden(
        `this needs the ${need} role in team "${team_name}"; the credential's role is ${role}`,
        'FORBIDDEN_ROLE',
      );
    await next();
  };
}
