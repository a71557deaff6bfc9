// The team's members over the API (docs/accounts.md): an owner lists them, changes a role and removes a
// member; the last owner can be neither demoted nor removed (409 LAST_OWNER); a demoted member's token
// and password session have the new role on their next request, a removed member's end at once; another
// team's member is 404; a role the schema does not know is a 400.
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { CSRF_HEADER } from '../../src/web/session.js';

t.setTimeout(120_000);

t.test('members: list, change a role, remove; the last owner stays', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '100000' });
  t.teardown(() => s.close());
  const access = s.app.services.access;
  const bossToken = await s.token('acme', 'boss@example.com');
  const boss = client(s.url, bossToken);
  await access.addUser('acme', 'ed@example.com', 'editor');
  const edToken = (await access.createToken({ team: 'acme', user: 'ed@example.com' })).token;
  const ed = client(s.url, edToken);
  await access.setPassword('acme', 'ed@example.com', 'correct horse battery');
  const signIn = await request(s.url, 'POST', '/ui/session', {
    body: { email: 'ed@example.com', password: 'correct horse battery' },
    headers: { origin: s.url },
    unchecked: true,
  });
  t.equal(signIn.status, 201, signIn.text);
  const session = {
    cookie: signIn.headers.getSetCookie()[0]!.split(';')[0]!,
    [CSRF_HEADER]: signIn.body.csrf_token as string,
  };
  const edSession = (method: string, path: string, body?: unknown) =>
    request(s.url, method, path, { body, headers: session, unchecked: true });
  const otherTeam = client(s.url, await s.token('rival', 'rival@example.com'));

  const list = await boss.get('/api/v1/members');
  t.equal(list.status, 200);
  t.same(
    list.body.members.map((m: any) => [m.email, m.role]),
    [
      ['boss@example.com', 'owner'],
      ['ed@example.com', 'editor'],
    ],
  );
  const bossId = list.body.members[0].id as string;
  const edId = list.body.members[1].id as string;
  t.equal((await ed.get('/api/v1/members')).body.code, 'FORBIDDEN_ROLE', "the members are the owner's");
  t.same(
    (await otherTeam.get('/api/v1/members')).body.members.map((m: any) => m.email),
    ['rival@example.com'],
    'another team lists its own',
  );
  t.equal((await otherTeam.put(`/api/v1/members/${edId}`, { role: 'viewer' })).status, 404, "another team's: 404");
  t.equal((await otherTeam.delete(`/api/v1/members/${edId}`)).status, 404);
  const bad = await boss.put(`/api/v1/members/${edId}`, { role: 'admin' });
  t.equal(bad.status, 400, 'an unknown role');
  t.equal((await boss.put(`/api/v1/members/${edId}`, {})).status, 400, 'no role');

  // The last owner: neither demoted nor removed.
  for (const r of [
    await boss.put(`/api/v1/members/${bossId}`, { role: 'editor' }),
    await boss.delete(`/api/v1/members/${bossId}`),
  ]) {
    t.equal(r.status, 409);
    t.equal(r.body.code, 'LAST_OWNER');
    t.match(r.body.error, /boss@example\.com is the last owner of team "acme"/);
  }
  t.equal((await boss.put(`/api/v1/members/${bossId}`, { role: 'owner' })).status, 200, 'owner to owner is no change');

  // Demoted to viewer: the token and the password session read, but write no more, on their next request.
  t.equal((await edSession('POST', '/api/v1/portfolios', { name: 'before' })).status, 201, 'an editor writes');
  const demote = await boss.put(`/api/v1/members/${edId}`, { role: 'viewer' });
  t.equal(demote.status, 200);
  t.match(demote.body, { id: edId, email: 'ed@example.com', role: 'viewer' });
  t.equal((await ed.post('/api/v1/portfolios', { name: 'x' })).body.code, 'FORBIDDEN_ROLE', 'the token: viewer');
  t.equal((await edSession('POST', '/api/v1/portfolios', { name: 'y' })).body.code, 'FORBIDDEN_ROLE', 'the session');
  t.equal((await edSession('GET', '/api/v1/domains')).status, 200, 'still reads');

  // Promoted to owner, the editor may demote the first owner, who is no longer the last.
  t.equal((await boss.put(`/api/v1/members/${edId}`, { role: 'owner' })).status, 200);
  t.equal((await ed.put(`/api/v1/members/${bossId}`, { role: 'editor' })).body.role, 'editor');
  t.equal((await boss.get('/api/v1/members')).body.code, 'FORBIDDEN_ROLE', 'the demoted owner, at once');
  const last = await ed.delete(`/api/v1/members/${edId}`);
  t.equal(last.body.code, 'LAST_OWNER', 'now ed is the last owner');

  // Removed: the member's tokens are revoked and the password session ends.
  const removed = await ed.delete(`/api/v1/members/${bossId}`);
  t.equal(removed.status, 200);
  t.match(removed.body, { member: { id: bossId, email: 'boss@example.com', role: 'editor' }, revoked_tokens: 1 });
  t.equal((await boss.get('/api/v1/domains')).status, 401, "the removed member's token is refused");
  t.equal((await ed.delete(`/api/v1/members/${bossId}`)).status, 404, 'gone');
  // ed's own password session ends when another owner removes ed (a new member is an owner by default).
  const newOwner = client(s.url, await s.token('acme', 'new@example.com'));
  t.equal((await edSession('GET', '/api/v1/domains')).status, 200);
  t.equal((await newOwner.delete(`/api/v1/members/${edId}`)).status, 200);
  t.equal((await edSession('GET', '/api/v1/domains')).status, 401, 'the password session ended');
  t.equal((await ed.get('/api/v1/domains')).status, 401, 'the token too');
  const audit = (await newOwner.get('/api/v1/audit?kind=user')).body;
  t.ok(
    audit.data.some(
      (e: any) => e.action === 'delete' && e.object.name === 'ed@example.com' && e.actor.email === 'new@example.com',
    ),
    'the removal is in the audit trail',
  );
});
