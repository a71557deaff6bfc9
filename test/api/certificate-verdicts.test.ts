// Certificate verdicts through the real app (issue 38 items 12-14): a chain whose intermediate expires
// before the leaf sets ssl_status, the expiry date, the renewal list, the alert and the /metrics gauge,
// and says which certificate it is; an empty subject is read, not an `error`; a host only in the
// common name is invalid, with the reason.
import crypto from 'node:crypto';
import t from 'tap';
import { client, request, startApp } from '../support/app.js';
import { parseExposition } from '../support/prometheus.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { issue, makeCa, makeIntermediate } from '../support/certs.js';

t.setTimeout(120_000);

const METRICS_TOKEN = 'metrics-secret-0123456789';
const DAY = 86_400_000;

t.test('earliest expiry of the chain, empty subject, CN without SAN: through the API', async (t) => {
  const dns = await startLoopbackDns();
  const root = makeCa('Earliest Root');
  const mid = makeIntermediate(root, 'Earliest Intermediate', { toDays: 12 });
  const leaf = issue({ ca: mid, cn: 'www.chain.example', toDays: 90 });
  const chained = await startHttpTarget({ tls: { cert: leaf.cert + mid.cert, key: leaf.key } });
  const empty = await startHttpTarget({ tls: issue({ ca: root, cn: 'www.empty.example', subject: '/', toDays: 90 }) });
  const cnOnly = await startHttpTarget({ tls: issue({ ca: root, cn: 'www.cn.example', sans: null, toDays: 90 }) });
  const s = await startApp(
    { DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000', DOMMON_METRICS_TOKEN: METRICS_TOKEN },
    { probes: { ca: root.cert } },
  );
  t.teardown(async () => {
    await s.close();
    for (const x of [chained, empty, cnOnly]) await x.close();
    await dns.close();
  });
  const a = client(s.url, await s.token('acme'));
  const teamId = (await a.get('/api/v1/validate')).body.team_id as string;
  const endpoint = async (domain: string, port: number) => {
    const d = (await a.post('/api/v1/domains', { domain })).body;
    const ep = (
      await a.post('/api/v1/endpoints', {
        domain_id: d.id,
        name: 'www',
        endpoint_type: 'https',
        subdomain: 'www',
        port,
      })
    ).body;
    await s.app.services.certificates.checkNow(teamId, ep.id);
    return ep;
  };
  const midX = new crypto.X509Certificate(mid.cert);
  const midNotAfter = new Date(midX.validTo).toISOString();
  const leafNotAfter = new Date(new crypto.X509Certificate(leaf.cert).validTo).toISOString();
  t.ok(Date.parse(leafNotAfter) - Date.parse(midNotAfter) > 70 * DAY, 'the leaf outlives its intermediate');

  const ep = await endpoint('chain.example', chained.port);
  const detail = (await a.get(`/api/v1/endpoints/${ep.id}`)).body;
  t.equal(detail.ssl_status, 'expiring_soon', 'the intermediate has 12 days left');
  t.equal(detail.ssl_expiry_date, midNotAfter.slice(0, 10), "the expiry date is the intermediate's");
  const status = (await a.get(`/api/v1/endpoints/${ep.id}/status`)).body;
  t.match(status.ssl, { status: 'expiring_soon', expiry_date: midNotAfter.slice(0, 10) });
  t.ok(status.ssl.days_until_expiry === 12 || status.ssl.days_until_expiry === 11);

  const cert = (await a.get(`/api/v1/endpoints/${ep.id}/certificates`)).body.current;
  t.equal(cert.not_after, midNotAfter);
  t.same(cert.earliest_expiry, {
    position: 1,
    role: 'intermediate',
    subject: 'CN=Earliest Intermediate',
    not_after: midNotAfter,
    fingerprint256: midX.fingerprint256,
  });
  t.equal(cert.chain[0].not_after, leafNotAfter, "the leaf's own date stays in the chain");

  const renewals = (await a.get('/api/v1/renewals?type=certificates&status=expiring_soon')).body.data;
  t.same(
    renewals.map((r: any) => [r.endpoint_id, r.expiry_date, r.status]),
    [[ep.id, midNotAfter.slice(0, 10), 'expiring_soon']],
    'the renewal list has it, at the intermediate date',
  );
  t.same(
    renewals[0].expiring_certificate,
    { role: 'intermediate', position: 1, subject: 'CN=Earliest Intermediate' },
    'and says which certificate it is',
  );

  const events = (await s.app.store.events.list(teamId)).filter((e) => e.endpoint_id === ep.id);
  t.same(
    events.map((e) => e.category),
    ['certificate_expiring'],
  );
  t.match(
    events[0]!.message,
    /www \(https:\/\/www\.chain\.example:\d+\/\) intermediate certificate CN=Earliest Intermediate expires in 1[12] day\(s\)/,
  );
  t.match(JSON.parse(events[0]!.details), {
    window_days: 14,
    not_after: midNotAfter,
    earliest_expiry: { role: 'intermediate', subject: 'CN=Earliest Intermediate' },
  });

  const m = parseExposition((await request(s.url, 'GET', '/metrics', { token: METRICS_TOKEN })).text);
  t.equal(
    m.value('dommon_ssl_expiry_timestamp_seconds', { team: 'acme', domain: 'chain.example', endpoint: 'www' }),
    Date.parse(midNotAfter) / 1000,
    "the gauge is the intermediate's notAfter",
  );

  const e2 = await endpoint('empty.example', empty.port);
  const c2 = (await a.get(`/api/v1/endpoints/${e2.id}/certificates`)).body.current;
  t.match(c2, { ssl_status: 'valid', subject: '', error: null, sans: ['www.empty.example'] });

  const e3 = await endpoint('cn.example', cnOnly.port);
  const c3 = (await a.get(`/api/v1/endpoints/${e3.id}/certificates`)).body.current;
  t.match(c3, { ssl_status: 'invalid', subject: 'CN=www.cn.example', trusted: true, hostname_match: false, sans: [] });
  t.match(c3.error, /^the certificate has no subjectAltName: browsers and Go no longer accept/);
  const invalid = (await s.app.store.events.list(teamId)).filter((e) => e.endpoint_id === e3.id);
  t.match(invalid[0], { category: 'certificate_invalid', message: /INVALID: the certificate has no subjectAltName/ });
});
