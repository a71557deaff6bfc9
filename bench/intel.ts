// bench/intel: figures for the domain-intelligence workers on loopback peers.
// - health/expiry sweep over SEED domains (default 2,000) with registration data;
// - DNS security checks per second against the loopback DNS server (36 queries each);
// - RDAP look-ups per second against the loopback RDAP server (limiter spacing applies per server).
// Usage: node --import tsx bench/intel.ts   (SEED=2000 N=50 to change)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config/index.js';
import { openLocal } from '../src/app.js';
import { startDnsServer } from '../test/support/dns-server.js';
import { startRdapServer, rdapDomain } from '../test/support/rdap-server.js';
import { domainRow } from '../test/support/rows.js';

const SEED = Number(process.env.SEED ?? 2000);
const N = Number(process.env.N ?? 50);
const dns = await startDnsServer({
  'bench.com': { TXT: ['v=spf1 mx -all'], CAA: [{ tag: 'issue', value: 'letsencrypt.org' }] },
  '_dmarc.bench.com': { TXT: ['v=DMARC1; p=reject'] },
});
const rdap = await startRdapServer({
  'bench.com': rdapDomain('bench.com', {
    registrar: 'R',
    expiry: '2030-01-01T00:00:00Z',
    nameservers: ['ns.bench.test'],
  }),
});
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-bench-intel-'));
const config = loadConfig({ dataDir }, { DOMMON_DNS_SERVERS: dns.address, DOMMON_RDAP_URL: rdap.url });
const { store, services } = await openLocal(config, undefined, { log: pino({ level: 'silent' }) });
const { team_id } = await services.access.createToken({ team: 'bench' });
await store.transaction(async (tx) => {
  const now = new Date().toISOString();
  for (let i = 0; i < SEED; i++) {
    const id = crypto.randomUUID();
    await tx.domains.insert(domainRow({ id, team_id, domain: `seed-${i}.com`, token: `dommon-verify-${i}`, at: now }));
    await tx.registrations.save({
      domain_id: id,
      source: 'rdap',
      state: 'ok',
      reason: null,
      registrar: 'R',
      expiry_date: new Date(Date.now() + (i % 400) * 86_400_000).toISOString().slice(0, 10),
      creation_date: null,
      updated_date: null,
      nameservers: ['ns1.x'],
      statuses: [],
      transfer_lock: true,
      dnssec_signed: null,
      checked_at: now,
      next_check_at: null,
    });
  }
});
let t0 = performance.now();
const first = await services.intel.sweep();
const sweep1 = performance.now() - t0;
t0 = performance.now();
await services.intel.sweep();
const sweep2 = performance.now() - t0;
console.log(
  `sweep over ${SEED} domains: first ${Math.round(sweep1)} ms (${first.alerts} expiry alerts written), steady ${Math.round(sweep2)} ms`,
);

const d = await services.domains.create(team_id, { domain: 'bench.com' });
t0 = performance.now();
for (let i = 0; i < N; i++) await services.intel.security.refresh(d, { fresh: true });
const sec = performance.now() - t0;
console.log(
  `security check (SPF, DMARC, 30 DKIM selectors, CAA, DS, DNSKEY): ${(sec / N).toFixed(1)} ms each, ${(N / (sec / 1000)).toFixed(0)}/s sequential`,
);
t0 = performance.now();
const M = Math.min(N, 10);
for (let i = 0; i < M; i++) await services.intel.registration.refresh(d, { fresh: true });
const reg = performance.now() - t0;
console.log(`RDAP refresh: ${(reg / M).toFixed(0)} ms each (includes the 500 ms per-server spacing)`);
await store.close();
await dns.close();
await rdap.close();
fs.rmSync(dataDir, { recursive: true, force: true });
