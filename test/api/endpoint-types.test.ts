// The smtp and imap endpoint types through the API: validation (400 with the error body), full_url,
// filters; then the running daemon against loopback mail peers: the TLS worker reads the certificate
// behind STARTTLS and an expired one gives the same ssl_status, event and endpoint status as https;
// liveness is up for a STARTTLS server and down with a clear reason for one without STARTTLS.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { issue, makeCa } from '../support/certs.js';
import { startImap } from '../support/imap.js';
import { startSmtp } from '../support/smtp.js';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { waitFor } from '../support/wait.js';
import { ENDPOINT_TYPES } from '../../src/probes/registry.js';

t.setTimeout(120_000);

t.test('smtp and imap endpoints: create, full_url, filters, and 400 for bad input', async (t) => {
  // An API node: no scheduler runs, so the TLS worker does not inspect the new endpoints (whose names
  // resolve nowhere) and turn the `ssl_status` read below from unknown into error first.
  const s = await startApp({ DOMMON_ROLE: 'api' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;

  const smtp = await api.post('/api/v1/endpoints', {
    domain_id: d.id,
    name: 'mx',
    endpoint_type: 'smtp',
    subdomain: 'mail',
  });
  t.equal(smtp.status, 201);
  t.match(smtp.body, { endpoint_type: 'smtp', subdomain: 'mail', port: null, full_url: 'smtp://mail.example.com:25' });
  const sub = await api.post('/api/v1/endpoints', {
    domain_id: d.id,
    name: 'submission',
    endpoint_type: 'smtp',
    subdomain: 'mail',
    port: 587,
  });
  t.equal(sub.body.full_url, 'smtp://mail.example.com:587');
  const imaps = await api.post('/api/v1/endpoints', {
    domain_id: d.id,
    name: 'imaps',
    endpoint_type: 'imap',
    subdomain: 'mail',
    port: 993,
  });
  t.equal(imaps.status, 201);
  t.equal(imaps.body.full_url, 'imap://mail.example.com:993');
  const imap = await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'imap', endpoint_type: 'imap' });
  t.equal(imap.body.full_url, 'imap://example.com:143');

  const list = await api.get(`/api/v1/endpoints?endpoint_type=smtp&domain_id=${d.id}`);
  t.equal(list.status, 200);
  t.same(list.body.data.map((e: any) => e.name).sort(), ['mx', 'submission']);
  const detail = await api.get(`/api/v1/endpoints/${imaps.body.id}`);
  t.match(detail.body, { endpoint_type: 'imap', ssl_status: 'unknown', full_url: 'imap://mail.example.com:993' });

  const moved = await api.put(`/api/v1/endpoints/${smtp.body.id}`, { endpoint_type: 'imap', port: 993 });
  t.equal(moved.status, 200);
  t.equal(moved.body.full_url, 'imap://mail.example.com:993', 'a type change keeps the host');

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ endpoint_type: 'smtp', port: 0 }, /^port: /],
    [{ endpoint_type: 'smtp', port: 65536 }, /^port: /],
    [{ endpoint_type: 'imap', port: '993' }, /^port: /],
    [{ endpoint_type: 'imap', port: 99.5 }, /^port: /],
    [{ endpoint_type: 'pop3' }, new RegExp(`^endpoint_type: must be one of ${ENDPOINT_TYPES.join(', ')}$`)],
    [{ endpoint_type: 'SMTP' }, /^endpoint_type: /],
    [{ endpoint_type: 'smtp', subdomain: 'a b' }, /subdomain/],
    [{ endpoint_type: 'smtp', tls_mode: 'implicit' }, /^tls_mode: unknown field$/],
  ];
  for (const [body, msg] of bad) {
    const r = await api.post('/api/v1/endpoints', { domain_id: d.id, name: `bad-${JSON.stringify(body)}`, ...body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(
      r.body,
      { error: msg, code: 'VALIDATION_ERROR', path: '/api/v1/endpoints', timestamp: String },
      `${JSON.stringify(body)}: the error body (${r.body.error})`,
    );
  }
  const badUpdate = await api.put(`/api/v1/endpoints/${imap.body.id}`, { port: -1 });
  t.equal(badUpdate.status, 400);
  t.match(badUpdate.body.error, /^port: /);
  const badFilter = await api.get('/api/v1/endpoints?endpoint_type=pop3');
  t.equal(badFilter.status, 400);
  t.match(badFilter.body.error, /^endpoint_type: /);
});

t.test('the daemon: certificates behind STARTTLS, expiry as for https, liveness with a clear reason', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa('Daemon Mail CA');
  const expired = issue({
    ca,
    cn: 'mail.example.com',
    sans: ['mail.example.com', 'www.example.com'],
    fromDays: -90,
    toDays: -3,
  });
  const soon = issue({ ca, cn: 'mail.example.com', toDays: 10 });
  const smtpExpired = await startSmtp({ cert: expired });
  const httpsExpired = await startHttpTarget({ tls: expired });
  const imapSoon = await startImap({ cert: soon });
  const smtpPlain = await startSmtp({ tls: 'none' });
  // Polled often: no rate limit in the way.
  const s = await startApp(
    { DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '100000' },
    { probes: { ca: ca.cert } },
  );
  t.teardown(async () => {
    await s.close();
    for (const p of [smtpExpired, httpsExpired, imapSoon, smtpPlain]) await p.close();
    await dns.close();
  });
  const { token, team_id } = await s.app.services.access.createToken({ team: 'mail' });
  const api = client(s.url, token);
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const create = async (name: string, endpoint_type: string, subdomain: string, port: number, liveness?: object) => {
    const r = await api.post('/api/v1/endpoints', {
      domain_id: d.id,
      name,
      endpoint_type,
      subdomain,
      port,
      ...(liveness ? { liveness } : {}),
    });
    t.equal(r.status, 201, r.body.error);
    return r.body;
  };
  const mx = await create('mx', 'smtp', 'mail', smtpExpired.port, { interval_seconds: 1 });
  const web = await create('web', 'https', 'www', httpsExpired.port);
  const box = await create('box', 'imap', 'mail', imapSoon.port);
  const plain = await create('plain', 'smtp', 'mail', smtpPlain.port, { interval_seconds: 1, failure_threshold: 1 });

  // The TLS worker inspects new endpoints within seconds.
  const status = async (id: string) => (await api.get(`/api/v1/endpoints/${id}/status`)).body;
  await waitFor(
    async () =>
      (await Promise.all([mx, web, box, plain].map((e) => status(e.id)))).every((x) => x.ssl.status !== 'unknown'),
    20_000,
    200,
  );
  const [smx, sweb, sbox, splain] = await Promise.all([mx, web, box, plain].map((e) => status(e.id)));
  t.equal(smx.ssl.status, 'expired', 'smtp: the expired certificate behind STARTTLS');
  t.equal(sweb.ssl.status, 'expired', 'https: the same certificate');
  t.same(smx.ssl, sweb.ssl, 'the same ssl block (status, expiry date, days left, issuer) as https');
  t.ok(smx.ssl.days_until_expiry <= -3 && smx.ssl.days_until_expiry >= -4, `${smx.ssl.days_until_expiry} days`);
  t.equal(smx.overall_health, 'critical');
  t.equal(sbox.ssl.status, 'expiring_soon', 'imap: 10 days left');
  t.ok(sbox.ssl.days_until_expiry >= 9 && sbox.ssl.days_until_expiry <= 10);
  t.equal(splain.ssl.status, 'error', 'no STARTTLS: the certificate cannot be read');
  const det = (await api.get(`/api/v1/endpoints/${mx.id}`)).body;
  t.equal(det.ssl_status, 'expired', 'endpoint detail');
  t.equal(det.ssl_expiry_date, smx.ssl.expiry_date);
  t.match(det.ssl_expiry_date, /^\d{4}-\d{2}-\d{2}$/);

  const events = (await s.app.store.events.list(team_id)).filter((e) => e.event_type === 'ssl_expiry');
  const of = (id: string) =>
    events
      .filter((e) => e.endpoint_id === id)
      .map((e) => `${e.category}/${e.severity}`)
      .sort();
  t.same(of(mx.id), ['certificate_expired/critical'], 'smtp: certificate_expired, as for https');
  t.same(of(mx.id), of(web.id));
  t.same(of(box.id), ['certificate_expiring/medium'], 'imap: 10 days left, the 14-day window');
  const mxEvent = events.find((e) => e.endpoint_id === mx.id)!;
  t.match(
    mxEvent.message,
    new RegExp(
      `^mx \\(smtp://mail\\.example\\.com:${smtpExpired.port}\\) certificate EXPIRED on \\d{4}-\\d{2}-\\d{2}$`,
    ),
  );
  t.equal(of(plain.id).length, 0, 'a failed handshake raises no expiry event');

  // Liveness through the scheduler: the STARTTLS server is up (its expired certificate is the TLS
  // inspection's business), the one without STARTTLS down with the reason.
  const live = async (id: string) => (await api.get(`/api/v1/liveness/${id}/status`)).body;
  await waitFor(
    async () => (await live(mx.liveness.id)).last_check !== null && (await live(plain.liveness.id)).status === 'down',
    20_000,
    200,
  );
  const lmx = await live(mx.liveness.id);
  t.match(lmx, { status: 'up', last_check_successful: true, status_code: 220, last_error: null });
  const lplain = await live(plain.liveness.id);
  t.match(lplain, { status: 'down', last_check_successful: false });
  t.match(lplain.last_error, /^tls: the server does not offer STARTTLS \(EHLO lists \d+ other extensions?\)$/);
  const downEvents = (await s.app.store.events.list(team_id)).filter((e) => e.category === 'endpoint_down');
  t.match(
    downEvents.find((e) => e.endpoint_id === plain.id)?.message,
    /plain \(smtp:\/\/mail\.example\.com:\d+\) is DOWN after 1 failed check\(s\): tls: the server does not offer STARTTLS/,
  );
});
