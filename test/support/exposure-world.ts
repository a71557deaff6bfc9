// The exposure test world: a DNS server for acme.test (takeover-prone CNAMEs, a wildcard, an
// AXFR-open nameserver, missing DMARC/CAA), loopback peers standing in for web, database and legacy
// TLS hosts, and the real app (startApp: offline defaults, answers checked against the OpenAPI
// document) whose scanner dials them through the port-override hook.
import type { App } from '../../src/app.js';
import type { Clock } from '../../src/domain/clock.js';
import { client, startApp } from './app.js';
import { startExposureDns, type ExposureDnsServer, type Rec } from './exposure-dns.js';
import { closedPort, httpPage, makeCert, tcpListener, tls10Supported, tlsServer, type Peer } from './exposure-peers.js';

export const ZONE = 'acme.test';

function zoneRecords(): Rec[] {
  return [
    {
      name: ZONE,
      type: 'SOA',
      data: {
        mname: `ns1.${ZONE}`,
        rname: `hostmaster.${ZONE}`,
        serial: 1,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum: 60,
      },
    },
    { name: ZONE, type: 'NS', data: `ns1.${ZONE}` },
    { name: ZONE, type: 'A', data: '127.0.0.1' },
    { name: ZONE, type: 'TXT', data: 'v=spf1 -all' },
    { name: `ns1.${ZONE}`, type: 'A', data: '127.0.0.1' },
    { name: `www.${ZONE}`, type: 'A', data: '127.0.0.1' },
    // Wordlist names: a CNAME to a GitHub Pages name that no longer exists ...
    { name: `blog.${ZONE}`, type: 'CNAME', data: 'acme-gone.github.io' },
    // ... a Shopify name that resolves but shows the "no such shop" page ...
    { name: `shop.${ZONE}`, type: 'CNAME', data: 'acme.myshopify.com' },
    { name: 'acme.myshopify.com', type: 'A', data: '127.0.0.6' },
    // ... a CNAME to a name outside any provider that does not exist ...
    { name: `docs.${ZONE}`, type: 'CNAME', data: 'gone.example-cdn.test' },
    // ... an address where nothing answers, and a database host.
    { name: `old.${ZONE}`, type: 'A', data: '127.0.0.2' },
    { name: `db.${ZONE}`, type: 'A', data: '127.0.0.3' },
    // Only reachable through the user-added inventory: a TLS 1.0-only server with a foreign certificate.
    { name: `legacy.${ZONE}`, type: 'A', data: '127.0.0.4' },
    { name: `*.${ZONE}`, type: 'A', data: '127.0.0.9' },
  ];
}

export interface World {
  app: App;
  url: string;
  dns: ExposureDnsServer;
  tls10: boolean;
  /** The clock the app reads; move it with `clock.advance(ms)`. */
  clock: Clock & { advance(ms: number): void };
  token(team?: string): Promise<{ token: string; team_id: string }>;
  api(token: string): ReturnType<typeof client>;
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const webCert = makeCert([ZONE, `*.${ZONE}`], 30);
  const legacyCert = makeCert(['other.invalid'], 30);
  if (!webCert || !legacyCert) throw new Error('openssl CLI is needed to make test certificates');
  const tls10 = await tls10Supported(legacyCert);
  const peers: Peer[] = [];
  const keep = async (p: Promise<Peer>) => {
    const x = await p;
    peers.push(x);
    return x;
  };
  const web = await keep(tlsServer('127.0.0.1', webCert, 'modern'));
  const page = await keep(httpPage('127.0.0.1', 200, '<h1>acme</h1>'));
  const shop = await keep(httpPage('127.0.0.6', 404, '<h1>Sorry, this shop is currently unavailable.</h1>'));
  const db = await keep(tcpListener('127.0.0.3'));
  const legacy = tls10 ? await keep(tlsServer('127.0.0.4', legacyCert, 'tls1.0-only')) : null;
  const closed = await closedPort();
  const dns = await startExposureDns(zoneRecords(), { axfr: [ZONE] });
  const ports: Record<string, number> = {
    '127.0.0.1:80': page.port,
    '127.0.0.1:443': web.port,
    '127.0.0.1:53': dns.port,
    '127.0.0.6:80': shop.port,
    '127.0.0.3:5432': db.port,
    ...(legacy ? { '127.0.0.4:443': legacy.port } : {}),
  };
  let now = Date.now();
  const clock = { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
  const s = await startApp(
    { DOMMON_DNS_SERVERS: dns.server },
    {
      clock,
      exposure: {
        // Every other well-known port on every address goes to a port that refuses.
        portFor: (port, address) => ports[`${address}:${port}`] ?? closed,
        options: { connectTimeoutMs: 500, httpTimeoutMs: 1500, tlsTimeoutMs: 1500, axfrTimeoutMs: 1500 },
      },
    },
  );
  const { app, url } = s;
  return {
    app,
    url,
    dns,
    tls10,
    clock,
    async token(team = 'acme-team') {
      const t = await app.services.access.createToken({ team });
      return { token: t.token, team_id: t.team_id };
    },
    api: (token) => client(url, token),
    async close() {
      await s.close();
      await dns.close();
      await Promise.all(peers.map((p) => p.close()));
    },
  };
}
