// docs/accounts.md lists every operation that needs more than `viewer`, with the role the route table
// (src/api/roles.ts, from openapi/operations.ts) enforces; every other operation needs `viewer`.
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
  const higher = new Map([...ROUTE_ROLES].filter(([, r]) => r !== 'viewer'));
  t.ok(higher.size > 10, 'owner and editor routes exist');
  t.same(Object.fromEntries(rows), Object.fromEntries(higher), 'the same routes with the same roles');
  const undocumentedReads = [...ROUTE_ROLES].filter(
    ([k, r]) => r === 'viewer' && !k.startsWith('GET ') && k !== 'POST /api/v1/auth',
  );
  t.same(undocumentedReads, [], 'viewer is needed only by the reads the page names');
});
