import t from 'tap';
import {
  HEALTH_WEIGHTS,
  computeHealth,
  gradeFor,
  healthLine,
  livenessScore,
  registrationScore,
  type HealthInputs,
} from '../../src/domain/health.js';
import { evaluateDmarc } from '../../src/domain/dmarc.js';
import { evaluateDkim, securityParts, unknownResult } from '../../src/domain/security.js';
import { judgeSpf } from '../../src/domain/spf.js';

const now = new Date('2026-01-01T12:00:00Z');
const base: HealthInputs = { expiry_date: null, certificates: [], security_score: null, liveness: [] };

t.test('grade boundaries', async (t) => {
  const cases: [number, string][] = [
    [100, 'A'],
    [80, 'A'],
    [79, 'B'],
    [60, 'B'],
    [59, 'C'],
    [40, 'C'],
    [39, 'D'],
    [20, 'D'],
    [19, 'F'],
    [0, 'F'],
  ];
  for (const [score, grade] of cases) t.equal(gradeFor(score), grade, `${score} -> ${grade}`);
});

t.test('weights sum to 100 and unknown inputs are left out', async (t) => {
  t.equal(
    Object.values(HEALTH_WEIGHTS).reduce((a, b) => a + b, 0),
    100,
  );
  t.match(computeHealth(base, now), {
    score: null,
    grade: null,
    overall_status: null,
    components: { registration: null, certificates: null, security: null, liveness: null },
  });
  // Only security known: the score is the security score itself.
  const onlySec = computeHealth({ ...base, security_score: 55 }, now);
  t.equal(onlySec.score, 55);
  t.equal(onlySec.grade, 'C');
});

t.test('weighted score from all four inputs', async (t) => {
  // registration 100 (far), certificates 50 (expiring soon), security 80, liveness 100 (100 % uptime)
  const h = computeHealth(
    {
      expiry_date: '2027-06-01',
      certificates: ['valid', 'expiring_soon'],
      security_score: 80,
      liveness: [{ status: 'up', uptime_24h: 100 }],
    },
    now,
  );
  t.equal(h.score, Math.round((30 * 100 + 30 * 50 + 25 * 80 + 15 * 100) / 100));
  t.equal(h.score, 80);
  t.equal(h.grade, 'A');
  t.equal(h.overall_status, 'warning', 'a certificate expiring soon is a warning even with grade A');
});

t.test('registration sub-score by days left, overall status', async (t) => {
  t.equal(registrationScore('2026-03-15', now), 100);
  t.equal(registrationScore('2026-02-20', now), 75);
  t.equal(registrationScore('2026-01-20', now), 50);
  t.equal(registrationScore('2026-01-05', now), 20);
  t.equal(registrationScore('2025-12-31', now), 0);
  t.equal(computeHealth({ ...base, expiry_date: '2025-12-31' }, now).overall_status, 'critical');
  t.equal(computeHealth({ ...base, expiry_date: '2025-12-31' }, now).grade, 'F');
  t.equal(computeHealth({ ...base, expiry_date: '2027-12-31', security_score: 100 }, now).overall_status, 'healthy');
  t.equal(
    computeHealth({ ...base, expiry_date: '2027-12-31', certificates: ['expired'] }, now).overall_status,
    'critical',
  );
});

t.test('liveness sub-score', async (t) => {
  t.equal(livenessScore([]), null);
  t.equal(livenessScore([{ status: 'up', uptime_24h: 99.5 }]), 95);
  t.equal(livenessScore([{ status: 'up', uptime_24h: 85 }]), 0);
  t.equal(
    livenessScore([
      { status: 'up', uptime_24h: 100 },
      { status: 'down', uptime_24h: 100 },
    ]),
    0,
  );
  const h = computeHealth({ ...base, security_score: 100, liveness: [{ status: 'down', uptime_24h: 50 }] }, now);
  t.equal(h.overall_status, 'critical');
  t.equal(h.score, Math.round((25 * 100) / 40));
});

/** Stored details of a security check (as services/security.ts writes them): DMARC p=none, SPF's look-up timed out. */
const details = {
  spf: unknownResult(
    judgeSpf({
      records: [],
      failed: 'queryTxt ETIMEOUT example.com',
      errors: [],
      warnings: [],
      temperror: null,
      lookups: 0,
      void_lookups: 0,
      all: null,
    }),
    'lookup failed: queryTxt ETIMEOUT example.com',
  ),
  dmarc: evaluateDmarc({ domain: 'example.com', txts: ['v=DMARC1; p=none'] }),
  dkim: evaluateDkim(['default', 'selector1'], ['selector1']),
  caa: { status: 'pass', issuers: ['letsencrypt.org'], wildcard_issuers: [], iodef: [] },
  dnssec: { status: 'pass', enabled: true, ds_records: 1, dnskey_records: 1, registry_signed: null },
  transfer_lock: { locked: true, statuses: ['clientTransferProhibited'], source: 'rdap' },
  lookup_errors: { spf: 'queryTxt ETIMEOUT example.com' },
  last_known: {},
};

t.test('every grade has its reasons: a known bad DMARC, an unknown SPF, the points add up', async (t) => {
  const parts = securityParts(details)!;
  // DMARC fail (20) of the counted 80 (SPF left out): 60/80.
  const inputs: HealthInputs = {
    expiry_date: '2026-01-21',
    certificates: ['valid', 'expiring_soon'],
    security_score: 75,
    liveness: [],
    security_parts: parts,
  };
  const h = computeHealth(inputs, now);
  t.equal(h.score, 57, '(30*50 + 30*50 + 25*75) / 85');
  t.equal(h.grade, 'C');
  t.same(
    h.reasons.map((r) => [r.input, r.status, r.counted, r.points_lost]),
    [
      ['registration', 'warning', true, 18],
      ['certificates', 'warning', true, 18],
      ['liveness', 'unknown', false, 0],
      ['spf', 'unknown', false, 0],
      ['dmarc', 'bad', true, 7],
      ['dkim', 'ok', true, 0],
      ['caa', 'ok', true, 0],
      ['dnssec', 'ok', true, 0],
      ['transfer_lock', 'ok', true, 0],
    ],
  );
  t.equal(100 - h.reasons.reduce((a, r) => a + r.points_lost, 0), h.score, 'the points lost add up to the score');
  const why = Object.fromEntries(h.reasons.map((r) => [r.input, r.reason]));
  t.equal(why.registration, 'registration expires in 20 day(s) (2026-01-21)');
  t.equal(why.certificates, '1 of 2 certificate(s) expiring soon');
  t.equal(why.spf, 'SPF unknown (lookup failed: queryTxt ETIMEOUT example.com); left out of the score');
  t.equal(
    why.dmarc,
    'DMARC fail: DMARC policy is "none" (monitoring only; spoofed mail is still delivered); fix: raise p to quarantine or reject once the reports show legitimate mail passes',
  );
  t.equal(
    healthLine(h),
    'health 57 (C): registration expires in 20 day(s) (2026-01-21) -18; 1 of 2 certificate(s) expiring soon -18; ' +
      'DMARC fail: DMARC policy is "none" (monitoring only; spoofed mail is still delivered); fix: raise p to quarantine or reject once the reports show legitimate mail passes -7; unknown, left out: liveness, spf',
  );

  // Far expiry, valid certificates: only DMARC costs points (25 * 25 / 85 = 7.35 -> 7).
  const good = computeHealth({ ...inputs, expiry_date: '2027-06-01', certificates: ['valid'] }, now);
  t.equal(good.score, 93);
  t.same(
    good.reasons.filter((r) => r.points_lost).map((r) => [r.input, r.points_lost]),
    [['dmarc', 7]],
  );

  // An unknown SPF whose last known result was a fail is counted as that fail, and says so.
  const stale = securityParts({
    ...details,
    last_known: { spf: { status: 'fail', checked_at: '2025-12-30T00:00:00.000Z' } },
  })!;
  const s = computeHealth({ ...inputs, security_parts: stale, security_score: 60 }, now);
  const spf = s.reasons.find((r) => r.input === 'spf')!;
  t.same([spf.status, spf.counted], ['unknown', true]);
  t.equal(
    spf.reason,
    'SPF unknown now (lookup failed: queryTxt ETIMEOUT example.com); its last known result (fail on 2025-12-30) is counted',
  );
  t.ok(spf.points_lost > 0);
  t.equal(100 - s.reasons.reduce((a, r) => a + r.points_lost, 0), s.score);
});

t.test('nothing known: no score, no grade, and every input says why', async (t) => {
  const unknown = Object.fromEntries(
    (['spf', 'dmarc', 'dkim', 'caa', 'dnssec'] as const).map((k) => [
      k,
      { status: 'unknown', reason: 'lookup failed: DNS ESERVFAIL' },
    ]),
  );
  const parts = securityParts({ ...unknown, transfer_lock: { locked: true }, last_known: {} })!;
  const h = computeHealth(
    { ...base, security_score: null, security_parts: parts, registration_cause: 'RDAP look-up failed: timeout' },
    now,
  );
  t.equal(h.score, null);
  t.equal(h.grade, null);
  t.ok(h.reasons.every((r) => !r.counted && r.points_lost === 0));
  t.equal(h.reasons[0]!.reason, 'registration expiry unknown (RDAP look-up failed: timeout); left out of the score');
  t.match(h.reasons.find((r) => r.input === 'dmarc')!.reason, 'DMARC unknown (lookup failed: DNS ESERVFAIL)');
  t.match(
    h.reasons.find((r) => r.input === 'transfer_lock')!.reason,
    /^transfer lock on; left out with the DNS checks/,
  );
  t.equal(healthLine(h), 'health unknown: nothing could be checked yet');
});

t.test('the points lost add up to the score for every mix of inputs', async (t) => {
  const statuses = ['valid', 'expiring_soon', 'expired'];
  const expiries = [null, '2025-12-30', '2026-01-10', '2026-01-25', '2026-02-20', '2027-01-01'];
  let n = 0;
  for (const expiry_date of expiries)
    for (const cert of [[], ...statuses.map((s) => [s])])
      for (const security_score of [null, 0, 33, 75, 100])
        for (const liveness of [[], [{ status: 'up' as const, uptime_24h: 99.37 }]]) {
          const h = computeHealth({ expiry_date, certificates: cert, security_score, liveness }, now);
          const lost = h.reasons.reduce((a, r) => a + r.points_lost, 0);
          if (h.score === null) t.equal(lost, 0);
          else if (100 - lost !== h.score) t.fail(JSON.stringify({ expiry_date, cert, security_score }));
          n++;
        }
  t.equal(n, 6 * 4 * 5 * 2);
});
