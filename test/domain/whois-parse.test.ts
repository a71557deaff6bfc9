import t from 'tap';
import { parseWhoisDate, parseWhoisTimestamp } from '../../src/domain/registry-dates.js';
import { classifyWhoisAnswer, parseWhoisAnswer, whoisPairs } from '../../src/domain/whois-parse.js';
import { nominetText } from '../support/whois-server.js';

t.test('date forms registries print (issue 19 item 2)', async (t) => {
  t.equal(parseWhoisDate('20260531'), '2026-05-31', '.br/.hr YYYYMMDD');
  t.equal(parseWhoisDate('20260531 #123456'), '2026-05-31');
  t.equal(parseWhoisDate('17.7.2022'), '2022-07-17', '.fi one-digit parts');
  t.equal(parseWhoisDate('4.7.2014'), '2014-07-04', "day first, never Date.parse's 7 April");
  t.equal(parseWhoisDate('28th April 2014'), '2014-04-28', '.fj ordinal day');
  t.equal(parseWhoisDate('2026-05-31 00:00:00+02'), '2026-05-30', '.ua zone written +02');
  t.equal(parseWhoisDate('2026-05-31 01:00:00 EAT'), '2026-05-30', '.ke zone by name');
  t.equal(parseWhoisDate('12/18/2001', 'mdy'), '2001-12-18', '.tk month first');
  t.equal(parseWhoisDate('12/08/2001', 'mdy'), '2001-12-08');
  t.equal(parseWhoisDate('12/08/2001', 'dmy'), '2001-08-12');
  t.equal(parseWhoisDate('12/18/2001', 'dmy'), null, "impossible in the registry's order: not guessed");
  t.equal(parseWhoisDate('2026. 05. 31.'), '2026-05-31', '.kr');
  t.equal(parseWhoisDate('2026-Aug-19.'), '2026-08-19', '.tr');
  t.equal(parseWhoisDate('April 28, 2014'), '2014-04-28');
  t.equal(parseWhoisDate('Thu Mar 21 10:00:00 GMT 2024'), '2024-03-21');
  t.equal(parseWhoisDate('26-Nov-2026'), '2026-11-26');
  t.equal(parseWhoisDate('2026/05/31'), '2026-05-31');
  t.equal(parseWhoisDate('31-05-2026'), '2026-05-31');
  t.equal(parseWhoisDate('2026-01-01T02:00:00+05:00'), '2025-12-31');
  t.equal(parseWhoisDate('2026-01-01T02:00:00.000Z'), '2026-01-01');
  t.equal(parseWhoisDate('20261231235959'), '2026-12-31');
  t.equal(parseWhoisDate('2026-08-13T04:00:00Z'), '2026-08-13');
  t.equal(parseWhoisDate('2026.08.13'), '2026-08-13');
  t.equal(parseWhoisDate('13.08.2026'), '2026-08-13');
  t.equal(parseWhoisDate('garbage'), null);
  t.equal(parseWhoisDate('2026-02-30'), null);
  t.equal(parseWhoisTimestamp('2018-03-12T21:44:25+01:00'), '2018-03-12T20:44:25.000Z');
  t.equal(parseWhoisTimestamp('2018-03-12'), '2018-03-12T00:00:00.000Z');
});

t.test('layouts whoiser loses (issue 19 item 3)', async (t) => {
  const afilias =
    'Domain Name:EXAMPLE.AERO\nSponsoring Registrar:Example Registrar Inc.\nExpiry Date:2026-05-31T00:00:00Z\nName Server:NS1.EXAMPLE.NET\nName Server:NS2.EXAMPLE.NET\nDomain Status:clientTransferProhibited\n';
  const a = parseWhoisAnswer('example.aero', afilias).data;
  t.equal(a.expiry_date, '2026-05-31');
  t.equal(a.registrar, 'Example Registrar Inc.');
  t.same(a.nameservers, ['ns1.example.net', 'ns2.example.net']);
  t.equal(a.transfer_lock, true);
  t.equal(
    parseWhoisAnswer('example.pl', 'DOMAIN NAME:           example.pl\nrenewal date:          2026.05.31 13:00:00\n')
      .data.expiry_date,
    '2026-05-31',
  );
  t.equal(
    parseWhoisAnswer('example.us', 'Domain Expiration Date: Sat May 31 23:59:59 GMT 2026\n').data.expiry_date,
    '2026-05-31',
  );
  t.equal(
    parseWhoisAnswer('example.ua', 'domain: example.ua\nstatus: OK-UNTIL 20260531000000\n').data.expiry_date,
    '2026-05-31',
  );
  t.equal(
    parseWhoisAnswer(
      'example.sk',
      'Domain                        example.sk\nValid-date                    2026-05-31\n',
    ).data.expiry_date,
    '2026-05-31',
  );
  t.equal(parseWhoisAnswer('example.sk', 'Valid Until: 2026-05-31\n').data.expiry_date, '2026-05-31');
  t.equal(parseWhoisAnswer('example.il', 'validity:     31-05-2026\n').data.expiry_date, '2026-05-31');
  t.equal(
    parseWhoisAnswer('example.jp', '[Domain Name]   EXAMPLE.JP\n[State]         Connected (2026/05/31)\n').data
      .expiry_date,
    '2026-05-31',
  );
  t.equal(
    parseWhoisAnswer('example.co.jp', 'a. [Domain Name]   EXAMPLE.CO.JP\n[Expires on]   2026/05/31\n').data.expiry_date,
    '2026-05-31',
  );
  t.equal(
    parseWhoisAnswer('example.nz', 'domain_datebilleduntil: 2026-05-31T00:00:00+13:00\n').data.expiry_date,
    '2026-05-30',
  );
  t.equal(parseWhoisAnswer('example.ve', 'Fecha de Vencimiento: 2026-05-31 00:00:00\n').data.expiry_date, '2026-05-31');
  t.equal(parseWhoisAnswer('example.tw', 'Record expires on 2026-05-31 (YYYY-MM-DD)\n').data.expiry_date, '2026-05-31');
  t.equal(parseWhoisAnswer('example.kg', 'Record expires on: 2026-05-31\n').data.expiry_date, '2026-05-31');
  t.equal(parseWhoisAnswer('example.ru', 'paid-till:     2026-05-31T21:00:00Z\n').data.expiry_date, '2026-05-31');
  t.equal(
    parseWhoisAnswer('example.tr', '** Domain Name: example.tr\nExpires on..............: 2026-Aug-19.\n').data
      .expiry_date,
    '2026-08-19',
  );
  t.equal(
    parseWhoisAnswer('example.fr', 'expires............: 2026-05-31\n').data.expiry_date,
    '2026-05-31',
    'dot leaders',
  );
  const n = parseWhoisAnswer(
    'example.co.uk',
    nominetText('example.co.uk', { registrar: 'Example Ltd', expiry: '26-Nov-2026', nameservers: ['ns1.example.net'] }),
  ).data;
  t.equal(n.registrar, 'Example Ltd');
  t.equal(n.expiry_date, '2026-11-26');
  t.equal(n.creation_date, '1996-11-26T00:00:00.000Z');
  const eu =
    'Domain: example.eu\n\nRegistrar:\n        Name: Example BV\n        Website: https://example.test\n\nName servers:\n        ns1.example.eu\n        ns2.example.eu\n';
  const e = parseWhoisAnswer('example.eu', eu);
  t.equal(e.data.registrar, 'Example BV');
  t.same(e.data.nameservers, ['ns1.example.eu', 'ns2.example.eu']);
  t.ok(whoisPairs(eu).some((p) => p.label === 'registrar/name'));
});

t.test('rate limits are refusals, not footers (issue 19 item 1)', async (t) => {
  const uk =
    nominetText('example.co.uk', {
      registrar: 'Example Ltd',
      expiry: '26-Nov-2026',
      nameservers: ['ns1.example.net'],
    }) +
    '\nCopyright Nominet UK 1996 - 2025.\nYou may not access the .uk WHOIS or use any data from it except as permitted by the terms of use\navailable in full at https://www.nominet.uk/whoisterms, which includes restrictions on: (A) use of the data for advertising,\nor its repackaging, recompilation, redistribution or reuse (B) obscuring, removing or hiding any part of the data or its source,\n(C) using the WHOIS service in any way that leads to exceeding query rate or volume limits.\n';
  t.equal(classifyWhoisAnswer('example.co.uk', uk), 'ok');
  const donuts =
    'Domain Name: example.guru\nRegistry Expiry Date: 2026-05-31T00:00:00Z\nRegistrar: Example\n\nTerms of Use: ... you agree not to send too many queries ...\n';
  t.equal(classifyWhoisAnswer('example.guru', donuts), 'ok');
  t.equal(
    classifyWhoisAnswer('example.org', 'WHOIS LIMIT EXCEEDED - SEE WWW.PIR.ORG/WHOIS FOR DETAILS\r\n'),
    'rate_limited',
  );
  t.equal(
    classifyWhoisAnswer('example.uk', 'Query rate of 5 queries per second exceeded. Try again later.\n'),
    'rate_limited',
  );
  t.equal(classifyWhoisAnswer('nope.com', 'No match for "NOPE.COM".\n'), 'not_found');
});

t.test('no expiry published is an answer (issue 19 item 5)', async (t) => {
  const de = parseWhoisAnswer(
    'example.de',
    'Domain: example.de\nNserver: ns1.example.de\nStatus: connect\nChanged: 2018-03-12T21:44:25+01:00\n',
  );
  t.equal(de.data.expiry_date, null);
  t.same(de.data.nameservers, ['ns1.example.de']);
  t.equal(de.reason, 'the .de registry publishes no expiry date');
  t.equal(classifyWhoisAnswer('example.de', 'Domain: example.de\nNserver: ns1.example.de\nStatus: connect\n'), 'ok');
});
