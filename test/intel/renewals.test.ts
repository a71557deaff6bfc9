// Renewals (domains and certificates) and the domain status view, with an injected clock.
import t from 'tap';
import { client, startApp } from '../support/app.js';

const DAY = 86_400_000;
const day = (base: number, n: number) => new Date(base + n * DAY).toISOString().slice(0, 10);

t.test('renewals filters, windows, pagination; status variants', async (t) => {
  let now = Date.parse('2026-03-10T12:00:00Z');
  const clock = { now: () => new Date(now) };
  // An API node: no scheduler runs, so the TLS worker does not inspect the new https endpoints and
  // write their certificate rows beside the ones this test writes (a unique key on endpoint_id).
  const s = await startApp({ DOMMON_ROLE: 'api' }, { clock });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const mk = async (domain: string, offset: number | null) =>
    (await api.post('/api/v1/domains', { domain, ...(offset === null ? {} : { expiry_date: day(now, offset) }) })).body
      .id as string;
  const ids = {
    expired: await mk('expired.com', -5),
    soon10: await mk('soon10.com', 10),
    soon30: await mk('soon30.com', 30),
    active31: await mk('active31.com', 31),
    far: await mk('far.com', 200),
    none: await mk('none.com', null),
  };

  const all = await api.get('/api/v1/renewals');
  t.equal(all.status, 200);
  t.equal(all.body.type, 'domains');
  t.equal(all.body.pagination.total, 5, 'domains without a known expiry are not renewals');
  t.same(
    all.body.data.map((r: any) => r.name),
    ['expired.com', 'soon10.com', 'soon30.com', 'active31.com', 'far.com'],
    'soonest first',
  );
  t.same(all.body.renewals, all.body.data);
  const rec = all.body.data[1];
  t.same(rec, {
    id: ids.soon10,
    kind: 'domain',
    name: 'soon10.com',
    domain_id: ids.soon10,
    domain: 'soon10.com',
    endpoint_id: null,
    expiry_date: day(now, 10),
    days_until_expiry: 10,
    status: 'expiring_soon',
    registrar: null,
    issuer: null,
    source: 'manual',
  });

  const by = async (q: string) => (await api.get(`/api/v1/renewals?${q}`)).body.data.map((r: any) => r.name);
  t.same(await by('status=expired'), ['expired.com']);
  t.same(await by('status=expiring_soon'), ['soon10.com', 'soon30.com'], '30 days is still "soon"');
  t.same(await by('status=active'), ['active31.com', 'far.com']);
  t.same(await by(`from=${new Date(now).toISOString()}&to=${new Date(now + 60 * DAY).toISOString()}`), [
    'soon10.com',
    'soon30.com',
    'active31.com',
  ]);
  t.same(await by(`to=${day(now, 0)}`), ['expired.com'], 'a plain date is accepted');
  const p = (await api.get('/api/v1/renewals?limit=2&offset=2')).body;
  t.same(
    p.data.map((r: any) => r.name),
    ['soon30.com', 'active31.com'],
  );
  t.same([p.pagination.total, p.pagination.limit, p.pagination.offset, p.pagination.has_more], [5, 2, 2, true]);
  t.equal((await api.get('/api/v1/renewals?type=both')).status, 400);
  t.equal((await api.get('/api/v1/renewals?status=soon')).status, 400);
  t.equal((await api.get('/api/v1/renewals?from=yesterday')).status, 400);

  // Time passes: 11 days later soon10 has expired and active31 is expiring soon.
  now += 11 * DAY;
  t.same(await by('status=expired'), ['expired.com', 'soon10.com']);
  t.same(await by('status=expiring_soon'), ['soon30.com', 'active31.com']);

  // Certificates: endpoints with TLS inspection rows (written as the TLS checker does).
  const ep = async (domainId: string, name: string) =>
    (await api.post('/api/v1/endpoints', { domain_id: domainId, name, endpoint_type: 'https', subdomain: name })).body
      .id as string;
  const e1 = await ep(ids.far, 'www');
  const e2 = await ep(ids.far, 'api');
  const e3 = await ep(ids.none, 'shop');
  const cert = (endpoint_id: string, ssl_status: string, notAfterDays: number, issuer: string) =>
    s.app.store.db
      .insertInto('endpoint_certificates')
      .values({
        endpoint_id,
        ssl_status,
        subject: 'CN=x',
        issuer,
        sans: '[]',
        not_before: null,
        not_after: new Date(now + notAfterDays * DAY).toISOString(),
        serial: null,
        fingerprint256: null,
        protocol: null,
        trusted: 1,
        hostname_match: 1,
        error: null,
        alerted_window: null,
        checked_at: new Date(now).toISOString(),
        next_check_at: null,
      })
      .execute();
  await cert(e1, 'valid', 80, "CN=R11, O=Let's Encrypt");
  await cert(e2, 'expiring_soon', 12, 'CN=WE1, O=Google Trust Services');
  await cert(e3, 'expired', -3, 'CN=Old CA');
  const certs = (await api.get('/api/v1/renewals?type=certificates')).body;
  t.equal(certs.type, 'certificates');
  t.same(
    certs.data.map((r: any) => [r.name, r.status, r.days_until_expiry]),
    [
      ['https://shop.none.com/', 'expired', -3],
      ['https://api.far.com/', 'expiring_soon', 12],
      ['https://www.far.com/', 'active', 80],
    ],
  );
  t.equal(certs.data[1].kind, 'certificate');
  t.equal(certs.data[1].endpoint_id, e2);
  t.equal(certs.data[1].domain_id, ids.far);
  t.equal(certs.data[1].issuer, 'CN=WE1, O=Google Trust Services');
  t.same(
    (await api.get('/api/v1/renewals?type=certificates&status=expiring_soon')).body.data.map((r: any) => r.endpoint_id),
    [e2],
  );
  t.equal((await api.get('/api-renewals?type=certificates')).body.pagination.total, 3, 'User API path');

  // Status of far.com: registration 189 days (100), worst certificate expiring soon (50); no security/liveness yet.
  await s.app.services.intel.sweep();
  const st = (await api.get(`/api/v1/domains/${ids.far}/status`)).body;
  t.equal(st.domain_id, ids.far);
  t.equal(st.whois_expiry, day(Date.parse('2026-03-10T12:00:00Z'), 200));
  t.equal(st.domain, 'far.com');
  t.equal(st.is_verified, false);
  t.equal(st.health_score, 75);
  t.equal(st.health_grade, 'B');
  t.equal(st.overall_status, 'warning');
  t.equal(st.whois.expiry_date, st.whois_expiry);
  t.equal(st.whois.days_until_expiry, 189);
  t.equal(st.ssl.status, 'expiring_soon');
  t.equal(st.ssl.expiry_date, day(now, 12));
  const ex = (await api.get(`/api/v1/domains/${ids.expired}/status`)).body;
  t.equal(ex.overall_status, 'critical');
  t.equal(ex.health_grade, 'F');
  const list = (await api.get('/api/v1/domains')).body.data;
  t.equal(list.find((d: any) => d.id === ids.far).health_grade, 'B');
});
