// A handful of the DMARC test set through the daemon's real check (startApp, a domain, the security
// refresh) over the loopback DNS server, and what the grade makes of them: an invalid record weighs as
// broken, and its finding (the tag, what is wrong, the fix) is the same text in the API's
// health_reasons and recommendations, `dommon domains show` and `dommon check`.
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { cli, ensureBuilt } from '../support/cli.js';
import { startDnsServer } from '../support/dns-server.js';

t.setTimeout(180_000);

const zone = {
  '_dmarc.fo-invalid.test': { TXT: ['v=DMARC1; p=reject; fo=2'] },
  '_dmarc.p-duplicate.test': { TXT: ['v=DMARC1; p=none; p=reject'] },
  '_dmarc.leading-space.test': { TXT: [' v=DMARC1; p=reject'] },
  '_dmarc.several.test': { TXT: ['v=DMARC1; p=reject', 'v=DMARC1; p=none'] },
  '_dmarc.whitespace.test': { TXT: ['v = DMARC1 ;  p = reject'] },
  '_dmarc.ext-unauthorised.test': { TXT: ['v=DMARC1; p=reject; rua=mailto:d@reports.example.net'] },
};

const FO =
  'DMARC fail: fo=2 is not valid: fo is a colon-separated list of 0, 1, d and s; fix: write it as fo=1 or fo=d:s, or remove fo=';
const EXT =
  'DMARC pass; warning: reports to reports.example.net are not authorised: no "v=DMARC1" TXT record at ext-unauthorised.test._report._dmarc.reports.example.net, so receivers will not send them; fix: ask the operator of reports.example.net to publish "v=DMARC1" at ext-unauthorised.test._report._dmarc.reports.example.net, or send reports to an address at ext-unauthorised.test';

t.test('the daemon judges DMARC by the RFCs; the grade and every door show the same finding', async (t) => {
  const dns = await startDnsServer(zone);
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.address });
  t.teardown(async () => {
    await s.close();
    await dns.close();
  });
  const token = await s.token();
  const api = client(s.url, token);
  const verdicts: Record<string, [string, string, (string | null)[]]> = {
    'fo-invalid.test': ['fail', 'invalid', ['fo']],
    'p-duplicate.test': ['fail', 'invalid', ['p']],
    'leading-space.test': ['fail', 'none', ['v', null]],
    'several.test': ['fail', 'invalid', [null]],
    'whitespace.test': ['pass', 'valid', []],
    'ext-unauthorised.test': ['pass', 'valid', []],
  };
  const ids: Record<string, string> = {};
  for (const [domain, [status, result, tags]] of Object.entries(verdicts)) {
    const id = (await api.post('/api/v1/domains', { domain })).body.id as string;
    ids[domain] = id;
    const sec = await api.post(`/api/v1/domains/${id}/security`);
    t.equal(sec.status, 200);
    t.equal(sec.body.checks.dmarc, status, `${domain}: status`);
    t.equal(sec.body.details.dmarc.dmarc_result, result, `${domain}: dmarc_result`);
    t.same(
      sec.body.details.dmarc.errors.map((e: { tag: string | null }) => e.tag),
      tags,
      `${domain}: the errors name the tag`,
    );
  }

  // fo=2 under p=reject passed before: now the record is invalid and weighs as broken.
  const fo = (await api.get(`/api/v1/domains/${ids['fo-invalid.test']}/security`)).body;
  t.match(fo.details.dmarc, {
    policy: { applies: 'reject', p: 'reject', sp: 'reject', np: 'reject', pct: 100, from: 'domain' },
    errors: [{ tag: 'fo', reason: /^fo=2 is not valid/, fix: 'write it as fo=1 or fo=d:s, or remove fo=' }],
  });
  t.ok(
    fo.recommendations.includes(
      'Fix the DMARC record at _dmarc.fo-invalid.test: fo=2 is not valid: fo is a colon-separated list of 0, 1, d and s; fix: write it as fo=1 or fo=d:s, or remove fo=.',
    ),
    'the recommendation names the tag and the fix',
  );
  const d = (await api.get(`/api/v1/domains/${ids['fo-invalid.test']}`)).body;
  const why = Object.fromEntries(d.health_reasons.map((r: { input: string }) => [r.input, r]));
  t.match(why.dmarc, { status: 'bad', counted: true, reason: FO });
  t.ok(why.dmarc.points_lost > 0, 'the invalid record costs points');
  const ext = (await api.get(`/api/v1/domains/${ids['ext-unauthorised.test']}`)).body;
  const extWhy = ext.health_reasons.find((r: { input: string }) => r.input === 'dmarc');
  t.match(extWhy, { status: 'ok', counted: true, points_lost: 0, reason: EXT }, 'a warning is shown beside a pass');

  await ensureBuilt();
  const show = await cli(['--remote', s.url, '--token', token, 'domains', 'show', 'fo-invalid.test']);
  t.equal(show.code, 0, show.stderr);
  t.ok(show.stdout.includes(FO), `domains show: ${show.stdout}`);
  const showExt = await cli(['--remote', s.url, '--token', token, 'domains', 'show', 'ext-unauthorised.test']);
  t.ok(showExt.stdout.includes(EXT), 'domains show: the warning');

  const env = {
    DOMMON_DNS_SERVERS: dns.address,
    DOMMON_DATA_DIR: path.join(os.tmpdir(), `dommon-dmarc-grade-${process.pid}`),
  };
  const check = await cli(['check', 'fo-invalid.test', '--checks', 'dns-security', '--json'], { env });
  const reasons = check.json.targets[0].health.reasons as { input: string; reason: string }[];
  t.equal(reasons.find((r) => r.input === 'dmarc')?.reason, FO, 'dommon check --json: the same text');
  const text = await cli(['check', 'fo-invalid.test', '--checks', 'dns-security'], { env });
  t.ok(text.stdout.includes(FO), `dommon check: ${text.stdout}`);
});
