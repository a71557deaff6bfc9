// Every real WHOIS answer of test/fixtures/registry/whois/ read by the parser alone: expiry (UTC
// day), registrar and state as expected.json says (values checked by hand against the raw text).
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { readWhoisAnswer } from '../../src/domain/whois-parse.js';

export interface WhoisCase {
  file: string;
  domain: string;
  source: string;
  expiry: string | null;
  registrar: string | null;
  /** ok, or what a refusal is taken for (a throttled answer: rate_limited). */
  state: 'ok' | 'not_found' | 'rate_limited';
}

const dir = path.join(import.meta.dirname, '../fixtures/registry/whois');
const cases = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as WhoisCase[];

t.test('WHOIS corpus: every answer read as expected', async (t) => {
  let right = 0;
  const tlds = new Set<string>();
  for (const c of cases) {
    tlds.add(c.domain.split('.').pop()!);
    const text = fs.readFileSync(path.join(dir, c.file), 'utf8');
    const v = readWhoisAnswer(c.domain, text);
    const got =
      v.kind === 'ok'
        ? { state: 'ok', expiry: v.data.expiry_date, registrar: v.data.registrar }
        : { state: v.kind, expiry: null, registrar: null };
    const want = { state: c.state, expiry: c.expiry, registrar: c.registrar };
    t.same(got, want, c.file);
    if (got.state === want.state && got.expiry === want.expiry && got.registrar === want.registrar) right++;
    if (c.state === 'ok' && !c.expiry && v.kind === 'ok')
      t.match(v.reason, /no expiry date/, `${c.file}: says why there is no expiry`);
  }
  const published = cases.filter((c) => c.expiry).length;
  const limited = cases.filter((c) => c.state === 'rate_limited').map((c) => c.file);
  t.comment(`answers taken for a rate limit: ${limited.join(', ') || 'none'} (all short refusals without domain data)`);
  t.comment(
    `WHOIS corpus: ${right} of ${cases.length} answers read right (${tlds.size} TLDs, ${published} with an expiry published)`,
  );
  t.ok(tlds.size >= 1);
});
