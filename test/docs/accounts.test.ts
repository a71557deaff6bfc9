// docs/accounts.md lists every operation that is not a GET, and every GET that needs more than
// `viewer`, with the role the route table (src/api/roles.ts, from openapi/operations.ts) enforces.
import fs from 'node:fs';
import t from 'tap';
import { ROUTE_ROLES } from '../../src/api/roles.js';

t.test("the accounts page's role table is the route table", async (t) => {
  const doc = fs.readFileSync(new URL('../../docs/accounts.md', import.meta.url), 'utf8');
  const start = doc.indexOf('<!-- roles:');
  t.ok(start > 0, 'the table is marked');
  const rows = new Map<string, string>();
  for (const line of doc.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const m = /^\| `(\w+)` \| `([^`]+)` \| (\w+) \|$/.exec(line);
    if (m) rows.set(`${m[1]} ${m[2]}`, m[3]!);
  }
  const listed = new Map([...ROUTE_ROLES].filter(([k, r]) => r !== 'viewer' || !k.startsWith('GET ')));
  t.ok(listed.size > 10, 'owner and editor routes exist');
  t.same(Object.fromEntries(rows), Object.fromEntries(listed), 'the same routes with the same roles');
});
