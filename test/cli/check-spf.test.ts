// A broken SPF record (a permerror for some sender) weighs as broken in the grade, and the finding,
// which term is wrong and how to fix it, is the same text in the API (health_reasons, the security
// answer), `dommon domains show` and `dommon check` (the dashboard shows health_reasons as they are).
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { cli, ensureBuilt } from '../support/cli.js';
import { startDnsServer } from '../support/dns-server.js';

t.setTimeout(120_000);

const REASON =
  'SPF fail: ip4:192.0.2.0/33: prefix length /33 is not 0-32 (fix: Use one prefix length from 0 to 32 (no leading zero).); ' +
  'a:mail (in the record of _spf.sender.test): invalid domain in a: the domain has a single label (a full domain name with a dot is needed) (fix: Give a a full domain name, e.g. "a:example.com".)';

t.test('a broken SPF record: permerror, counted as a failure, the same reason everywhere', async (t) => {
  const dns = await startDnsServer({
    // Valid at first sight, and "-all" ends it: today's mail from 192.0.2.1 would even pass.
    'broken.com': { TXT: ['v=spf1 ip4:192.0.2.0/33 include:_spf.sender.test -all'] },
    '_spf.sender.test': { TXT: ['v=spf1 a:mail -all'] },
    '_dmarc.broken.com': { TXT: ['v=DMARC1; p=reject'] },
  });
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.address });
  t.teardown(async () => {
    await s.close();
    await dns.close();
  });
  const token = await s.token();
  const api = client(s.url, token);
  const id = (await api.post('/api/v1/domains', { domain: 'broken.com' })).body.id as string;
  const sec = (await api.post(`/api/v1/domains/${id}/security`)).body;
  t.equal(sec.checks.spf, 'fail');
  t.match(sec.details.spf, {
    status: 'fail',
    spf_result: 'permerror',
    lookups: 1,
    void_lookups: 0,
    all: '-all',
    errors: [
      { term: 'ip4:192.0.2.0/33', reason: 'prefix length /33 is not 0-32' },
      { term: 'a:mail (in the record of _spf.sender.test)', reason: /single label/ },
    ],
  });
  t.match(
    sec.recommendations[0],
    /^Fix the SPF record of broken\.com \(receivers answer permerror and ignore it\): ip4:/,
  );

  const dom = (await api.get(`/api/v1/domains/${id}`)).body;
  const why = (dom.health_reasons as { input: string; status: string; points_lost: number; reason: string }[]).find(
    (r) => r.input === 'spf',
  )!;
  t.match(why, { status: 'bad', counted: true });
  t.ok(why.points_lost > 0, 'the broken record costs points');
  t.equal(why.reason, REASON);

  await ensureBuilt();
  const show = await cli(['--remote', s.url, '--token', token, 'domains', 'show', 'broken.com']);
  t.equal(show.code, 0, show.stderr);
  t.ok(show.stdout.includes(REASON), 'domains show prints the same reason');

  const check = await cli(['check', 'broken.com', '--checks', 'dns-security', '--json'], {
    env: {
      DOMMON_DNS_SERVERS: dns.address,
      DOMMON_RDAP_URL: 'http://127.0.0.1:9/',
      DOMMON_WHOIS_SERVER: '127.0.0.1:9',
      DOMMON_IANA_WHOIS: '127.0.0.1:9',
      DOMMON_DATA_DIR: path.join(os.tmpdir(), `dommon-check-spf-${process.pid}`),
    },
  });
  const target = (check.json as { targets: { health: { reasons: { input: string; reason: string }[] } }[] })
    .targets[0]!;
  t.equal(target.health.reasons.find((r) => r.input === 'spf')!.reason, REASON, 'dommon check gives the same reason');
});
