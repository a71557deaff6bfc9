// Exposure alerts end to end: a domain verified against the loopback DNS peer, a scan that finds a
// takeover-prone dangling CNAME, and the notification worker delivering the critical `exposure`
// event to a signed webhook; min_severity keeping a low finding away from one row and not another;
// a fixed record writing `exposure_resolved`, which no instant row gets and the digest lists.
import t from 'tap';
import { instantAlert } from '../../src/domain/notification.js';
import { client, startApp } from '../support/app.js';
import { manualClock } from '../support/clock.js';
import { startExposureDns, type Rec } from '../support/exposure-dns.js';
import { closedPort } from '../support/exposure-peers.js';
import { startWebhookReceiver, verifySignature, type Received } from '../support/webhook-receiver.js';

const ZONE = 'alerts.test';
const SECRET = 'exposure-alert-secret-1234';
const TAKEOVER: Rec = { name: `blog.${ZONE}`, type: 'CNAME', data: 'alerts-gone.github.io' };

t.test('instantAlert: min_severity for exposure findings, never for resolutions, always for the rest', async (t) => {
  const table: [string, string, string, boolean][] = [
    ['exposure', 'critical', 'medium', true],
    ['exposure', 'medium', 'medium', true],
    ['exposure', 'low', 'medium', false],
    ['exposure', 'info', 'info', true],
    ['exposure', 'high', 'critical', false],
    ['exposure_resolved', 'info', 'info', false],
    ['exposure_resolved', 'critical', 'info', false],
    ['liveness', 'low', 'critical', true],
    ['ssl_expiry', 'info', 'high', true],
  ];
  for (const [event_type, severity, min, want] of table)
    t.equal(instantAlert({ event_type, severity }, min), want, `${event_type} ${severity} on a ${min} row`);
});

t.test('a critical finding reaches a webhook; resolutions go to the digest only', async (t) => {
  // 07:00 UTC: the daily digest row below is first due at 09:00.
  const clock = manualClock('2026-03-02T07:00:00Z');
  // SPF and DMARC present, no CAA (a low finding), a GitHub Pages CNAME whose target is NXDOMAIN.
  const records: Rec[] = [
    { name: ZONE, type: 'TXT', data: 'v=spf1 -all' },
    { name: `_dmarc.${ZONE}`, type: 'TXT', data: 'v=DMARC1; p=reject' },
    TAKEOVER,
  ];
  const dns = await startExposureDns(records);
  const closed = await closedPort();
  const rx = await startWebhookReceiver();
  const s = await startApp(
    { DOMMON_DNS_SERVERS: dns.server },
    {
      clock,
      notify: { intervalMs: 600_000, retryWaitsMs: [50, 100, 200], attemptTimeoutMs: 2000 },
      exposure: {
        portFor: () => closed,
        options: { wordlist: ['blog', 'www'], connectTimeoutMs: 500, axfrTimeoutMs: 500 },
      },
    },
  );
  t.teardown(async () => {
    await s.close();
    await rx.close();
    await dns.close();
  });
  const delivery = s.app.notify.delivery;
  // One worker cycle, waiting for every delivery it starts (the worker's own timer is 10 minutes).
  const notifyNow = async () => {
    await delivery.fanOut();
    await delivery.digests();
    await delivery.deliverDue();
  };
  const ops = await s.app.services.access.createToken({ team: 'alerting', user: 'ops@alerting.test' });
  const sec = await s.app.services.access.createToken({ team: 'alerting', user: 'sec@alerting.test' });
  const api = client(s.url, ops.token);
  const secApi = client(s.url, sec.token);

  // ops: signed instant webhook with the default min_severity (medium), and a daily Slack digest.
  const hook = await api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: `${rx.url}?ops`, secret_key: SECRET },
  });
  t.equal(hook.status, 200);
  t.equal(hook.body.min_severity, 'medium', 'instant rows default to medium');
  const digestRow = await api.put('/api/v1/notifications/settings/slack', {
    delivery_class: 'digest',
    frequency_days: 1,
    notification_time: '09:00:00',
    config: { webhook_url: `${rx.url}?digest` },
  });
  t.equal(digestRow.status, 200);
  // sec: an unsigned webhook from low up.
  const low = await secApi.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    min_severity: 'low',
    config: { webhook_url: `${rx.url}?sec` },
  });
  t.equal(low.status, 200);
  t.equal(low.body.min_severity, 'low');
  // A digest covers the events after its row was created (and after its last send).
  clock.advance(60_000);

  // Verify the domain through the DNS peer, then switch exposure scanning on.
  const dom = await api.post('/api/v1/domains', { domain: ZONE });
  t.equal(dom.status, 201);
  const id: string = dom.body.id;
  t.equal((await api.post(`/api/v1/domains/${id}/exposure/scans`)).status, 403, 'no scan before verification');
  t.equal((await api.put(`/api/v1/domains/${id}/exposure`, { enabled: true })).status, 403);
  records.push({ name: `_dommon-verify.${ZONE}`, type: 'TXT', data: dom.body.verification_token });
  const verified = await api.post(`/api/v1/domains/${id}/verification`);
  t.equal(verified.status, 200);
  t.equal(verified.body.record_found, true);
  t.equal(verified.body.is_verified, true);
  const enabled = await api.put(`/api/v1/domains/${id}/exposure`, { enabled: true });
  t.equal(enabled.status, 200);
  t.equal(enabled.body.exposure_monitoring_enabled, true);

  const scan = async () => {
    const r = await api.post(`/api/v1/domains/${id}/exposure/scans`);
    t.equal(r.status, 202);
    await s.app.services.exposure.drain();
    const done = await api.get(`/api/v1/exposure/scans/${r.body.id}`);
    t.equal(done.body.status, 'completed', JSON.stringify(done.body));
    return done.body;
  };
  // Other workers (registration look-ups against the closed RDAP port) may alert too: look at exposure only.
  const exposureAlerts = (path: string) =>
    rx.requests.filter((r) => r.path === `/hook?${path}` && String(r.json?.event_type).startsWith('exposure'));

  await scan();
  const findings = (await api.get(`/api/v1/domains/${id}/exposure/findings`)).body.data as {
    id: string;
    category: string;
    severity: string;
    host: string;
    title: string;
  }[];
  t.same(findings.map((f) => `${f.severity} ${f.category} ${f.host}`).sort(), [
    `critical subdomain_takeover blog.${ZONE}`,
    `low dns_misconfiguration ${ZONE}`,
  ]);
  const takeover = findings.find((f) => f.category === 'subdomain_takeover')!;

  await notifyNow();
  const opsAlerts = exposureAlerts('ops');
  t.equal(opsAlerts.length, 1, 'ops (min_severity medium) gets the critical finding, not the low one');
  const alert: Received = opsAlerts[0]!;
  t.equal(alert.method, 'POST');
  t.equal(alert.headers['content-type'], 'application/json');
  t.ok(
    verifySignature(alert.raw, alert.headers['x-signature'], SECRET),
    'X-Signature is the HMAC-SHA256 of the raw body',
  );
  t.notOk(verifySignature(alert.raw, alert.headers['x-signature'], 'another-secret'));
  t.match(alert.json, {
    event_type: 'exposure',
    severity: 'critical',
    category: 'subdomain_takeover',
    team: 'alerting',
    user: 'ops@alerting.test',
    domain_id: id,
    domain: ZONE,
    endpoint_id: null,
    message: `New critical exposure finding on ${ZONE}: ${takeover.title}`,
    details: {
      host: `blog.${ZONE}`,
      provider: 'GitHub Pages',
      finding_id: takeover.id,
      change: 'new',
      evidence: /alerts-gone\.github\.io.*NXDOMAIN/,
      remediation: /GitHub Pages/,
    },
  });
  const secAlerts = exposureAlerts('sec');
  t.same(
    secAlerts.map((r) => `${r.json.severity} ${r.json.category}`).sort(),
    ['critical subdomain_takeover', 'low dns_misconfiguration'],
    'sec (min_severity low) gets both',
  );
  t.equal(secAlerts[0]!.headers['x-signature'], undefined, 'no secret, no signature');

  // The record is fixed: the finding resolves, an `exposure_resolved` event is written ...
  records.splice(records.indexOf(TAKEOVER), 1);
  clock.advance(60_000);
  await scan();
  t.equal((await api.get(`/api/v1/exposure/findings/${takeover.id}`)).body.status, 'resolved');
  const resolved = (await s.app.store.events.list(ops.team_id)).filter((e) => e.event_type === 'exposure_resolved');
  t.equal(resolved.length, 1);
  t.match(resolved[0], {
    severity: 'info',
    category: 'subdomain_takeover',
    domain_id: id,
    message: `Resolved exposure finding on ${ZONE}: ${takeover.title}`,
  });
  t.match(JSON.parse(resolved[0]!.details), { host: `blog.${ZONE}`, finding_id: takeover.id, change: 'resolved' });

  // ... which the fan-out takes without an instant delivery to anyone (not even the info-level row).
  const before = rx.requests.length;
  await notifyNow();
  t.equal(await delivery.pendingEvents(), 0, 'the resolution was fanned out');
  const rows = await s.app.store.db
    .selectFrom('deliveries')
    .select('id')
    .where('event_id', '=', resolved[0]!.id)
    .execute();
  t.equal(rows.length, 0, 'no instant delivery for a resolution');
  t.equal(rx.requests.length, before, 'nothing sent before the digest is due');

  // 09:00: the digest lists the findings and the resolution (min_severity does not apply to digests).
  clock.set('2026-03-02T09:00:01Z');
  await notifyNow();
  const digests = rx.requests.filter((r) => r.path === '/hook?digest');
  t.equal(digests.length, 1, 'one digest');
  const lines = (digests[0]!.json.blocks as { type: string; text?: { text: string } }[])
    .filter((b) => b.type === 'section' && !b.text!.text.startsWith('*'))
    .map((b) => b.text!.text)
    .join('\n');
  t.match(lines, `[INFO] Exposure finding resolved: ${ZONE} - Resolved exposure finding on ${ZONE}: ${takeover.title}`);
  t.match(lines, `[CRITICAL] Exposure finding: ${ZONE} - New critical exposure finding`);
  t.match(lines, `[LOW] Exposure finding: ${ZONE} - New low exposure finding`);

  // The CNAME comes back: the finding re-opens and alerts again.
  records.push(TAKEOVER);
  clock.advance(60_000);
  await scan();
  await notifyNow();
  const again = exposureAlerts('ops');
  t.equal(again.length, 2);
  t.match(again[1]!.json, {
    event_type: 'exposure',
    severity: 'critical',
    details: { finding_id: takeover.id, change: 'reopened' },
  });
  t.ok(verifySignature(again[1]!.raw, again[1]!.headers['x-signature'], SECRET));
});
