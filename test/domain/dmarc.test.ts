// The pure DMARC judgement (domain/dmarc.ts) and how a grade reads stored DMARC details: results
// stored before dmarc_result existed (policy as a string) stay readable; new ones show their warnings.
import t from 'tap';
import { evaluateDmarc } from '../../src/domain/dmarc.js';
import { securityParts } from '../../src/domain/security.js';

const others = {
  spf: { status: 'pass' },
  dkim: { status: 'pass' },
  caa: { status: 'pass' },
  dnssec: { status: 'pass' },
  transfer_lock: { locked: true },
};

t.test('details stored before this shape are still read: their problems are the cause', async (t) => {
  const old = {
    status: 'fail',
    record: 'v=DMARC1; p=none',
    policy: 'none',
    subdomain_policy: null,
    pct: null,
    rua: null,
    problems: ['DMARC policy is "none" (monitoring only; spoofed mail is still delivered)'],
  };
  const parts = securityParts({ ...others, dmarc: old })!;
  t.match(
    parts.find((p) => p.check === 'dmarc'),
    {
      status: 'fail',
      counted: 'fail',
      cause: 'DMARC policy is "none" (monitoring only; spoofed mail is still delivered)',
    },
  );
  t.notOk(parts.find((p) => p.check === 'dmarc')!.warnings);
});

t.test('a new result: the errors are the cause, the warnings ride along', async (t) => {
  const r = evaluateDmarc({
    domain: 'example.com',
    txts: ['v=DMARC1; p=reject; fo=2; foo=bar'],
  });
  t.equal(r.dmarc_result, 'invalid');
  const dmarc = securityParts({ ...others, dmarc: JSON.parse(JSON.stringify(r)) })!.find((p) => p.check === 'dmarc')!;
  t.equal(
    dmarc.cause,
    'fo=2 is not valid: fo is a colon-separated list of 0, 1, d and s; fix: write it as fo=1 or fo=d:s, or remove fo=',
  );
  t.same(dmarc.warnings, ['unknown tag foo=bar (receivers ignore it); fix: remove foo= or correct its name']);
  // A look-up that failed: temperror, unknown, no warnings.
  const parts = securityParts({
    ...others,
    dmarc: { status: 'unknown', reason: 'lookup failed: DNS ESERVFAIL', dmarc_result: 'temperror', warnings: [] },
  })!;
  t.match(
    parts.find((p) => p.check === 'dmarc'),
    { status: 'unknown', cause: 'lookup failed: DNS ESERVFAIL' },
  );
});
