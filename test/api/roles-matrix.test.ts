// Roles, enforced on every route (docs/accounts.md). The matrix is generated from the running app's
// router: each route is looked up in the role table (openapi/operations.ts `role`, src/api/roles.ts),
// so a route added without a declared role fails here, and each is called by an owner, an editor, a
// viewer, an owner's token scoped to editor, a read-only token and another team's owner. A caller
// whose role allows the route gets its handler's answer (never 401/403, never a 500); one whose role
// does not gets 403 FORBIDDEN_ROLE (READ_ONLY_TOKEN for a read-only token's writes, as the spec says);
// another team gets 404 for every path naming one of this team's resources.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { CSRF_HEADER } from '../../src/web/session.js';
import { ROUTE_ROLES } from '../../src/api/roles.js';
import { OPERATIONS } from '../../src/api/openapi/operations.js';
import { roleAllows, type Role } from '../../src/domain/roles.js';

// Several hundred requests: allow for a machine shared with other jobs (tap's default is 30 s per file).
t.setTimeout(240_000);

const PUBLIC = new Set(
  OPERATIONS.filter((op) => op.auth === false).flatMap((op) =>
    [op.path, ...(op.alias ? [op.alias] : [])].map((p) => `${op.method.toUpperCase()} ${p}`),
  ),
);

t.test('every route answers each role what it allows and nothing else', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const access = s.app.services.access;
  const owner = client(s.url, await s.token('alpha', 'owner@example.com'));
  await access.addUser('alpha', 'editor@example.com', 'editor');
  await access.addUser('alpha', 'viewer@example.com', 'viewer');
  const tokenOf = async (user: string, o: { role?: Role; readOnly?: boolean } = {}) =>
    (await access.createToken({ team: 'alpha', user, ...o })).token;
  // A token scoped above its member's role: made while the member was an owner, who is now an editor.
  await access.addUser('alpha', 'demoted@example.com', 'owner');
  const demotedOwnerToken = await tokenOf('demoted@example.com', { role: 'owner' });
  await access.setRole('alpha', 'demoted@example.com', 'editor');
  const callers: { name: string; role: Role | 'other-team'; token: string; readOnly?: boolean }[] = [
    { name: 'owner', role: 'owner', token: await tokenOf('owner@example.com') },
    { name: 'editor', role: 'editor', token: await tokenOf('editor@example.com') },
    { name: 'viewer', role: 'viewer', token: await tokenOf('viewer@example.com') },
    { name: "owner's editor token", role: 'editor', token: await tokenOf('owner@example.com', { role: 'editor' }) },
    { name: "editor's owner token", role: 'editor', token: demotedOwnerToken },
    {
      name: 'read-only owner token',
      role: 'viewer',
      readOnly: true,
      token: await tokenOf('owner@example.com', { readOnly: true }),
    },
    { name: "another team's owner", role: 'other-team', token: await s.token('beta', 'boss@example.com') },
  ];

  const p = (await owner.post('/api/v1/portfolios', { name: 'alpha-p' })).body;
  const d = (await owner.post('/api/v1/domains', { domain: 'alpha.example', portfolio_id: p.id })).body;
  const e = (await owner.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const l = (await owner.post('/api/v1/liveness', { endpoint_id: e.id })).body;
  const sp = (await owner.post('/api/v1/status-pages', { portfolio_id: p.id, slug: 'alpha-status', title: 'Alpha' }))
    .body;
  const mw = (
    await owner.post('/api/v1/maintenance-windows', {
      name: 'later',
      starts_at: new Date(Date.now() + 3_600_000).toISOString(),
      ends_at: new Date(Date.now() + 7_200_000).toISOString(),
      endpoint_ids: [e.id],
    })
  ).body;
  for (const x of [p, d, e, l, sp, mw]) t.type(x.id, 'string', 'fixture made');
  // This team's resources by path parameter; the rest (scans, findings, ...) are unknown ids (404 when allowed).
  const REAL: Record<string, string> = {
    portfolioId: p.id,
    domainId: d.id,
    endpointId: e.id,
    livenessId: l.id,
    statusPageId: sp.id,
    windowId: mw.id,
  };

  const routes: { method: string; path: string; need: Role }[] = [];
  const undeclared: string[] = [];
  for (const layer of s.app.router.stack)
    for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
      const key = `${method} ${String(layer.path)}`;
      const need = ROUTE_ROLES.get(key);
      if (need) routes.push({ method, path: String(layer.path), need });
      else if (!PUBLIC.has(key)) undeclared.push(key);
    }
  t.same(undeclared, [], 'every authenticated route has a role in the table');
  t.equal(routes.length, ROUTE_ROLES.size, 'and every role in the table is a route');
  t.ok(routes.some((r) => r.need === 'owner') && routes.some((r) => r.need === 'editor'), 'all three roles used');

  for (const route of routes) {
    for (const c of callers) {
      const role = c.role;
      const other = role === 'other-team';
      // A DELETE by this team names an unknown id, so an allowed one removes nothing the matrix still needs.
      const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      const ids = params.filter((n) => n !== 'type');
      const path = route.path.replace(/:(\w+)/g, (_, n: string) =>
        n === 'type' ? 'webhook' : route.method === 'DELETE' && !other ? randomUUID() : (REAL[n] ?? randomUUID()),
      );
      // A body the handler refuses (an unknown field), so an allowed write answers 400 and changes nothing.
      const body = route.method === 'GET' ? undefined : { matrix_unknown_field: true };
      const r = await client(s.url, c.token)[route.method.toLowerCase() as 'get'](path, body);
      const what = `${route.method} ${route.path} as ${c.name} (needs ${route.need})`;
      // The role check's codes; a handler may answer a 403 of its own (DOMAIN_NOT_VERIFIED).
      const refused = r.status === 401 || ['FORBIDDEN_ROLE', 'READ_ONLY_TOKEN'].includes(r.body?.code);
      if (other) {
        // A body is validated before its ids are looked up: the 400 says nothing of this team either.
        if (ids.length) t.ok(r.status === 404 || (body && r.status === 400), `${what}: ${r.status}`);
        else t.ok(r.status < 500 && !refused, `${what}: ${r.status}`);
        continue;
      }
      const write = route.method !== 'GET' && route.path !== '/api/v1/auth';
      if (c.readOnly && write) {
        t.equal(r.status, 403, what);
        t.equal(r.body?.code, 'READ_ONLY_TOKEN', what);
      } else if (roleAllows(role as Role, route.need)) {
        t.ok(r.status < 500 && !refused, `${what}: ${r.status} ${r.body?.code ?? ''}`);
        // A read of this team's own resources answers them (an https endpoint has no pings: a push endpoint's).
        if (route.method === 'GET' && ids.every((n) => n in REAL) && !route.path.endsWith('/pings'))
          t.ok(r.status < 400, `${what}: ${r.status}`);
      } else {
        t.equal(r.status, 403, what);
        t.equal(r.body?.code, 'FORBIDDEN_ROLE', what);
        t.match(r.body?.error, new RegExp(`needs the ${route.need} role`), what);
        t.equal(r.body?.path, path, what);
      }
    }
  }

  // Nothing the refused or probing calls sent changed this team's resources.
  t.equal((await owner.get(`/api/v1/domains/${d.id}`)).body.notes, null);
  t.equal((await owner.get(`/api/v1/endpoints/${e.id}`)).body.name, 'web');
  t.equal((await owner.get('/api/v1/status-pages')).body.total, 1);
});

t.test("a dashboard session has its member's role, and a role change applies at once", async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const access = s.app.services.access;
  // The team's owner, so that ed may be demoted again once promoted (a team keeps an owner).
  await access.addUser('gamma', 'boss@example.com', 'owner');
  await access.addUser('gamma', 'ed@example.com', 'editor');
  const { token } = await access.createToken({ team: 'gamma', user: 'ed@example.com' });
  const signIn = await request(s.url, 'POST', '/ui/session', { body: { token }, unchecked: true });
  t.equal(signIn.status, 201);
  t.equal(signIn.body.role, 'editor', 'the session answer names the role');
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const headers = { cookie, [CSRF_HEADER]: signIn.body.csrf_token as string };
  const write = (method: string, path: string, body: unknown) =>
    request(s.url, method, path, { body, headers, unchecked: true });

  t.equal((await write('POST', '/api/v1/domains', { domain: 'gamma.example' })).status, 201, 'an editor adds a domain');
  const channel = await write('PUT', '/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: 'http://127.0.0.1:9/hook' },
  });
  t.equal(channel.status, 403, "the channels are the owner's");
  t.equal(channel.body.code, 'FORBIDDEN_ROLE');

  // Promoted: the same session (and token) may now; demoted to viewer: no write at all.
  await access.setRole('gamma', 'ed@example.com', 'owner');
  const again = await write('PUT', '/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: 'http://127.0.0.1:9/hook' },
  });
  t.equal(again.status, 200, 'an owner sets a channel');
  await access.setRole('gamma', 'ed@example.com', 'viewer');
  const viewer = await write('POST', '/api/v1/domains', { domain: 'second.example' });
  t.equal(viewer.status, 403);
  t.equal(viewer.body.code, 'FORBIDDEN_ROLE');
  const api = client(s.url, token);
  t.equal(
    (await api.post('/api/v1/domains', { domain: 'third.example' })).body.code,
    'FORBIDDEN_ROLE',
    'its token too',
  );
  t.equal((await api.get('/api/v1/domains')).body.total, 1, 'a viewer still reads');
  t.equal((await request(s.url, 'GET', '/ui/session', { headers, unchecked: true })).body.role, 'viewer');
});
