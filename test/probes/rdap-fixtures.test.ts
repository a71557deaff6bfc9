// Real RDAP answers of several registries (test/fixtures/registry/rdap, sources in SOURCES.md) served
// by a loopback RDAP server (DOMMON_RDAP_URL), read through the API: expiry (UTC day), registrar,
// state, nameservers, transfer lock and DNSSEC as expected.json says; and the HTTP answers that are
// not a domain object (404, 400, 429 with Retry-After).
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { startRdapServer } from '../support/rdap-server.js';

const DIR = path.join(import.meta.dirname, '../fixtures/registry/rdap');
interface Expected {
  query: string;
  state: string;
  expiry_date: string | null;
  registrar: string;
  nameservers: number;
  transfer_lock: boolean | null;
  dnssec_signed: boolean | null;
}
const expected = JSON.parse(fs.readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as Record<string, Expected>;

t.test('every fixture has an expectation and a source', async (t) => {
  const files = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.json') && f !== 'expected.json')
    .sort();
  t.same(Object.keys(expected).sort(), files);
  const sources = fs.readFileSync(path.join(DIR, 'SOURCES.md'), 'utf8');
  for (const f of files) t.match(sources, f, `${f} is named in SOURCES.md`);
  t.ok(files.length >= 12);
});

t.test("registries' RDAP answers read through the API", async (t) => {
  const answers: Record<string, object> = {};
  for (const [file, e] of Object.entries(expected))
    answers[e.query] = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
  const rdap = await startRdapServer({
    ...answers,
    'limited.com': {
      status: 429,
      headers: { 'retry-after': '300' },
      body: { errorCode: 429, title: 'Too Many Requests' },
    },
    'outside.com': { status: 400, body: { errorCode: 400, title: 'Bad Request', description: ['domain not served'] } },
  });
  const s = await startApp({ DOMMON_RDAP_URL: rdap.url });
  t.teardown(async () => {
    await s.close();
    await rdap.close();
  });
  // The look-ups here are the ones asked for: the daemon's own first round of each new domain, which
  // would meet the same answers (a 429 among them) at a moment of its choosing, does not run (pause, not
  // stop: stop aborts the look-ups asked for too).
  await s.app.intel.pause();
  const api = client(s.url, await s.token());
  for (const [file, e] of Object.entries(expected)) {
    const id = (await api.post('/api/v1/domains', { domain: e.query })).body.id;
    const r = (await api.post(`/api/v1/domains/${id}/registration`)).body;
    t.match(
      r,
      {
        state: e.state,
        source: 'rdap',
        expiry_date: e.expiry_date,
        registrar: e.registrar,
        transfer_lock: e.transfer_lock,
        dnssec_signed: e.dnssec_signed,
      },
      file,
    );
    t.equal(r.nameservers.length, e.nameservers, `${file}: nameservers`);
    t.ok(rdap.requests.includes(`/domain/${e.query}`), `${file}: asked for ${e.query}`);
  }

  const add = async (name: string) => (await api.post('/api/v1/domains', { domain: name })).body.id as string;
  // 404 (and an errorCode 404 body): not registered.
  const gone = (await api.post(`/api/v1/domains/${await add('gone.com')}/registration`)).body;
  t.match(gone, { state: 'error', reason: /RDAP 127\.0\.0\.1:\d+: gone\.com is not registered \(404\)/ });
  // 400: the server does not serve the name; an error, never "not registered".
  const outside = (await api.post(`/api/v1/domains/${await add('outside.com')}/registration`)).body;
  t.match(outside, { state: 'error', reason: /does not take this query \(HTTP 400\); it may not serve outside\.com/ });
  t.notMatch(outside.reason, /not registered/);
  // 429 with Retry-After: rate limited, and the next look-up waits as long.
  const before = Date.now();
  const limited = (await api.post(`/api/v1/domains/${await add('limited.com')}/registration`)).body;
  t.match(limited, { state: 'error', reason: /rate limited \(429\)/ });
  t.ok(Date.parse(limited.next_check_at) - before >= 299_000, 'Retry-After: 300 honoured');
});
