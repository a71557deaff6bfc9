// End to end: a scan of acme.test through the real app, test DNS server and loopback peers finds each
// exposure, writes events, resolves fixed findings, re-opens returning ones and sees expired certificates.
import t from 'tap';
import { startWorld, ZONE, type World } from '../support/exposure-world.js';
import { createValidator } from '../../src/api/validation.js';

const shapes = createValidator();

type Finding = {
  id: string;
  host: string;
  category: string;
  severity: string;
  title: string;
  status: string;
  details: { provider: string | null; evidence: string; remediation: string };
  first_seen: string;
  last_seen: string;
  resolved_at: string | null;
};

async function scan(w: World, api: ReturnType<World['api']>, domainId: string) {
  const r = await api.post(`/api/v1/domains/${domainId}/exposure/scans`);
  if (r.status !== 202) throw new Error(`scan start: ${r.status} ${r.text}`);
  await w.app.services.exposure.drain();
  return (await api.get(`/api/v1/exposure/scans/${r.body.id}`)).body;
}

async function findings(api: ReturnType<World['api']>, domainId: string, query = ''): Promise<Finding[]> {
  const r = await api.get(`/api/v1/domains/${domainId}/exposure/findings?limit=100${query}`);
  if (r.status !== 200) throw new Error(`findings: ${r.status} ${r.text}`);
  return r.body.data;
}

const pick = (list: Finding[], category: string, host: string, titlePart = '') =>
  list.filter((f) => f.category === category && f.host === host && f.title.includes(titlePart));

t.test('exposure scan of acme.test', async (t) => {
  const w = await startWorld();
  t.teardown(() => w.close());
  const { token, team_id } = await w.token();
  const api = w.api(token);

  const dom = await api.post('/api/v1/domains', { domain: ZONE });
  t.equal(dom.status, 201);
  const id: string = dom.body.id;
  t.equal(
    (await api.post('/api/v1/endpoints', { domain_id: id, name: 'site', endpoint_type: 'https', subdomain: 'www' }))
      .status,
    201,
  );
  const added = await api.post(`/api/v1/domains/${id}/exposure/subdomains`, { name: 'legacy' });
  t.equal(added.status, 201);
  t.equal(added.body.name, `legacy.${ZONE}`);
  await w.app.store.domains.update(team_id, id, { is_verified: true, exposure_monitoring_enabled: true });

  const started = await api.post(`/api/v1/domains/${id}/exposure/scans`);
  t.equal(started.status, 202);
  t.equal(started.body.status, 'running');
  t.equal(started.body.domain_id, id);
  await w.app.services.exposure.drain();
  const s1 = (await api.get(`/api/v1/exposure/scans/${started.body.id}`)).body;
  t.equal(s1.status, 'completed', JSON.stringify(s1));
  t.equal(s1.wildcard_dns, true, 'the random label resolved: wildcard detected');
  for (const h of ['acme.test', 'www', 'ns1', 'blog', 'shop', 'docs', 'old', 'db', 'legacy']) {
    t.ok(s1.hosts.includes(h === ZONE ? ZONE : `${h}.${ZONE}`), `${h} in the inventory`);
  }
  t.notOk(s1.hosts.includes(`api.${ZONE}`), 'wordlist names answered by the wildcard are not hosts');
  t.same(Object.values(s1.checks), ['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);

  const f1 = await findings(api, id);
  t.equal(s1.findings_count, f1.length);
  t.equal(shapes.check('ExposureScan', started.body), null, 'scan answer matches schemas/responses/exposure-scan.json');
  t.equal(shapes.check('ExposureScan', s1), null);
  t.same(
    f1.map((f) => shapes.check('ExposureFinding', f)).filter(Boolean),
    [],
    'findings match schemas/responses/exposure-finding.json',
  );

  const blog = pick(f1, 'subdomain_takeover', `blog.${ZONE}`);
  t.equal(blog.length, 1, 'GitHub Pages CNAME to an NXDOMAIN name');
  t.equal(blog[0]!.severity, 'critical');
  t.equal(blog[0]!.details.provider, 'GitHub Pages');
  t.match(blog[0]!.details.evidence, /acme-gone\.github\.io.*NXDOMAIN/);
  t.match(blog[0]!.details.remediation, /Remove the CNAME record.*GitHub Pages/);

  const shop = pick(f1, 'subdomain_takeover', `shop.${ZONE}`);
  t.equal(shop.length, 1, 'Shopify CNAME whose site shows the "no such shop" page');
  t.equal(shop[0]!.severity, 'critical');
  t.equal(shop[0]!.details.provider, 'Shopify');
  t.match(shop[0]!.details.evidence, /Sorry, this shop is currently unavailable/);

  const docs = pick(f1, 'dangling_dns', `docs.${ZONE}`);
  t.equal(docs.length, 1, 'CNAME to a non-existent name outside the provider list');
  t.equal(docs[0]!.severity, 'high');
  t.equal(docs[0]!.details.provider, null);

  const old = pick(f1, 'dangling_dns', `old.${ZONE}`);
  t.equal(old.length, 1, 'A record where nothing answers');
  t.equal(old[0]!.severity, 'medium');
  t.match(old[0]!.details.evidence, /127\.0\.0\.2:80 refused; 127\.0\.0\.2:443 refused/);
  t.match(old[0]!.details.remediation, /Remove the A\/AAAA records/);
  t.equal(pick(f1, 'dangling_dns', `db.${ZONE}`).length, 0, 'a host answering on an admin port is not dangling');

  const db = pick(f1, 'open_port', `db.${ZONE}`);
  t.equal(db.length, 1, 'the stand-in database port');
  t.equal(db[0]!.severity, 'high');
  t.match(db[0]!.title, /PostgreSQL port 5432 open on db\.acme\.test/);
  t.match(db[0]!.details.remediation, /firewall port 5432/);
  t.equal(f1.filter((f) => f.category === 'open_port').length, 1, 'no other admin port answers');

  const zt = pick(f1, 'zone_transfer', `ns1.${ZONE}`);
  t.equal(zt.length, 1, 'AXFR-open nameserver');
  t.equal(zt[0]!.severity, 'high');
  t.match(zt[0]!.details.evidence, /returned \d+ records/);
  t.match(zt[0]!.details.remediation, /Restrict zone transfers/);
  t.same(w.dns.axfrRequests, [ZONE]);

  const dmarc = pick(f1, 'dns_misconfiguration', ZONE, 'DMARC');
  t.equal(dmarc.length, 1);
  t.equal(dmarc[0]!.severity, 'medium');
  t.match(dmarc[0]!.details.remediation, /_dmarc\.acme\.test/);
  const caa = pick(f1, 'dns_misconfiguration', ZONE, 'CAA');
  t.equal(caa.length, 1);
  t.equal(caa[0]!.severity, 'low');
  t.equal(pick(f1, 'dns_misconfiguration', ZONE, 'SPF').length, 0, 'SPF is present');

  let weak = 0;
  if (w.tls10) {
    const legacy = pick(f1, 'weak_tls', `legacy.${ZONE}`, 'TLS 1.0');
    t.equal(legacy.length, 1, 'TLS 1.0-only server');
    t.equal(legacy[0]!.severity, 'medium');
    t.match(legacy[0]!.details.remediation, /Disable TLS 1\.0 and 1\.1/);
    const mismatch = pick(f1, 'weak_tls', `legacy.${ZONE}`, 'does not cover');
    t.equal(mismatch.length, 1, 'certificate for another name');
    t.equal(mismatch[0]!.severity, 'medium');
    weak = 2;
  } else {
    t.comment('skipped TLS 1.0 assertions: this OpenSSL refuses TLS 1.0 even at security level 0');
  }
  t.equal(
    f1.filter((f) => f.category === 'weak_tls').length,
    weak,
    'the modern server with a matching certificate is clean',
  );
  t.equal(f1.length, 8 + weak, `exactly the planted findings: ${f1.map((f) => `${f.category}@${f.host}`).join(', ')}`);
  t.ok(f1.every((f) => f.status === 'open' && f.first_seen === f.last_seen && f.resolved_at === null));

  // Events: one `exposure` row per new finding, with severity, category and details.
  const events = (await w.app.store.events.list(team_id)).filter((e) => e.event_type === 'exposure');
  t.equal(events.length, f1.length);
  const critical = events.filter((e) => e.severity === 'critical');
  t.equal(critical.length, 2);
  const blogEvent = critical.find((e) => JSON.parse(e.details).host === `blog.${ZONE}`)!;
  t.ok(blogEvent);
  t.equal(blogEvent.category, 'subdomain_takeover');
  t.equal(blogEvent.domain_id, id);
  t.match(blogEvent.message, /New critical exposure finding on acme\.test/);
  t.match(JSON.parse(blogEvent.details), {
    provider: 'GitHub Pages',
    finding_id: blog[0]!.id,
    change: 'new',
    remediation: /GitHub Pages/,
  });

  // Filters and pagination, per domain and team-wide.
  t.equal((await findings(api, id, '&severity=critical')).length, 2);
  t.equal((await findings(api, id, '&category=open_port')).length, 1);
  t.equal((await findings(api, id, '&status=resolved')).length, 0);
  const all = await api.get('/api/v1/exposure/findings?limit=3&severity=critical');
  t.equal(all.status, 200);
  t.equal(all.body.pagination.total, 2);
  const page = await api.get('/api/v1/exposure/findings?limit=3');
  t.equal(page.body.data.length, 3);
  t.same(page.body.pagination, { total: f1.length, limit: 3, offset: 0, has_more: true });
  t.equal(page.body.data[0].severity, 'critical', 'worst first');
  t.equal((await api.get('/api/v1/exposure/findings?severity=urgent')).status, 400);
  t.equal((await api.get(`/api/v1/exposure/findings/${db[0]!.id}`)).body.host, `db.${ZONE}`);

  // Fix three things: the blog CNAME goes (the wildcard answers instead), DMARC appears, AXFR is refused.
  w.dns.records.splice(
    w.dns.records.findIndex((r) => r.name === `blog.${ZONE}`),
    1,
  );
  w.dns.records.push({ name: `_dmarc.${ZONE}`, type: 'TXT', data: 'v=DMARC1; p=reject' });
  w.dns.axfr.clear();
  w.clock.advance(60_000);
  const s2 = await scan(w, api, id);
  t.equal(s2.status, 'completed');
  const f2 = await findings(api, id);
  const byId = new Map(f2.map((f) => [f.id, f]));
  for (const gone of [blog[0]!, dmarc[0]!, zt[0]!]) {
    const now = byId.get(gone.id)!;
    t.equal(now.status, 'resolved', `${gone.title} resolved`);
    t.ok(now.resolved_at);
    t.equal(now.last_seen, gone.last_seen, 'last_seen stays at the last scan that saw it');
  }
  const still = byId.get(db[0]!.id)!;
  t.equal(still.status, 'open');
  t.equal(still.first_seen, db[0]!.first_seen);
  t.ok(still.last_seen > db[0]!.last_seen, 'last_seen moves with each scan');
  t.equal(s2.findings_count, f1.length - 3);
  const resolvedEvents = (await w.app.store.events.list(team_id)).filter((e) => e.event_type === 'exposure_resolved');
  t.equal(resolvedEvents.length, 3, 'resolutions are noted for digests');
  t.equal(
    (await w.app.store.events.list(team_id)).filter((e) => e.event_type === 'exposure').length,
    f1.length,
    'no new alerts',
  );

  // The CNAME comes back: the same finding re-opens and alerts again.
  w.dns.records.push({ name: `blog.${ZONE}`, type: 'CNAME', data: 'acme-gone.github.io' });
  w.clock.advance(60_000);
  await scan(w, api, id);
  const again = (await api.get(`/api/v1/exposure/findings/${blog[0]!.id}`)).body;
  t.equal(again.status, 'open');
  t.equal(again.resolved_at, null);
  t.equal(again.first_seen, blog[0]!.first_seen);
  const reopened = (await w.app.store.events.list(team_id)).filter(
    (e) => e.event_type === 'exposure' && JSON.parse(e.details).change === 'reopened',
  );
  t.equal(reopened.length, 1);
  t.equal(reopened[0]!.severity, 'critical');
  t.match(reopened[0]!.message, /Re-opened critical/);

  // Sixty days on, the 30-day certificate of www has expired.
  w.clock.advance(60 * 86_400_000);
  await scan(w, api, id);
  const expired = pick(await findings(api, id, '&category=weak_tls'), 'weak_tls', `www.${ZONE}`, 'Expired');
  t.equal(expired.length, 1);
  t.equal(expired[0]!.severity, 'high');
  t.match(expired[0]!.details.remediation, /Renew the certificate/);

  const scans = await api.get(`/api/v1/domains/${id}/exposure/scans`);
  t.equal(scans.body.pagination.total, 4);
  t.equal(scans.body.data[0].started_at > scans.body.data[3].started_at, true, 'newest first');
  t.ok(
    scans.body.data.every(
      (s: { status: string; trigger: string }) => s.status === 'completed' && s.trigger === 'manual',
    ),
  );

  // A broken resolver fails the scan instead of resolving everything it could not see.
  const openBefore = (await findings(api, id, '&status=open')).map((f) => f.id).sort();
  w.dns.servfail = true;
  w.clock.advance(60_000);
  const broken = await scan(w, api, id);
  w.dns.servfail = false;
  t.equal(broken.status, 'failed');
  t.match(broken.error, /DNS look-ups failing/);
  t.same(
    (await findings(api, id, '&status=open')).map((f) => f.id).sort(),
    openBefore,
    'nothing resolved by a failed scan',
  );
});
