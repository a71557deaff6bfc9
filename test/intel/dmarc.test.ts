// The DMARC test set (test/fixtures/dmarc/records.json: every tag valid and invalid, whitespace,
// duplicates, record selection, organisational-domain fallback, external report authorisation), each
// row served by a real UDP DNS server on loopback and judged by the security evaluator with the real
// resolver: verdict, status, every error and warning (tag and reason) and the effective policy.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startDnsServer, type Zone } from '../support/dns-server.js';
import { createDnsResolver } from '../../src/probes/dns.js';
import { createSecurityEvaluator } from '../../src/services/security.js';

interface Row {
  id: string;
  domain?: string;
  records: (string | string[])[] | null;
  zone?: Record<string, string[]>;
  result: string;
  status: string;
  errors: [string | null, string][];
  warnings: [string | null, string][];
  policy?: Record<string, unknown> | null;
  problems?: string[];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const DMARC_ROWS = (
  JSON.parse(fs.readFileSync(path.join(here, '../fixtures/dmarc/records.json'), 'utf8')) as { rows: Row[] }
).rows;

function dmarcZone(rows: Row[]): Zone {
  const zone: Zone = {};
  for (const row of rows) {
    const domain = row.domain ?? `${row.id}.test`;
    if (row.records) zone[`_dmarc.${domain}`] = { TXT: row.records };
    for (const [name, txt] of Object.entries(row.zone ?? {})) zone[name] = { TXT: txt };
  }
  return zone;
}

const findings = (list: { tag: string | null; reason: string }[]) => list.map((f) => [f.tag, f.reason]);

t.test('every row of the DMARC test set through the evaluator and the loopback DNS server', async (t) => {
  const dns = await startDnsServer(dmarcZone(DMARC_ROWS));
  const resolver = createDnsResolver([dns.address], { timeoutMs: 1000, tries: 1 });
  t.teardown(async () => {
    resolver.cancel?.();
    await dns.close();
  });
  const evaluate = createSecurityEvaluator(resolver);
  for (const row of DMARC_ROWS) {
    const domain = row.domain ?? `${row.id}.test`;
    const r = (await evaluate(domain, [], undefined, {}, '2026-01-01T00:00:00.000Z')).dmarc;
    t.test(row.id, async (t) => {
      t.equal(r.dmarc_result, row.result, 'dmarc_result');
      t.equal(r.status, row.status, 'status');
      const got = findings(r.errors);
      t.equal(got.length, row.errors.length, `errors: ${JSON.stringify(got)}`);
      row.errors.forEach(([tag, reason], i) => {
        t.equal(got[i]?.[0], tag, `error ${i} tag`);
        t.ok(String(got[i]?.[1]).includes(reason), `error ${i}: ${got[i]?.[1]} has ${reason}`);
      });
      const warned = findings(r.warnings);
      t.equal(warned.length, row.warnings.length, `warnings: ${JSON.stringify(warned)}`);
      row.warnings.forEach(([tag, reason], i) => {
        t.equal(warned[i]?.[0], tag, `warning ${i} tag`);
        t.ok(String(warned[i]?.[1]).includes(reason), `warning ${i}: ${warned[i]?.[1]} has ${reason}`);
      });
      for (const e of [...r.errors, ...r.warnings]) t.match(e.fix, /\S/, 'every finding says how to fix it');
      if (row.policy === null) t.equal(r.policy, null, 'no policy applies');
      else if (row.policy) t.match(r.policy, row.policy, 'effective policy');
      if (row.status === 'fail') t.ok(r.problems.length > 0, 'a failure says why');
      else t.same(r.problems, []);
      for (const p of row.problems ?? [])
        t.ok(
          r.problems.some((x) => x.startsWith(p)),
          `problem: ${p}`,
        );
      // What the errors say is what the grade's reasons show.
      r.errors.forEach((e, i) => t.equal(r.problems[i], `${e.reason}; fix: ${e.fix}`));
    });
  }
});
