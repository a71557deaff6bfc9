// Single sign-on with OpenID Connect (docs/sso.md) against a real provider on loopback
// (oidc-provider): the whole redirect dance over HTTP, PKCE, state and nonce checked by the app; the
// claims map to teams and roles (an e-mail domain, a group), the first sign-in makes the account and
// membership, roles follow the claims at each sign-in; a wrong state and a person mapped to nothing
// are refused with a page saying so, and no session.
import t from 'tap';
import { request, startApp, type TestApp } from '../support/app.js';
import { CLIENT_ID, CLIENT_SECRET, ssoSignIn, startOidcProvider, type Person } from '../support/oidc.js';
import { freePort } from '../support/targets.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';

const people: Record<string, Person> = {
  alice: { email: 'Alice@Example.com', email_verified: true },
  bob: { email: 'bob@contractor.org', email_verified: true, groups: ['staff', 'dommon-admins'] },
  carol: { email: 'carol@elsewhere.net', email_verified: true, groups: ['staff'] },
  dave: { email: 'dave@example.com', email_verified: false },
  erin: { email: 'erin@solo.net', email_verified: true, groups: ['solo-admins'] },
};

const TEAMS = [
  { email_domain: 'example.com', team: 'ops', role: 'viewer' },
  { group: 'dommon-admins', team: 'ops', role: 'owner' },
  { group: 'dommon-admins', team: 'infra', role: 'editor' },
  { group: 'solo-admins', team: 'solo', role: 'owner' },
  { group: 'solo-staff', team: 'solo', role: 'viewer' },
  { group: 'infra-staff', team: 'infra', role: 'viewer' },
  { group: 'lone-admins', team: 'lone', role: 'owner' },
];

const port = await freePort();
const appUrl = `http://127.0.0.1:${port}`;
const idp = await startOidcProvider(`${appUrl}/ui/oidc/callback`, people);
t.teardown(() => idp.close());
const ssoEnv = {
  DOMMON_PUBLIC_URL: appUrl,
  DOMMON_OIDC_ISSUER: idp.issuer,
  DOMMON_OIDC_CLIENT_ID: CLIENT_ID,
  DOMMON_OIDC_CLIENT_SECRET: CLIENT_SECRET,
  DOMMON_OIDC_NAME: 'Test IdP',
  DOMMON_OIDC_SCOPES: 'openid email groups',
  DOMMON_OIDC_TEAMS: JSON.stringify(TEAMS),
};
const s: TestApp = await startApp(ssoEnv, { port });
t.teardown(() => s.close());

/** The dashboard's view of a session cookie (`name=value`). */
const session = async (cookie: string) =>
  (await request(s.url, 'GET', '/ui/session', { headers: { cookie }, unchecked: true })).body as Record<
    string,
    unknown
  >;

function sessionCookie(h: Headers): string | undefined {
  return h
    .getSetCookie()
    .find((c) => c.startsWith('dommon_session=') && !/max-age=0/i.test(c))
    ?.split(';')[0];
}

t.test('the sign-in page offers the provider', async (t) => {
  const r = await request(s.url, 'GET', '/ui/session', { unchecked: true });
  t.same(r.body, { signed_in: false, sso: { name: 'Test IdP', url: '/ui/oidc/start' } });
});

t.test('start sends the browser to the provider with PKCE, state and nonce', async (t) => {
  const r = await fetch(`${s.url}/ui/oidc/start`, { redirect: 'manual' });
  t.equal(r.status, 302);
  const to = new URL(r.headers.get('location')!);
  t.equal(to.origin, idp.issuer);
  t.equal(to.searchParams.get('client_id'), CLIENT_ID);
  t.equal(to.searchParams.get('redirect_uri'), `${appUrl}/ui/oidc/callback`);
  t.equal(to.searchParams.get('response_type'), 'code');
  t.equal(to.searchParams.get('code_challenge_method'), 'S256');
  t.match(to.searchParams.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/);
  t.match(to.searchParams.get('state'), /^[A-Za-z0-9_-]{20,}$/);
  t.match(to.searchParams.get('nonce'), /^[A-Za-z0-9_-]{20,}$/);
  t.same(to.searchParams.get('scope')!.split(' ').sort(), ['email', 'groups', 'openid']);
  const pending = r.headers.getSetCookie().find((c) => c.startsWith('dommon_oidc='));
  t.match(pending, /HttpOnly/i);
  t.match(pending, /SameSite=Lax/i);
});

t.test('an e-mail domain signs in: account and membership made, the same session a password makes', async (t) => {
  const { callback, jar } = await ssoSignIn(s.url, 'alice');
  t.equal(callback.status, 302, callback.text);
  t.equal(callback.location, '/');
  const cookie = sessionCookie(callback.headers);
  t.ok(cookie, 'a session cookie is set');
  t.notOk(jar.get(s.url, 'dommon_oidc'), 'the pending sign-in cookie is dropped');
  t.match(
    callback.headers.getSetCookie().find((c) => c.startsWith('dommon_session=')),
    /HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/i,
  );
  const me = await session(cookie!);
  t.match(me, {
    signed_in: true,
    team: 'ops',
    user: 'alice@example.com',
    role: 'viewer',
    account: true,
    teams: ['ops'],
  });
  t.match(me.csrf_token, /^[A-Za-z0-9_-]{43}$/);
  const account = await s.app.store.accounts.byEmail('alice@example.com');
  t.ok(account, 'the account is made, its e-mail case-folded');
  t.equal(account!.password_hash, null, 'with no password');

  // The session reads the team's API like any other: a viewer reads, and may not write.
  const list = await request(s.url, 'GET', '/api/v1/domains', { headers: { cookie: cookie! }, unchecked: true });
  t.equal(list.status, 200);
  const write = await request(s.url, 'POST', '/api/v1/domains', {
    headers: { cookie: cookie!, 'x-csrf-token': String(me.csrf_token) },
    body: { name: 'example.org' },
    unchecked: true,
  });
  t.equal(write.status, 403);
  t.equal(write.body.code, 'FORBIDDEN_ROLE');

  // A second sign-in finds the same account and membership.
  const again = await ssoSignIn(s.url, 'alice');
  t.equal(again.callback.status, 302);
  const ops = await s.app.store.teams.byName('ops');
  const members = (await s.app.store.users.list(ops!.id)).filter((u) => u.email === 'alice@example.com');
  t.equal(members.length, 1);
});

t.test('a group maps to a role, in each team it names; roles follow the claims at each sign-in', async (t) => {
  const first = await ssoSignIn(s.url, 'bob');
  t.equal(first.callback.status, 302, first.callback.text);
  const me = await session(sessionCookie(first.callback.headers)!);
  // The first team by name: infra (editor); ops too, as owner.
  t.match(me, { signed_in: true, team: 'infra', user: 'bob@contractor.org', role: 'editor', teams: ['infra', 'ops'] });
  const ops = await s.app.store.teams.byName('ops');
  t.equal((await s.app.store.users.byEmail(ops!.id, 'bob@contractor.org'))?.role, 'owner');

  // Out of the admins' group, with an address at example.com: a viewer of ops from the next sign-in.
  people.bob = { email: 'bob@example.com', email_verified: true, groups: ['staff'] };
  t.teardown(() => {
    people.bob = { email: 'bob@contractor.org', email_verified: true, groups: ['staff', 'dommon-admins'] };
  });
  const second = await ssoSignIn(s.url, 'bob');
  t.equal(second.callback.status, 302);
  t.match(await session(sessionCookie(second.callback.headers)!), {
    team: 'ops',
    user: 'bob@example.com',
    role: 'viewer',
  });

  // Back in the group: owner again, and the role change of an existing membership is in the audit trail.
  people.bob = { email: 'bob@example.com', email_verified: true, groups: ['dommon-admins'] };
  const third = await ssoSignIn(s.url, 'bob');
  t.equal(third.callback.status, 302);
  t.equal((await s.app.store.users.byEmail(ops!.id, 'bob@example.com'))?.role, 'owner');
  const audit = await s.app.services.audit.list(ops!.id, { object_kind: 'user' }, { limit: 50 });
  const change = audit.items.find(
    (e) =>
      e.action === 'update' && e.object.name === 'bob@example.com' && (e.after as { role?: string }).role === 'owner',
  );
  t.ok(change, 'the role change is audited');
  t.match(change?.via, { kind: 'session', name: 'single sign-on' });
  t.equal(change?.actor.email, 'bob@example.com');
});

t.test("a team's last owner stays an owner whatever the claims say", async (t) => {
  const first = await ssoSignIn(s.url, 'erin');
  t.equal(first.callback.status, 302);
  const solo = await s.app.store.teams.byName('solo');
  t.equal((await s.app.store.users.byEmail(solo!.id, 'erin@solo.net'))?.role, 'owner');
  people.erin = { email: 'erin@solo.net', email_verified: true, groups: ['solo-staff'] };
  const kept = await ssoSignIn(s.url, 'erin');
  t.equal(kept.callback.status, 302);
  t.equal((await s.app.store.users.byEmail(solo!.id, 'erin@solo.net'))?.role, 'owner', 'the last owner stays');
  // With another owner, the claims apply.
  await s.app.services.access.addUser('solo', 'root@solo.net', 'owner');
  const lowered = await ssoSignIn(s.url, 'erin');
  t.equal(lowered.callback.status, 302);
  t.equal((await s.app.store.users.byEmail(solo!.id, 'erin@solo.net'))?.role, 'viewer');
});

t.test('a membership single sign-on made ends when the claims stop giving its team; others stay', async (t) => {
  const { access, accounts } = s.app.services;
  people.frank = { email: 'frank@else.org', email_verified: true, groups: ['dommon-admins'] };
  // A membership the command line made (the team's owner first): never single sign-on's to remove.
  await access.addUser('cli-team', 'root@else.org');
  const account = await accounts.ensure('frank@else.org');
  await accounts.link((await access.addUser('cli-team', 'frank@else.org', 'viewer')).id, account.id);
  await access.addUser('ops', 'ops-root@else.org', 'owner'); // ops keeps an owner without Frank
  const teams = async () => (await accounts.memberships(account.id)).map((m) => m.team_name);

  t.equal((await ssoSignIn(s.url, 'frank')).callback.status, 302);
  t.same(await teams(), ['cli-team', 'infra', 'ops'], 'the claims made infra and ops');
  const token = (await access.createToken({ team: 'ops', user: 'frank@else.org', name: 'laptop' })).token;
  t.equal((await request(s.url, 'GET', '/api/v1/validate', { token })).status, 200);

  // Out of the admins' group: ops and infra's editor role go, infra as a viewer and lone as its owner come.
  people.frank = { email: 'frank@else.org', email_verified: true, groups: ['infra-staff', 'lone-admins'] };
  const second = await ssoSignIn(s.url, 'frank');
  t.equal(second.callback.status, 302);
  t.same(await teams(), ['cli-team', 'infra', 'lone'], 'ops removed; the command line’s membership stays');
  const infra = (await s.app.store.teams.byName('infra'))!;
  t.equal((await s.app.store.users.byEmail(infra.id, 'frank@else.org'))?.role, 'viewer');
  const refused = await request(s.url, 'GET', '/api/v1/validate', { token, unchecked: true });
  t.equal(refused.status, 401, "the removed membership's token is revoked");
  const ops = (await s.app.store.teams.byName('ops'))!;
  const audit = await s.app.services.audit.list(ops.id, { object_kind: 'user', action: 'delete' }, { limit: 50 });
  const removal = audit.items.find((e) => e.object.name === 'frank@else.org');
  t.ok(removal, 'the removal is audited in its team');
  t.match(removal, {
    actor: { email: 'frank@else.org' },
    via: { kind: 'session', name: 'single sign-on' },
    before: { role: 'owner', revoked_tokens: 1, via: /single sign-on/ },
    after: null,
  });

  // Out of every group: infra goes, lone stays (its last owner), cli-team stays (not single sign-on's).
  people.frank = { email: 'frank@else.org', email_verified: true, groups: ['solo-staff'] };
  t.equal((await ssoSignIn(s.url, 'frank')).callback.status, 302);
  t.same(await teams(), ['cli-team', 'lone', 'solo']);
  const lone = (await s.app.store.teams.byName('lone'))!;
  t.equal((await s.app.store.users.byEmail(lone.id, 'frank@else.org'))?.role, 'owner', "a team's last owner stays");

  // Claims that map to no team at all: refused, and what single sign-on gave goes all the same (solo),
  // as the last owner (lone) and the command line's membership (cli-team) stay.
  people.frank = { email: 'frank@else.org', email_verified: true, groups: [] };
  const none = await ssoSignIn(s.url, 'frank');
  t.equal(none.callback.status, 403);
  t.notOk(sessionCookie(none.callback.headers), 'no session');
  t.same(await teams(), ['cli-team', 'lone'], 'solo removed though the sign-in is refused');
});

t.test('a wrong state is refused with a page, and no session', async (t) => {
  const { callback } = await ssoSignIn(s.url, 'alice', {
    tamper: (u) => {
      u.searchParams.set('state', 'not-the-state-this-browser-was-given');
      return u;
    },
  });
  t.equal(callback.status, 400);
  t.match(callback.headers.get('content-type'), /text\/html/);
  t.match(callback.text, /Sign-in with Test IdP did not complete/);
  t.match(callback.text, /unexpected &quot;state&quot;/, 'the page names the check that failed');
  t.notOk(sessionCookie(callback.headers), 'no session');
});

t.test('a callback this browser did not start is refused', async (t) => {
  const r = await fetch(`${s.url}/ui/oidc/callback?code=abc&state=def`, { redirect: 'manual' });
  t.equal(r.status, 400);
  t.match(await r.text(), /did not start this sign-in/);
  t.notOk(sessionCookie(r.headers));
});

t.test('a person whose claims map to nothing is refused with a clear page', async (t) => {
  const { callback } = await ssoSignIn(s.url, 'carol');
  t.equal(callback.status, 403);
  t.match(callback.text, /No access to this dommon/);
  t.match(callback.text, /carol@elsewhere\.net/);
  t.match(callback.text, /DOMMON_OIDC_TEAMS/);
  t.notOk(sessionCookie(callback.headers), 'no session');
  t.equal(await s.app.store.accounts.byEmail('carol@elsewhere.net'), undefined, 'no account is made');

  // An address the provider has not verified signs nobody in, whatever its domain or groups.
  people.dave = { email: 'dave@example.com', email_verified: false, groups: ['dommon-admins'] };
  const dave = await ssoSignIn(s.url, 'dave');
  t.equal(dave.callback.status, 403);
  t.match(dave.callback.text, /not verified/);
  t.notOk(sessionCookie(dave.callback.headers), 'no session');
  t.equal(await s.app.store.accounts.byEmail('dave@example.com'), undefined, 'no account is made');
});

t.test('a disabled account is refused', async (t) => {
  const a = await s.app.store.accounts.byEmail('alice@example.com');
  await s.app.store.accounts.setDisabled(a!.id, true);
  t.teardown(() => s.app.store.accounts.setDisabled(a!.id, false));
  const { callback } = await ssoSignIn(s.url, 'alice');
  t.equal(callback.status, 403);
  t.notOk(sessionCookie(callback.headers));
});

t.test('without DOMMON_OIDC_ISSUER there is no single sign-on', async (t) => {
  const plain = await startApp();
  t.teardown(() => plain.close());
  t.same((await request(plain.url, 'GET', '/ui/session', { unchecked: true })).body, { signed_in: false });
  const r = await fetch(`${plain.url}/ui/oidc/start`, { redirect: 'manual' });
  t.equal(r.status, 404);
});

t.test('the configuration is checked at start', async (t) => {
  const refused = (env: Record<string, string>, why: RegExp) => {
    let err: unknown;
    try {
      loadConfig({ dataDir: '/tmp/unused' }, { ...ssoEnv, ...env });
    } catch (e) {
      err = e;
    }
    t.ok(err instanceof ConfigError, `refused: ${JSON.stringify(env)}`);
    t.match((err as Error | undefined)?.message, why);
  };
  refused({ DOMMON_PUBLIC_URL: '' }, /DOMMON_PUBLIC_URL .* is required with DOMMON_OIDC_ISSUER/);
  refused({ DOMMON_OIDC_CLIENT_ID: '' }, /DOMMON_OIDC_CLIENT_ID is required/);
  refused({ DOMMON_OIDC_TEAMS: '' }, /DOMMON_OIDC_TEAMS is required/);
  refused({ DOMMON_OIDC_TEAMS: '{"example.com":"ops"}' }, /non-empty JSON list/);
  refused({ DOMMON_OIDC_TEAMS: '[{"group":"a","team":"ops","role":"admin"}]' }, /\[0\]\.role must be one of/);
  refused(
    { DOMMON_OIDC_TEAMS: '[{"group":"a","email_domain":"b.com","team":"ops","role":"owner"}]' },
    /needs one of email_domain or group/,
  );
  refused({ DOMMON_OIDC_ISSUER: 'http://idp.example.com' }, /http:\/\/ only on a loopback address/);
  const ok = loadConfig({ dataDir: '/tmp/unused' }, ssoEnv).oidc!;
  t.equal(ok.redirectUri, `${appUrl}/ui/oidc/callback`);
  t.equal(ok.insecure, true);
  t.same(ok.teams[0], { email_domain: 'example.com', team: 'ops', role: 'viewer' });
});
