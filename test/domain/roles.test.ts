// A token's effective role: the lower of its member's role and its own, viewer when read-only.
import t from 'tap';
import { effectiveRole, isRole, lowerRole, roleAllows } from '../../src/domain/roles.js';

t.test('effective role by table', async (t) => {
  const rows: [member: string, token: string | null, readOnly: boolean, want: string][] = [
    ['owner', null, false, 'owner'],
    ['owner', null, true, 'viewer'],
    ['owner', 'editor', false, 'editor'],
    ['editor', 'owner', false, 'editor'],
    ['editor', null, false, 'editor'],
    ['viewer', 'owner', false, 'viewer'],
    ['editor', 'viewer', false, 'viewer'],
    ['owner', 'owner', true, 'viewer'],
    // an unknown stored value counts as the lowest role
    ['admin', null, false, 'viewer'],
    ['owner', 'root', false, 'viewer'],
  ];
  for (const [member, token, ro, want] of rows)
    t.equal(effectiveRole(member, token, ro), want, `${member} + ${token} + read_only=${ro}`);
});

t.test('order of roles', async (t) => {
  t.ok(roleAllows('owner', 'editor'));
  t.ok(roleAllows('editor', 'editor'));
  t.notOk(roleAllows('editor', 'owner'));
  t.notOk(roleAllows('viewer', 'editor'));
  t.ok(roleAllows('viewer', 'viewer'));
  t.equal(lowerRole('owner', 'viewer'), 'viewer');
  t.equal(lowerRole('editor', 'owner'), 'editor');
  t.ok(isRole('viewer'));
  t.notOk(isRole('Viewer'));
  t.notOk(isRole(undefined));
});
