import t from 'tap';
import {
  HEALTH_WEIGHTS,
  computeHealth,
  gradeFor,
  livenessScore,
  registrationScore,
  type HealthInputs,
} from '../../src/domain/health.js';

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
  t.same(computeHealth(base, now), {
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
