// The one e-mail address rule: what it takes, and that the request schemas carry the same pattern.
import fs from 'node:fs';
import t from 'tap';
import { EMAIL_PATTERN, foldEmail, isEmail } from '../../src/domain/email.js';
import { createValidator } from '../../src/api/validation.js';

t.test('addresses taken and refused', async (t) => {
  for (const s of ['a@b', 'ops@example.com', 'first.last+tag@sub.example.co.uk', 'x@localhost', 'ünï@例え.jp'])
    t.ok(isEmail(s), `takes ${s}`);
  for (const s of ['', 'a', '@b', 'a@', 'a@@b', 'a@b@c', 'a b@c', 'a@b c', ' a@b', 'a@b\n', '\ta@b'])
    t.notOk(isEmail(s), `refuses ${JSON.stringify(s)}`);
  t.equal(foldEmail('  Ops@Example.COM '), 'ops@example.com');
});

t.test('the schemas use the same rule', async (t) => {
  const shared = JSON.parse(fs.readFileSync('schemas/requests/email-address.json', 'utf8')) as { pattern: string };
  t.equal(shared.pattern, EMAIL_PATTERN, 'schemas/requests/email-address.json');
  // Every "pattern" that looks like an address rule in schemas/ is this one (the generated channel
  // schemas take it from the code).
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) =>
        e.isDirectory() ? walk(`${dir}/${e.name}`) : e.name.endsWith('.json') ? [`${dir}/${e.name}`] : [],
      );
  const found: string[] = [];
  for (const f of walk('schemas'))
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/"pattern": ?("(?:[^"\\]|\\.)*")/g)) {
      const p = JSON.parse(m[1]!) as string;
      if (p.includes('@') && p.includes('\\s')) {
        found.push(f);
        t.equal(p, EMAIL_PATTERN, f);
      }
    }
  t.ok(found.includes('schemas/channels/email.json'), 'the e-mail channel recipients carry it');

  const v = createValidator();
  t.doesNotThrow(() => v.body('invitation-create', { email: 'Ann@Example.com', role: 'editor' }));
  for (const email of ['ann', 'ann@', 'a b@c', 'a@b@c'])
    t.throws(
      () => v.body('invitation-create', { email, role: 'editor' }),
      { code: 'VALIDATION_ERROR' },
      `invitation ${email}`,
    );
});
