// Registration data end to end: the real app against loopback RDAP, WHOIS and DNS peers.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, firstLookupsDone, startApp, tempDir } from '../support/app.js';
import { startRdapServer, rdapDomain } from '../support/rdap-server.js';
import { startWhoisServer, verisignText, nominetText, denicText, RATE_LIMIT_TEXT } from '../support/whois-server.js';
import { startDnsServer } from '../support/dns-server.js';
import { closedPort } from '../support/targets.js';
import { startTcpWhois } from '../support/tcp-whois.js';
import { BOOTSTRAP_FILE } from '../../src/probes/rdap.js';
import { daysUntil } from '../../src/domain/clock.js';

const DAY = 86_400_000;

t.test('RDAP success, WHOIS fallback (Verisign, Nominet, DENIC), rate limit, changes and events', async (t) => {
  const rdap = await startRdapServer({
    'rdap-ok.com': rdapDomain('rdap-ok.com', {
      registrar: 'RDAP Registrar Inc.',
      expiry: '2030-05-01T00:00:00Z',
      created: '2001-01-01T00:00:00Z',
      nameservers: ['ns1.host.test', 'ns2.host.test'],
      status: ['client transfer prohibited'],
      signed: true,
    }),
    'fallback.com': { status: 503 },
    'example.co.uk': { status: 500 },
    'example.de': { status: 502 },
    'limited.org': { status: 429, headers: { 'retry-after': '120' } },
  });
  const whois = await startWhoisServer({
    'fallback.com': verisignText('fallback.com', {
      registrar: 'Whois Registrar LLC',
      expiry: '2031-02-03T04:00:00Z',
      nameservers: ['ns1.whois.test'],
    }),
    'example.co.uk': nominetText('example.co.uk', {
      registrar: 'Nominet Member Ltd',
      expiry: '26-Nov-2030',
      nameservers: ['ns1.uk.test', 'ns2.uk.test'],
    }),
    'example.de': denicText('example.de', { nameservers: ['ns1.de.test'] }),
    'limited.org': RATE_LIMIT_TEXT,
  });
  const dns = await startDnsServer({});
  const s = await startApp({
    DOMMON_RDAP_URL: rdap.url,
    DOMMON_WHOIS_SERVER: whois.address,
    DOMMON_DNS_SERVERS: dns.address,
  });
  t.teardown(async () => {
    await s.close();
    await Promise.all([rdap.close(), whois.close(), dns.close()]);
  });
  const api = client(s.url, await s.token());
  const add = async (name: string) => (await api.post('/api/v1/domains', { domain: name })).body.id as string;

  // RDAP success
  const okId = await add('rdap-ok.com');
  const reg = await api.post(`/api/v1/domains/${okId}/registration`);
  t.equal(reg.status, 200);
  t.equal(reg.body.state, 'ok');
  t.equal(reg.body.source, 'rdap');
  t.equal(reg.body.registrar, 'RDAP Registrar Inc.');
  t.equal(reg.body.expiry_date, '2030-05-01');
  t.same(reg.body.nameservers, ['ns1.host.test', 'ns2.host.test']);
  t.equal(reg.body.transfer_lock, true);
  t.equal(reg.body.dnssec_signed, true);
  t.ok(rdap.requests.includes('/domain/rdap-ok.com'));
  const detail = await api.get(`/api/v1/domains/${okId}`);
  t.same(detail.body.whois.registrar, 'RDAP Registrar Inc.');
  t.equal(detail.body.whois.expiry_date, '2030-05-01');
  t.same(detail.body.whois.nameservers, ['ns1.host.test', 'ns2.host.test']);
  const list = await api.get('/api/v1/domains');
  t.equal(list.body.data.find((d: any) => d.id === okId).expiry_date, '2030-05-01');
  const statusA = await api.get(`/api/v1/domains/${okId}/status`);
  t.equal(statusA.body.domain_id, okId);
  t.equal(statusA.body.whois_expiry, '2030-05-01');
  t.equal(statusA.body.registrar, 'RDAP Registrar Inc.');
  t.ok(statusA.body.last_checked_at);

  // RDAP 503 -> WHOIS (Verisign style)
  const fbId = await add('fallback.com');
  const fb = (await api.post(`/api/v1/domains/${fbId}/registration`)).body;
  t.equal(fb.state, 'ok');
  t.equal(fb.source, 'whois');
  t.equal(fb.registrar, 'Whois Registrar LLC');
  t.equal(fb.expiry_date, '2031-02-03');
  t.ok(whois.queries.includes('fallback.com'));

  // Nominet style (.uk), public-suffix aware: www.example.co.uk asks for example.co.uk
  const ukId = await add('www.example.co.uk');
  const uk = (await api.post(`/api/v1/domains/${ukId}/registration`)).body;
  t.equal(uk.state, 'ok');
  t.equal(uk.registrar, 'Nominet Member Ltd');
  t.equal(uk.expiry_date, '2030-11-26');
  t.ok(rdap.requests.includes('/domain/example.co.uk'));

  // DENIC style (.de): queried as "-T dn", no expiry published
  const deId = await add('example.de');
  const de = (await api.post(`/api/v1/domains/${deId}/registration`)).body;
  t.equal(de.state, 'ok');
  t.same(de.nameservers, ['ns1.de.test']);
  t.equal(de.expiry_date, null);
  t.ok(whois.queries.includes('-T dn example.de'));

  // RDAP 404: not registered
  const nfId = await add('unregistered.com');
  const nf = (await api.post(`/api/v1/domains/${nfId}/registration`)).body;
  t.equal(nf.state, 'error');
  t.match(nf.reason, /not registered/);

  // Registrar + nameserver change: history and whois events
  rdap.domains['rdap-ok.com'] = rdapDomain('rdap-ok.com', {
    registrar: 'New Registrar SA',
    expiry: '2031-05-01T00:00:00Z',
    nameservers: ['ns1.other.test'],
    status: ['client transfer prohibited'],
    signed: true,
  });
  const changed = (await api.post(`/api/v1/domains/${okId}/registration`)).body;
  t.equal(changed.registrar, 'New Registrar SA');
  t.same(changed.history.map((h: any) => h.field).sort(), ['expiry_date', 'nameservers', 'registrar']);
  const events = await s.app.store.events.list((await s.app.services.access.requireTeam('test-team')).id);
  const whoisEvents = events.filter((e) => e.event_type === 'whois' && e.domain_id === okId);
  t.equal(whoisEvents.length, 3);
  t.ok(whoisEvents.some((e) => /registrar changed from RDAP Registrar Inc\. to New Registrar SA/.test(e.message)));
  t.ok(whoisEvents.some((e) => /renewed/.test(e.message)));

  // Renaming drops the old name's registration data (and history goes on).
  t.equal((await api.put(`/api/v1/domains/${okId}`, { domain: 'renamed.com' })).status, 200);
  const renamed = (await api.get(`/api/v1/domains/${okId}/registration`)).body;
  t.equal(renamed.registrar, null);
  t.not(renamed.state, 'ok');
  t.equal((await api.get(`/api/v1/domains/${okId}`)).body.whois.registrar, null);
  // Rate-limited by RDAP (429 + Retry-After) and by WHOIS (text): explicit error with the reason, retried later
  const limId = await add('limited.org');
  const before = Date.now();
  const lim = (await api.post(`/api/v1/domains/${limId}/registration`)).body;
  t.equal(lim.state, 'error');
  // (the scheduler may have asked first: then the reason names the back-off instead)
  t.match(lim.reason, /RDAP .*(rate limited \(429\)|backing off until)/);
  t.match(lim.reason, /WHOIS .*(rate limited|backing off until)/);
  t.ok(Date.parse(lim.next_check_at) - before >= 110_000, 'next check honours Retry-After / back-off');
  const limDetail = (await api.get(`/api/v1/domains/${limId}/registration`)).body;
  t.equal(limDetail.state, 'error');
  const rdapHits = rdap.requests.filter((r) => r === '/domain/limited.org').length;
  const again = (await api.post(`/api/v1/domains/${limId}/registration`)).body;
  t.match(again.reason, /backing off until/);
  t.equal(
    rdap.requests.filter((r) => r === '/domain/limited.org').length,
    rdapHits,
    'backed-off server is not asked again',
  );
});

t.test('scheduler fills registration data for a new domain by itself, never crashing on failures', async (t) => {
  const rdap = await startRdapServer({
    'auto.com': rdapDomain('auto.com', {
      registrar: 'Auto Reg',
      expiry: '2032-01-01T00:00:00Z',
      nameservers: ['ns.auto.test'],
    }),
  });
  const dns = await startDnsServer({ 'auto.com': { TXT: ['v=spf1 -all'] } });
  const s = await startApp({ DOMMON_RDAP_URL: rdap.url, DOMMON_DNS_SERVERS: dns.address });
  t.teardown(async () => {
    await s.close();
    await Promise.all([rdap.close(), dns.close()]);
  });
  const api = client(s.url, await s.token());
  const id = (await api.post('/api/v1/domains', { domain: 'auto.com' })).body.id;
  const broken = (await api.post('/api/v1/domains', { domain: 'broken.com' })).body.id; // RDAP 404, WHOIS refused
  let d: any;
  for (let i = 0; i < 50; i++) {
    d = (await api.get(`/api/v1/domains/${id}`)).body;
    const b = (await api.get(`/api/v1/domains/${broken}/registration`)).body;
    if (d.whois.registrar && d.health_grade && b.state !== 'unknown' && (await s.app.store.security.get(id))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(d.whois.registrar, 'Auto Reg');
  t.equal(d.whois.expiry_date, '2032-01-01');
  t.ok(d.health_score !== null, 'health computed after the refresh');
  const sec = await s.app.store.security.get(id);
  t.ok(sec, 'security refreshed by the scheduler too');
  t.equal(sec!.spf, 'pass');
  const b = (await api.get(`/api/v1/domains/${broken}/registration`)).body;
  t.equal(b.state, 'error');
  const sched = await s.app.store.schedule.get('registration', id);
  t.ok(sched && Date.parse(sched.next_run_at) > Date.now() + 3_600_000, 'next run follows DOMMON_CHECK_INTERVAL');
});

t.test('unsupported TLD: explicit state and reason; manual expiry_date wins', async (t) => {
  const dataDir = tempDir();
  // A fresh last-good bootstrap copy in the data dir: no refresh is attempted, and .zz has no service.
  fs.writeFileSync(
    path.join(dataDir, BOOTSTRAP_FILE),
    JSON.stringify({ services: [[['com'], ['http://127.0.0.1:9/']]], fetched_at: new Date().toISOString() }),
  );
  // IANA (on loopback) does not know .zz either.
  const iana = await startTcpWhois(() => '% IANA WHOIS server\n\n% This query returned 0 objects.\n');
  const s = await startApp(
    { DOMMON_RDAP_URL: '', DOMMON_WHOIS_SERVER: '', DOMMON_IANA_WHOIS: iana.address },
    { dataDir },
  );
  t.teardown(async () => {
    await s.close();
    await iana.close();
  });
  const api = client(s.url, await s.token());
  const id = (await api.post('/api/v1/domains', { domain: 'example.zz' })).body.id;
  // The scheduler's own first look-up of the new domain runs first, so the explicit one below does
  // not race it to IANA (two referral queries at once): the referral is asked once and then known.
  await firstLookupsDone(s, id);
  const r = (await api.post(`/api/v1/domains/${id}/registration`)).body;
  t.equal(r.state, 'unsupported');
  t.match(r.reason, /no RDAP service for \.zz/);
  t.match(r.reason, /no known WHOIS server for \.zz \(\.zz is not a TLD IANA knows\)/);
  t.same(iana.queries, ['zz'], 'IANA asked for its referral');
  let d = (await api.get(`/api/v1/domains/${id}`)).body;
  t.equal(
    (await api.get(`/api/v1/domains/${id}/registration`)).body.state,
    'unsupported',
    'stays visible after a read',
  );
  t.equal(d.expiry_date, null);
  const upd = await api.put(`/api/v1/domains/${id}`, { expiry_date: '2031-07-01' });
  t.equal(upd.status, 200);
  d = (await api.get(`/api/v1/domains/${id}`)).body;
  t.equal(d.expiry_date, '2031-07-01');
  t.equal(d.whois.expiry_date, '2031-07-01');
  const withOverride = (await api.get(`/api/v1/domains/${id}/registration`)).body;
  t.equal(withOverride.expiry_source, 'manual');
  t.equal(withOverride.effective_expiry_date, '2031-07-01');
  t.equal(withOverride.state, 'unsupported');
  const ev = await s.app.store.events.list((await s.app.services.access.requireTeam('test-team')).id);
  t.equal(ev.filter((e) => e.category === 'registration_unsupported').length, 1);
});

t.test('domain_expiry events once per window per expiry date (injected clock)', async (t) => {
  let now = Date.parse('2026-01-01T12:00:00Z');
  const clock = { now: () => new Date(now) };
  const rdap = await startRdapServer({
    'soon.com': rdapDomain('soon.com', {
      registrar: 'R',
      expiry: '2026-04-01T00:00:00Z',
      nameservers: ['ns.soon.test'],
    }),
  });
  const s = await startApp({ DOMMON_RDAP_URL: rdap.url }, { clock });
  t.teardown(async () => {
    await s.close();
    await rdap.close();
  });
  const api = client(s.url, await s.token());
  const id = (await api.post('/api/v1/domains', { domain: 'soon.com' })).body.id;
  const teamId = (await s.app.services.access.requireTeam('test-team')).id;
  const expiryEvents = async () =>
    (await s.app.store.events.list(teamId)).filter((e) => e.event_type === 'domain_expiry' && e.domain_id === id);
  const d = () => s.app.store.domains.byId(id).then((x) => x!);

  await api.post(`/api/v1/domains/${id}/registration`);
  t.equal((await expiryEvents()).length, 0, '90 days out: no alert');
  now += 31 * DAY; // 59 days left
  await api.post(`/api/v1/domains/${id}/registration`);
  await s.app.services.intel.registration.expiryAlert(await d());
  let ev = await expiryEvents();
  t.equal(ev.length, 1, 'one 60-day alert, however often it is checked');
  t.equal(JSON.parse(ev[0]!.details).window_days, 60);
  t.equal(ev[0]!.severity, 'medium');
  now += 30 * DAY; // 29 days left
  await s.app.services.intel.sweep();
  await s.app.services.intel.sweep();
  ev = await expiryEvents();
  t.equal(ev.length, 2);
  now += 16 * DAY; // 13 days left
  await s.app.services.intel.sweep();
  ev = await expiryEvents();
  t.same(ev.map((e) => JSON.parse(e.details).window_days).sort(), [15, 30, 60]);
  // Renewed: a new expiry date starts its own windows only when it nears.
  rdap.domains['soon.com'] = rdapDomain('soon.com', {
    registrar: 'R',
    expiry: '2027-04-01T00:00:00Z',
    nameservers: ['ns.soon.test'],
  });
  await api.post(`/api/v1/domains/${id}/registration`);
  t.equal((await expiryEvents()).length, 3);
  const status = (await api.get(`/api/v1/domains/${id}/status`)).body;
  t.equal(status.whois.expiry_date, '2027-04-01');
  t.equal(status.whois.days_until_expiry, daysUntil('2027-04-01', new Date(now)));
  t.equal(status.whois.days_until_expiry, 378);
});

t.test('a failed look-up keeps the last known expiry, marked stale, with when it was read', async (t) => {
  let now = Date.parse('2026-03-01T12:00:00Z');
  const clock = { now: () => new Date(now) };
  const rdap = await startRdapServer({
    'kept.com': rdapDomain('kept.com', {
      registrar: 'Kept Registrar',
      expiry: '2027-06-01T00:00:00Z',
      nameservers: ['ns.kept.test'],
      status: ['client transfer prohibited'],
    }),
  });
  const closed = await closedPort();
  // WHOIS (the fallback) points at a closed loopback port: both sources fail at the network level.
  const s = await startApp({ DOMMON_RDAP_URL: rdap.url, DOMMON_WHOIS_SERVER: `127.0.0.1:${closed}` }, { clock });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const id = (await api.post('/api/v1/domains', { domain: 'kept.com' })).body.id;
  const first = (await api.post(`/api/v1/domains/${id}/registration`)).body;
  t.match(first, { state: 'ok', stale: false, expiry_date: '2027-06-01', checked_at: '2026-03-01T12:00:00.000Z' });

  await rdap.close(); // the registry is unreachable from now on
  now += DAY;
  const failed = (await api.post(`/api/v1/domains/${id}/registration`)).body;
  t.equal(failed.state, 'error');
  t.equal(failed.stale, true);
  t.match(failed.reason, /RDAP 127\.0\.0\.1:\d+: ECONNREFUSED.*WHOIS 127\.0\.0\.1:\d+: ECONNREFUSED/);
  t.match(
    failed,
    {
      expiry_date: '2027-06-01',
      registrar: 'Kept Registrar',
      nameservers: ['ns.kept.test'],
      transfer_lock: true,
      source: 'rdap',
    },
    'nothing cleared',
  );
  t.equal(failed.checked_at, '2026-03-01T12:00:00.000Z', 'checked_at is when the kept data was read');
  t.equal(failed.effective_expiry_date, '2027-06-01');
  t.ok(Date.parse(failed.next_check_at) > now, 'retried later');
  const detail = (await api.get(`/api/v1/domains/${id}`)).body;
  t.equal(detail.whois.expiry_date, '2027-06-01');
  t.equal(detail.expiry_date, '2027-06-01');
  const status = (await api.get(`/api/v1/domains/${id}/status`)).body;
  t.equal(status.whois?.expiry_date ?? status.whois_expiry, '2027-06-01');
  // Failing again changes nothing of what is known.
  now += DAY;
  const again = (await api.post(`/api/v1/domains/${id}/registration`)).body;
  t.match(again, { state: 'error', stale: true, expiry_date: '2027-06-01', checked_at: '2026-03-01T12:00:00.000Z' });
});

t.test('where look-ups go: registry suffixes, DOMMON_WHOIS_SERVERS and IANA referrals through the API', async (t) => {
  const dataDir = tempDir();
  // The RDAP bootstrap copy knows .com only (at a closed port), so every other name goes to WHOIS.
  fs.writeFileSync(
    path.join(dataDir, BOOTSTRAP_FILE),
    JSON.stringify({ services: [[['com'], ['http://127.0.0.1:9/']]], fetched_at: new Date().toISOString() }),
  );
  const centralnic = await startWhoisServer({
    'shop.uk.com': verisignText('shop.uk.com', {
      registrar: 'Suffix Registrar',
      expiry: '2029-09-09T00:00:00Z',
      nameservers: ['ns1.shop.test'],
    }),
  });
  const registry = await startWhoisServer({
    'example.qq': verisignText('example.qq', {
      registrar: 'QQ Registrar',
      expiry: '2028-08-08T00:00:00Z',
      nameservers: ['ns1.qq.test'],
    }),
  });
  const iana = await startTcpWhois((q) =>
    q === 'qq'
      ? `% IANA WHOIS server\n\ndomain:       QQ\n\nwhois:        ${registry.address}\n`
      : '% This query returned 0 objects.\n',
  );
  const s = await startApp(
    {
      DOMMON_RDAP_URL: '',
      DOMMON_WHOIS_SERVER: '',
      DOMMON_WHOIS_SERVERS: `uk.com=${centralnic.address}`,
      DOMMON_IANA_WHOIS: iana.address,
    },
    { dataDir },
  );
  // Only the look-ups asked for below: the scheduler's own first round of a new domain would ask the
  // same servers a second time whenever it came before the end (a loaded CI host: one more query each).
  await s.app.intel.pause();
  t.teardown(async () => {
    await s.close();
    await Promise.all([centralnic.close(), registry.close(), iana.close()]);
  });
  const api = client(s.url, await s.token());
  const add = async (name: string) => (await api.post('/api/v1/domains', { domain: name })).body.id as string;

  const shop = (await api.post(`/api/v1/domains/${await add('www.shop.uk.com')}/registration`)).body;
  t.match(
    shop,
    { state: 'ok', source: 'whois', registrar: 'Suffix Registrar', expiry_date: '2029-09-09' },
    'the registration of shop.uk.com, not of uk.com',
  );
  t.same(centralnic.queries, ['shop.uk.com']);
  t.same(iana.queries, [], 'a configured server needs no referral');

  const qq = (await api.post(`/api/v1/domains/${await add('example.qq')}/registration`)).body;
  t.match(qq, { state: 'ok', source: 'whois', registrar: 'QQ Registrar', expiry_date: '2028-08-08' });
  t.same(iana.queries, ['qq']);
  t.same(registry.queries, ['example.qq'], 'asked at the server IANA referred to');
  t.ok(fs.existsSync(path.join(dataDir, 'whois-referrals.json')), 'the referral is kept in the data directory');
});
