import t from 'tap';
import {
  expiryWindow,
  hasTransferLock,
  normalizeStatus,
  registrationCadence,
  registrationChanges,
  EMPTY_REGISTRATION,
} from '../../src/domain/registration.js';
import { classifyWhois, parseWhoisText } from '../../src/probes/whois.js';
import { parseRdapDomain, rdapBaseFor, bootstrapIndex, retryAfterMs } from '../../src/probes/rdap.js';
import { SHIPPED_BOOTSTRAP } from '../../src/probes/rdap-bootstrap.js';
import {
  RATE_LIMIT_TEXT,
  denicText,
  nominetText,
  verisignText,
  DENIC_FREE,
  VERISIGN_NO_MATCH,
} from '../support/whois-server.js';
import { rdapDomain } from '../support/rdap-server.js';

t.test('statuses and transfer lock', async (t) => {
  t.equal(normalizeStatus('client transfer prohibited'), 'clientTransferProhibited');
  t.equal(
    normalizeStatus('serverTransferProhibited https://icann.org/epp#serverTransferProhibited'),
    'serverTransferProhibited',
  );
  t.equal(hasTransferLock(['clientTransferProhibited']), true);
  t.equal(hasTransferLock(['ok']), false);
  t.equal(hasTransferLock(['connect']), null, 'DENIC shows no EPP status');
});

t.test('expiry windows and cadence', async (t) => {
  const now = new Date('2026-01-01T00:00:00Z');
  t.equal(expiryWindow('2026-04-01', now), null);
  t.equal(expiryWindow('2026-03-02', now), 60);
  t.equal(expiryWindow('2026-01-31', now), 30);
  t.equal(expiryWindow('2026-01-16', now), 15);
  t.equal(expiryWindow('2025-12-31', now), 0);
  t.equal(registrationCadence(21600, 'ok', '2027-01-01', now), 21600);
  t.equal(registrationCadence(21600, 'ok', '2026-02-15', now), 10800);
  t.equal(registrationCadence(21600, 'ok', '2026-01-20', now), 5400);
  t.equal(registrationCadence(21600, 'ok', '2026-01-03', now), 2700);
  t.equal(registrationCadence(21600, 'error', null, now, 120_000), 120, 'Retry-After wins');
  t.equal(registrationCadence(21600, 'error', null, now), 3600);
});

t.test('changes between lookups', async (t) => {
  const a = {
    ...EMPTY_REGISTRATION,
    registrar: 'A',
    nameservers: ['ns1.a', 'ns2.a'],
    expiry_date: '2026-01-01',
    transfer_lock: true,
  };
  t.same(registrationChanges(EMPTY_REGISTRATION, a), [], 'first data is no change');
  const b = { ...a, registrar: 'B', nameservers: ['ns2.a', 'ns1.a'], expiry_date: '2027-01-01', transfer_lock: false };
  t.same(
    registrationChanges(a, b).map((c) => c.field),
    ['registrar', 'expiry_date', 'transfer_lock'],
  );
});

t.test('WHOIS text: Verisign, Nominet, DENIC, no match, rate limit', async (t) => {
  const v = parseWhoisText(
    'example.com',
    verisignText('example.com', {
      registrar: 'Example Registrar, LLC',
      expiry: '2026-08-13T04:00:00Z',
      nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
      dnssec: 'signedDelegation',
    }),
  );
  t.equal(v.registrar, 'Example Registrar, LLC');
  t.equal(v.expiry_date, '2026-08-13');
  t.same(v.nameservers, ['a.iana-servers.net', 'b.iana-servers.net']);
  t.equal(v.transfer_lock, true);
  t.equal(v.dnssec_signed, true);
  const n = parseWhoisText(
    'example.co.uk',
    nominetText('example.co.uk', {
      registrar: 'Example Registrar Ltd',
      expiry: '26-Nov-2026',
      nameservers: ['ns1.example.net', 'ns2.example.net'],
    }),
  );
  t.equal(n.registrar, 'Example Registrar Ltd');
  t.equal(n.expiry_date, '2026-11-26');
  t.same(n.nameservers, ['ns1.example.net', 'ns2.example.net']);
  const d = parseWhoisText(
    'example.de',
    denicText('example.de', { nameservers: ['ns1.example.de', 'ns2.example.de'] }),
  );
  t.equal(d.expiry_date, null, 'DENIC publishes no expiry');
  t.same(d.nameservers, ['ns1.example.de', 'ns2.example.de']);
  t.equal(d.transfer_lock, null);
  t.equal(d.updated_date, '2018-03-12T20:44:25.000Z');
  t.equal(classifyWhois(RATE_LIMIT_TEXT), 'rate_limited');
  t.equal(classifyWhois('55000000002 Connection refused; access control limit reached.'), 'rate_limited');
  t.equal(classifyWhois(DENIC_FREE('free.de')), 'not_found');
  t.equal(classifyWhois(VERISIGN_NO_MATCH('nope.com')), 'not_found');
  t.equal(classifyWhois('   '), 'empty');
});

t.test('RDAP: bootstrap and RFC 9083 parsing', async (t) => {
  const idx = bootstrapIndex(SHIPPED_BOOTSTRAP);
  t.equal(rdapBaseFor('example.com', idx), 'https://rdap.verisign.com/com/v1/');
  t.equal(rdapBaseFor('example.co.uk', idx), 'https://rdap.nominet.uk/uk/');
  t.equal(rdapBaseFor('example.de', idx), null);
  // Entries of IANA's 2025-11-06 file that an earlier hand-written copy had wrong or missing.
  t.equal(SHIPPED_BOOTSTRAP.publication, '2025-11-06T23:00:01Z');
  t.equal(rdapBaseFor('example.tv', idx), 'https://rdap.nic.tv/');
  t.equal(rdapBaseFor('example.re', idx), 'https://rdap.nic.re/');
  t.equal(rdapBaseFor('example.io', idx), null, 'io publishes no RDAP service: WHOIS');
  t.equal(rdapBaseFor('example.pl', idx), 'https://rdap.dns.pl/');
  t.equal(rdapBaseFor('example.kg', idx), 'http://rdap.cctld.kg/', 'an http-only service is used as published');
  t.equal(rdapBaseFor('example.shop', idx), 'https://rdap.gmoregistry.net/rdap/');
  const custom = bootstrapIndex({
    services: [
      [['br'], ['https://rdap.registro.br/']],
      [['com.br'], ['https://special.example/']],
    ],
  });
  t.equal(rdapBaseFor('example.com.br', custom), 'https://special.example/', 'longest suffix wins');
  const r = parseRdapDomain(
    rdapDomain('example.com', {
      registrar: 'Reg Inc.',
      expiry: '2026-08-13T04:00:00Z',
      created: '1995-08-14T04:00:00Z',
      nameservers: ['NS1.EXAMPLE.NET'],
      status: ['client transfer prohibited', 'server delete prohibited'],
      signed: true,
    }),
  );
  t.equal(r.registrar, 'Reg Inc.');
  t.equal(r.expiry_date, '2026-08-13');
  t.equal(r.creation_date, '1995-08-14T04:00:00.000Z');
  t.same(r.nameservers, ['ns1.example.net']);
  t.same(r.statuses, ['clientTransferProhibited', 'serverDeleteProhibited']);
  t.equal(r.transfer_lock, true);
  t.equal(r.dnssec_signed, true);
  t.equal(retryAfterMs('30', new Date()), 30_000);
  t.equal(
    retryAfterMs(new Date(Date.parse('2026-01-01T00:01:00Z')).toUTCString(), new Date('2026-01-01T00:00:00Z')),
    60_000,
  );
});
