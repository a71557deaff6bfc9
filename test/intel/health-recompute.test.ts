// Health is recomputed the moment an input changes, not by the sweep: each step changes one input
// through the API (or a real peer) and reads the domain back at once. The sweep runs at start and
// then every 60 s; this file finishes well inside that, and every expected value differs from the
// one before it.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { startDnsServer, type Zone } from '../support/dns-server.js';
import { startRdapServer, rdapDomain } from '../support/rdap-server.js';
import { startHttpTarget } from '../support/targets.js';
import { issue, makeCa } from '../support/certs.js';
import { runningClock } from '../support/clock.js';
import { waitFor } from '../support/wait.js';
import { computeHealth, type HealthInputs } from '../../src/domain/health.js';

const DAY = 86_400_000;

t.test('score, grade and overall status follow every input at once', async (t) => {
  // Five days ahead of real time: registration and certificate days count from the injected clock.
  const clock = runningClock(5 * DAY);
  const day = (n: number) => new Date(clock.now().getTime() + n * DAY).toISOString().slice(0, 10);
  const zone: Zone = {
    'health.com': {
      TXT: ['v=spf1 mx -all'],
      CAA: [{ tag: 'issue', value: 'letsencrypt.org' }],
      MX: [{ preference: 10, exchange: 'mx.health.com' }],
    },
    '_dmarc.health.com': { TXT: ['v=DMARC1; p=reject'] },
    'www.health.com': { A: ['127.0.0.1'] },
  };
  const dns = await startDnsServer(zone);
  const rdap = await startRdapServer({
    'health.com': rdapDomain('health.com', { registrar: 'R', expiry: `${day(200)}T00:00:00Z` }),
  });
  const ca = makeCa('Health Test CA');
  const web = await startHttpTarget({
    tls: issue({ ca, cn: 'www.health.com', now: clock.now(), fromDays: -10, toDays: 20 }),
  });
  const s = await startApp(
    { DOMMON_DNS_SERVERS: dns.address, DOMMON_RDAP_URL: rdap.url, DOMMON_RATE_LIMIT: '1000000' },
    { clock, probes: { ca: ca.cert } },
  );
  t.teardown(async () => {
    await s.close();
    await Promise.all([dns.close(), rdap.close(), web.close()]);
  });
  // The refreshes here are the ones asked for: the daemon's own first round of the new domain (its
  // security check and health recompute at a moment of its choosing) once stored its own score between
  // a step's refresh and its read (81 where the step's inputs give 84). Pause, not stop: stop aborts the
  // look-ups asked for too.
  await s.app.intel.pause();
  const api = client(s.url, await s.token());

  const id = (await api.post('/api/v1/domains', { domain: 'health.com' })).body.id as string;
  const inputs: HealthInputs = { expiry_date: null, certificates: [], security_score: null, liveness: [] };
  let last: number | null = null;
  /** The domain status as the API shows it now must carry the health of `inputs`, and differ from the step before. */
  const expectHealth = async (step: string) => {
    const d = (await api.get(`/api/v1/domains/${id}/status`)).body;
    const want = computeHealth(inputs, clock.now());
    t.same([d.health_score, d.health_grade, d.overall_status], [want.score, want.grade, want.overall_status], step);
    t.not(d.health_score, last, `${step}: the score moved`);
    last = d.health_score;
    return d;
  };

  // Registration lookup stored (expiry in 200 days) and security check stored.
  const reg = (await api.post(`/api/v1/domains/${id}/registration`)).body;
  t.equal(reg.expiry_date, day(200));
  inputs.expiry_date = reg.expiry_date;
  const sec = (await api.post(`/api/v1/domains/${id}/security`)).body;
  t.type(sec.security_score, 'number');
  inputs.security_score = sec.security_score;
  const first = await expectHealth('registration and security');
  t.equal(first.health_grade, 'A');

  // Manual expiry_date override, then back to the registry's date.
  await api.put(`/api/v1/domains/${id}`, { expiry_date: day(10) });
  inputs.expiry_date = day(10);
  const override = await expectHealth('expiry override 10 days out');
  t.equal(override.overall_status, 'warning');
  await api.put(`/api/v1/domains/${id}`, { expiry_date: null });
  inputs.expiry_date = day(200);
  await expectHealth('override removed');

  // The registry now reports an expiry 25 days out.
  rdap.domains['health.com'] = rdapDomain('health.com', { registrar: 'R', expiry: `${day(25)}T00:00:00Z` });
  t.equal((await api.post(`/api/v1/domains/${id}/registration`)).body.expiry_date, day(25));
  inputs.expiry_date = day(25);
  await expectHealth('registration lookup with a new expiry');

  // DMARC and CAA removed: the security score drops.
  delete zone['_dmarc.health.com'];
  delete zone['health.com']!.CAA;
  const worse = (await api.post(`/api/v1/domains/${id}/security`)).body;
  t.ok(worse.security_score < sec.security_score);
  inputs.security_score = worse.security_score;
  await expectHealth('security check with DMARC and CAA gone');

  // An endpoint whose certificate expires in 20 days: inspected by the worker; health lands with it.
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: id,
      name: 'www',
      endpoint_type: 'https',
      subdomain: 'www',
      port: web.port,
    })
  ).body;
  const detail = await waitFor(async () => {
    const b = (await api.get(`/api/v1/endpoints/${ep.id}`)).body;
    return b.ssl_status !== 'unknown' && b;
  }, 8000);
  t.equal(detail.ssl_status, 'expiring_soon');
  inputs.certificates = ['expiring_soon'];
  await expectHealth('certificate inspection stored');

  // Liveness: up, then down after one failed check.
  const cfg = (
    await api.post('/api/v1/liveness', {
      endpoint_id: ep.id,
      timeout_seconds: 2,
      interval_seconds: 1,
      failure_threshold: 1,
    })
  ).body;
  const status = async () => (await api.get(`/api/v1/liveness/${cfg.id}/status`)).body;
  // Up, with its first uptime: the status answer reads the state and the 24 h sums in two queries at
  // once (on PostgreSQL two connections, not one snapshot), so a read as the first batch commits can
  // see `up` without its sums (a loaded PostgreSQL run read `up` with uptime null once).
  const up = await waitFor(async () => {
    const b = await status();
    return b.status === 'up' && b.uptime_24h !== null && b;
  }, 8000);
  // A flip is written by the probe's batch; its domain's health right after, off that write path.
  await s.app.services.monitor.healthSettled();
  inputs.liveness = [{ status: 'up', uptime_24h: up.uptime_24h }];
  t.equal(up.uptime_24h, 100);
  await expectHealth('liveness up');
  web.behave({ kind: 'status', code: 503 });
  const down = await waitFor(async () => {
    const b = await status();
    return b.status === 'down' && b;
  }, 8000);
  await s.app.services.monitor.healthSettled();
  inputs.liveness = [{ status: 'down', uptime_24h: down.uptime_24h }];
  const critical = await expectHealth('liveness down');
  t.equal(critical.overall_status, 'critical');

  // The endpoint removed: its certificate and liveness leave the inputs.
  await api.delete(`/api/v1/endpoints/${ep.id}`);
  inputs.certificates = [];
  inputs.liveness = [];
  await expectHealth('endpoint removed');
});
