// The WHOIS corpus end to end: every answer of test/fixtures/registry/whois/ served by a loopback
// WHOIS server (one per TLD, so the per-server spacing does not serialise them), looked up by the
// real app (RDAP points at a closed port, so every look-up falls back to WHOIS) and read back
// through the API: expiry to the UTC day, registrar and state.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, startApp, tempDir } from '../support/app.js';
import { BOOTSTRAP_FILE } from '../../src/probes/rdap.js';
import { startWhoisServer, type WhoisServer } from '../support/whois-server.js';
import type { WhoisCase } from '../domain/whois-corpus.test.js';

const dir = path.join(import.meta.dirname, '../fixtures/registry/whois');
const cases = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as WhoisCase[];

t.test('WHOIS corpus through the app: expiry, registrar and state as the API shows them', async (t) => {
  const byTld = new Map<string, Record<string, string>>();
  for (const c of cases) {
    const tld = c.domain.split('.').pop()!;
    const answers = byTld.get(tld) ?? {};
    answers[c.domain.toLowerCase()] = fs.readFileSync(path.join(dir, c.file), 'utf8');
    byTld.set(tld, answers);
  }
  const servers: WhoisServer[] = [];
  const map: string[] = [];
  for (const [tld, answers] of byTld) {
    const srv = await startWhoisServer(answers);
    servers.push(srv);
    map.push(`${tld}=${srv.address}`);
  }
  // RDAP: every TLD's service is a closed loopback port (a path per TLD, so the per-server spacing
  // does not serialise the look-ups); each look-up fails there and falls back to WHOIS.
  const dataDir = tempDir();
  const services = [...byTld.keys()].map((tld) => [[tld], [`http://127.0.0.1:9/${tld}/`]]);
  fs.writeFileSync(
    path.join(dataDir, BOOTSTRAP_FILE),
    JSON.stringify({ services, fetched_at: new Date().toISOString() }),
  );
  // DOMMON_WHOIS_SERVER empty: the per-TLD table decides.
  const s = await startApp(
    { DOMMON_RDAP_URL: '', DOMMON_WHOIS_SERVER: '', DOMMON_WHOIS_SERVERS: map.join(','), DOMMON_RATE_LIMIT: '100000' },
    { dataDir },
  );
  t.teardown(async () => {
    await s.close();
    await Promise.all(servers.map((x) => x.close()));
  });
  // The look-ups are the ones asked for: the daemon's own first round of each new domain would take
  // the same servers' turns (one look-up at a time each) at moments of its choosing.
  await s.app.intel.pause();
  const api = client(s.url, await s.token());
  let right = 0;
  const started = Date.now();
  const check = async (c: WhoisCase) => {
    const created = await api.post('/api/v1/domains', { domain: c.domain });
    t.equal(created.status, 201, `${c.domain}: added`);
    const id = created.body.id as string;
    const reg = await api.post(`/api/v1/domains/${id}/registration`);
    if (c.state === 'rate_limited') {
      // A throttled answer is a failed look-up that backs the server off, never data.
      t.equal(reg.body.state, 'error', `${c.domain}: rate limited is a failure`);
      t.match(reg.body.reason, /rate limited/, `${c.domain}: the reason says rate limited`);
      t.equal(reg.body.expiry_date, null);
      right++;
      return;
    }
    const got = {
      state: reg.body.state,
      source: reg.body.source,
      expiry: reg.body.expiry_date,
      registrar: reg.body.registrar,
    };
    t.match(reg.body.reason ?? '', c.expiry ? /^$/ : /no expiry date/, `${c.domain}: reason`);
    const want = { state: c.state, source: 'whois', expiry: c.expiry, registrar: c.registrar };
    t.same(got, want, `${c.file}: registration`);
    const detail = await api.get(`/api/v1/domains/${id}`);
    t.equal(detail.body.whois.expiry_date, c.expiry, `${c.domain}: the domain shows the expiry`);
    if (JSON.stringify(got) === JSON.stringify(want)) right++;
  };
  // Throttled answers last: they back their server off, which would block the next look-up there.
  const ordered = [
    ...cases.filter((c) => c.state !== 'rate_limited'),
    ...cases.filter((c) => c.state === 'rate_limited'),
  ];
  for (let i = 0; i < ordered.length; i += 8) await Promise.all(ordered.slice(i, i + 8).map(check));
  t.comment(
    `WHOIS corpus through the app: ${right} of ${cases.length} read right in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
});
