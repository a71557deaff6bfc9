// Where registration look-ups go: the registrable name under registry-run suffixes (shop.uk.com) vs
// hosting suffixes (github.io), the built-in WHOIS table, per-registry query forms, IANA's referral
// (a loopback "IANA" on port 0) with its cache, and DOMMON_WHOIS_SERVERS.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { registrableDomain } from '../../src/domain/domain-name.js';
import { REGISTRY_SUFFIXES, registrySuffixOf } from '../../src/domain/registry-suffixes.js';
import { WHOIS_SERVERS, whoisQueryText, whoisServerFor } from '../../src/probes/whois.js';
import { REFERRALS_FILE, createWhoisReferrals, parseIanaReferral } from '../../src/probes/whois-referral.js';
import { createRegistrationProbes } from '../../src/probes/registration.js';
import { createBootstrapStore } from '../../src/probes/rdap.js';
import { startTcpWhois } from '../support/tcp-whois.js';
import { tempDir } from '../support/app.js';

/** What whois.iana.org answers for a TLD (abridged to the lines that matter). */
const ianaText = (tld: string, whois: string | null) =>
  [
    '% IANA WHOIS server',
    '% for more information on IANA, visit http://www.iana.org',
    '% This query returned 1 object',
    '',
    `domain:       ${tld.toUpperCase()}`,
    '',
    'organisation: Example registry',
    '',
    ...(whois ? [`whois:        ${whois}`, ''] : []),
    'status:       ACTIVE',
    'created:      1996-01-01',
    '',
    'source:       IANA',
    '',
  ].join('\n');
const NO_OBJECT =
  '% IANA WHOIS server\n% for more information on IANA, visit http://www.iana.org\n\n% This query returned 0 objects.\n';

t.test('registry-run second-level suffixes are registrations of their own; hosting suffixes are not', async (t) => {
  const cases: [string, string][] = [
    ['shop.uk.com', 'shop.uk.com'],
    ['www.shop.uk.com', 'shop.uk.com'],
    ['hotel.ar.com', 'hotel.ar.com'],
    ['x.br.com', 'x.br.com'],
    ['y.ae.org', 'y.ae.org'],
    ['z.co.ca', 'z.co.ca'],
    ['a.b.gb.net', 'b.gb.net'],
    ['e.jpn.com', 'e.jpn.com'],
    ['f.za.com', 'f.za.com'],
    ['g.us.com', 'g.us.com'],
    ['h.eu.com', 'h.eu.com'],
    ['shop.com.de', 'shop.com.de'],
    // The suffix's own domain is CentralNic's (or its owner's) registration.
    ['uk.com', 'uk.com'],
    ['www.uk.com', 'www.uk.com'],
    // Hosting suffixes: the owner's registration is the one that exists.
    ['me.github.io', 'github.io'],
    ['app.herokuapp.com', 'herokuapp.com'],
    ['blog.blogspot.com', 'blogspot.com'],
    // ICANN suffixes as before.
    ['www.example.co.uk', 'example.co.uk'],
    ['www.example.com', 'example.com'],
    ['a.b.example.com.br', 'example.com.br'],
  ];
  for (const [name, want] of cases) t.equal(registrableDomain(name), want, name);
  t.equal(registrySuffixOf('shop.uk.com'), 'uk.com');
  t.equal(registrySuffixOf('uk.com'), null, 'uk.com itself is under .com');
  t.equal(registrySuffixOf('me.github.io'), null);
  t.equal(REGISTRY_SUFFIXES['uk.com']!.whois, 'whois.centralnic.com');
  t.equal(whoisServerFor('shop.uk.com'), 'whois.centralnic.com');
  t.equal(whoisServerFor('y.ae.org'), 'whois.centralnic.com');
  t.equal(whoisServerFor('uk.com'), 'whois.verisign-grs.com');
  t.equal(whoisServerFor('github.io'), 'whois.nic.io');

  // RDAP: the bootstrap's .com service does not hold shop.uk.com, so RDAP is not asked there.
  const dataDir = tempDir();
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const probes = createRegistrationProbes({
    bootstrap: createBootstrapStore({ dataDir }),
    rdapUrl: null,
    whoisServer: null,
    now: () => new Date(),
  });
  const signal = new AbortController().signal;
  t.same(await probes.rdap.serverFor('shop.uk.com', signal, 1000), {
    none: 'no RDAP service for uk.com (a CentralNic registry suffix)',
  });
  t.same(await probes.rdap.serverFor('uk.com', signal, 1000), { server: 'https://rdap.verisign.com/com/v1/' });
  t.same(await probes.whois.serverFor('shop.uk.com', signal, 1000), { server: 'whois.centralnic.com' });
});

t.test('built-in WHOIS servers of TLDs without RDAP, and per-registry query forms', async (t) => {
  const table: Record<string, string> = {
    rs: 'whois.rnids.rs',
    bg: 'whois.register.bg',
    by: 'whois.cctld.by',
    cl: 'whois.nic.cl',
    il: 'whois.isoc.org.il',
    ve: 'whois.nic.ve',
    pe: 'kero.yachay.pe',
    sa: 'whois.nic.net.sa',
    tr: 'whois.trabis.gov.tr',
    do: 'whois.nic.do',
    hu: 'whois.nic.hu',
    lv: 'whois.nic.lv',
    ro: 'whois.rotld.ro',
    sk: 'whois.sk-nic.sk',
    kz: 'whois.nic.kz',
  };
  for (const [tld, host] of Object.entries(table)) {
    t.equal(WHOIS_SERVERS[tld], host, `.${tld}`);
    t.equal(whoisServerFor(`example.${tld}`), host);
  }
  t.equal(whoisQueryText('example.de'), '-T dn example.de');
  t.equal(whoisQueryText('example.jp'), 'example.jp/e');
  t.equal(whoisQueryText('example.com'), 'example.com');
  t.equal(whoisQueryText('shop.com.de'), 'shop.com.de', 'CentralNic takes the plain name');
});

t.test('IANA referral: parsed, cached in memory and on disk, failures retried later', async (t) => {
  t.same(parseIanaReferral(ianaText('rs', 'whois.rnids.rs')), { known: true, server: 'whois.rnids.rs' });
  t.same(parseIanaReferral(ianaText('xx', null)), { known: true, server: null });
  t.same(parseIanaReferral(NO_OBJECT), { known: false, server: null });

  const iana = await startTcpWhois((q) =>
    q === 'qq' ? ianaText('qq', 'whois.nic.qq') : q === 'nn' ? ianaText('nn', null) : NO_OBJECT,
  );
  const dataDir = tempDir();
  t.teardown(async () => {
    await iana.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = () => new Date(now);
  const r = createWhoisReferrals({ iana: iana.address, dataDir, now: clock });
  const [a, b] = await Promise.all([r.serverFor('qq', 2000), r.serverFor('QQ', 2000)]);
  t.same(a, { server: 'whois.nic.qq' });
  t.same(b, a);
  t.same(iana.queries, ['qq'], 'one query for concurrent askers');
  t.same(await r.serverFor('nn', 2000), { none: 'IANA lists no WHOIS server for .nn' });
  t.same(await r.serverFor('zz', 2000), { none: '.zz is not a TLD IANA knows' });
  t.same(await r.serverFor('qq', 2000), { server: 'whois.nic.qq' });
  t.same(await r.serverFor('zz', 2000), { none: '.zz is not a TLD IANA knows' }, 'the same words from the cache');
  t.same(await r.serverFor('nn', 2000), { none: 'IANA lists no WHOIS server for .nn' });
  t.equal(iana.queries.length, 3, 'answers come from the cache');
  const saved = JSON.parse(fs.readFileSync(path.join(dataDir, REFERRALS_FILE), 'utf8'));
  t.same(saved.qq, { server: 'whois.nic.qq', fetched_at: '2026-01-01T00:00:00.000Z' });

  // A restart reads the saved referrals: IANA (now gone) is not needed.
  await iana.close();
  const again = createWhoisReferrals({ iana: iana.address, dataDir, now: clock });
  t.same(await again.serverFor('qq', 2000), { server: 'whois.nic.qq' });
  t.same(await again.serverFor('zz', 2000), { none: '.zz is not a TLD IANA knows' }, 'and after a restart');
  // Past the TTL IANA is asked again; unreachable, the old referral still serves.
  now += 8 * 86_400_000;
  t.same(await again.serverFor('qq', 2000), { server: 'whois.nic.qq' });
  // A TLD never learnt while IANA is unreachable: an error (not "unsupported"), not asked again for 10 minutes.
  const e = await again.serverFor('ww', 2000);
  t.match(e, { error: /^IANA WHOIS 127\.0\.0\.1:\d+: ECONNREFUSED$/ });
  t.same(await again.serverFor('ww', 2000), e);

  // No data directory (the one-shot `dommon check`): nothing is created.
  const missing = path.join(dataDir, 'not-there');
  const noDir = createWhoisReferrals({ iana: '127.0.0.1:9', dataDir: missing, now: clock });
  await noDir.serverFor('qq', 1000);
  t.notOk(fs.existsSync(missing));
});

t.test(
  'WHOIS server choice: DOMMON_WHOIS_SERVER, DOMMON_WHOIS_SERVERS, built-in, then IANA (with a port in the referral)',
  async (t) => {
    const registry = await startTcpWhois();
    const iana = await startTcpWhois((q) => (q === 'qq' ? ianaText('qq', registry.address) : NO_OBJECT));
    const dataDir = tempDir();
    t.teardown(async () => {
      await Promise.all([registry.close(), iana.close()]);
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const now = () => new Date();
    const base = {
      bootstrap: createBootstrapStore({ dataDir }),
      rdapUrl: null,
      now,
      referrals: createWhoisReferrals({ iana: iana.address, dataDir, now }),
    };
    const signal = new AbortController().signal;
    const p = createRegistrationProbes({
      ...base,
      whoisServer: null,
      whoisServers: { rs: '127.0.0.1:4343', 'uk.com': '127.0.0.1:4344' },
    });
    t.same(await p.whois.serverFor('example.rs', signal, 5000), { server: '127.0.0.1:4343' }, 'per-TLD override');
    t.same(await p.whois.serverFor('shop.uk.com', signal, 5000), { server: '127.0.0.1:4344' }, 'per-suffix override');
    t.same(await p.whois.serverFor('example.bg', signal, 5000), { server: 'whois.register.bg' }, 'built-in table');
    t.same(await p.whois.serverFor('example.qq', signal, 5000), { server: registry.address }, 'IANA referral');
    t.same(await p.whois.serverFor('example.zz', signal, 5000), {
      none: 'no known WHOIS server for .zz (.zz is not a TLD IANA knows)',
    });
    t.same(iana.queries, ['qq', 'zz'], 'IANA asked only when nothing else knows');
    const all = createRegistrationProbes({
      ...base,
      whoisServer: '127.0.0.1:4345',
      whoisServers: { rs: '127.0.0.1:4343' },
    });
    t.same(
      await all.whois.serverFor('example.rs', signal, 5000),
      { server: '127.0.0.1:4345' },
      'DOMMON_WHOIS_SERVER overrides all',
    );
    // The referral's server answers the look-up itself.
    const out = await p.whois.lookup('example.qq', registry.address, signal, 5000);
    t.match(out, { kind: 'ok', source: 'whois', data: { expiry_date: '2030-01-01' } });
    t.same(registry.queries, ['example.qq']);
  },
);
