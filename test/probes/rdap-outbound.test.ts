// RDAP and WHOIS under DOMMON_OUTBOUND_DENY: every hop of an RDAP look-up (the base, each redirect),
// the bootstrap refresh, the IANA WHOIS referral and the WHOIS server it names go through the outbound
// policy; redirects are followed at most MAX_RDAP_REDIRECTS times, and an RDAP answer is read up to
// MAX_RDAP_BYTES. Real servers on 127.0.0.1 and on 127.0.0.2, the latter denied by the policy: it must
// never see a connection.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { outboundPolicy } from '../../src/domain/outbound.js';
import { createResolver } from '../../src/net/resolve.js';
import { guardedAgent } from '../../src/net/guarded-agent.js';
import { createBootstrapStore, rdapLookup } from '../../src/probes/rdap.js';
import { MAX_RDAP_BYTES, MAX_RDAP_REDIRECTS } from '../../src/probes/rdap-http.js';
import { createRegistrationProbes } from '../../src/probes/registration.js';
import { createWhoisReferrals } from '../../src/probes/whois-referral.js';
import { rdapDomain } from '../support/rdap-server.js';
import { client, startApp, tempDir } from '../support/app.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** An HTTP server on `host` that counts connections and requests. */
async function serve(t: Test, host: string, handler: Handler) {
  const seen = { connections: 0, requests: [] as string[] };
  const server = http.createServer((req, res) => {
    seen.requests.push(req.url ?? '');
    handler(req, res);
  });
  server.on('connection', () => seen.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, seen };
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/rdap+json' });
  res.end(JSON.stringify(body));
};
const redirect = (res: http.ServerResponse, to: string) => {
  res.writeHead(302, { location: to });
  res.end();
};

const DOMAIN = rdapDomain('example.com', { registrar: 'Loopback Registrar', expiry: '2031-05-06T00:00:00Z' });
const deny2 = () => guardedAgent(createResolver([], { policy: outboundPolicy('127.0.0.2/32', undefined) }));
const lookup = (base: string, dispatcher = deny2()) =>
  rdapLookup('example.com', base, AbortSignal.timeout(10_000), () => new Date(), dispatcher);

t.test('a redirect is followed within the policy; a hop to a denied address is never dialled', async (t) => {
  const denied = await serve(t, '127.0.0.2', (_req, res) => json(res, 200, DOMAIN));
  const registry = await serve(t, '127.0.0.1', (req, res) => json(res, 200, DOMAIN));
  const front = await serve(t, '127.0.0.1', (req, res) => {
    if (req.url?.startsWith('/to-registry/')) return redirect(res, `${registry.url}/domain/example.com`);
    if (req.url?.startsWith('/relative/')) return redirect(res, '/to-registry/domain/example.com');
    if (req.url?.startsWith('/to-denied/')) return redirect(res, `${denied.url}/domain/example.com`);
    if (req.url?.startsWith('/to-file/')) return redirect(res, 'file:///etc/passwd');
    return redirect(res, `/loop${req.url}`); // a loop
  });

  const ok = await lookup(`${front.url}/to-registry/`);
  t.match(ok, { kind: 'ok', source: 'rdap', data: { registrar: 'Loopback Registrar', expiry_date: '2031-05-06' } });
  t.same(registry.seen.requests, ['/domain/example.com'], 'the redirect was followed to the registry');
  const rel = await lookup(`${front.url}/relative/`);
  t.match(rel, { kind: 'ok', data: { registrar: 'Loopback Registrar' } }, 'a relative Location, two hops');

  const host = new URL(front.url).host;
  const toDenied = await lookup(`${front.url}/to-denied/`);
  t.same(toDenied, {
    kind: 'error',
    source: 'rdap',
    server: host,
    reason: `RDAP ${host}: after a redirect: denied: address 127.0.0.2 is denied by DOMMON_OUTBOUND_DENY (127.0.0.2/32)`,
  });
  t.same(await lookup(`${front.url}/to-file/`), {
    kind: 'error',
    source: 'rdap',
    server: host,
    reason: `RDAP ${host}: HTTP 302 redirects to a URL that is not http(s)`,
  });
  const before = front.seen.requests.length;
  t.same(await lookup(`${front.url}/loop/`), {
    kind: 'error',
    source: 'rdap',
    server: host,
    reason: `RDAP ${host}: more than ${MAX_RDAP_REDIRECTS} redirects`,
  });
  t.equal(front.seen.requests.length - before, MAX_RDAP_REDIRECTS + 1, 'the first request and 3 redirects, no more');

  // The base itself on a denied address: refused before any connection.
  const base = await lookup(`${denied.url}/`);
  t.same(base, {
    kind: 'error',
    source: 'rdap',
    server: new URL(denied.url).host,
    reason: `RDAP ${new URL(denied.url).host}: denied: address 127.0.0.2 is denied by DOMMON_OUTBOUND_DENY (127.0.0.2/32)`,
  });
  t.equal(denied.seen.connections, 0, 'the denied server never saw a connection');
});

t.test('an answer past MAX_RDAP_BYTES is not read to its end', async (t) => {
  let sent = 0;
  let closedEarly = false;
  const big = await serve(t, '127.0.0.1', (_req, res) => {
    // 50 MB of a JSON string, written as the client takes it.
    res.writeHead(200, { 'content-type': 'application/rdap+json' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    res.write('{"objectClassName":"domain","x":"');
    const more = () => {
      while (sent < 50 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end('"}');
    };
    res.on('close', () => (closedEarly = sent < 50 * 1024 * 1024));
    more();
  });
  const host = new URL(big.url).host;
  // No dispatcher given: the default one (the default policy) serves.
  const r = await rdapLookup('example.com', `${big.url}/`, AbortSignal.timeout(20_000), () => new Date());
  t.same(r, {
    kind: 'error',
    source: 'rdap',
    server: host,
    reason: `RDAP ${host}: answer larger than ${MAX_RDAP_BYTES} bytes (not read)`,
  });
  await new Promise((r) => setTimeout(r, 200));
  t.ok(closedEarly, 'the connection was closed before the 50 MB were sent');
  t.ok(sent < 20 * 1024 * 1024, `at most a fraction was sent (${sent} bytes)`);
});

t.test('the bootstrap refresh goes through the policy too, and is bounded', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const denied = await serve(t, '127.0.0.2', (_req, res) =>
    json(res, 200, { publication: '2030-01-01T00:00:00Z', services: [[['test'], ['http://127.0.0.2/']]] }),
  );
  const front = await serve(t, '127.0.0.1', (_req, res) => redirect(res, `${denied.url}/dns.json`));
  const errors: string[] = [];
  for (const url of [`${denied.url}/dns.json`, `${front.url}/dns.json`]) {
    const store = createBootstrapStore({ dataDir, url, dispatcher: deny2(), onError: (e) => errors.push(e.message) });
    t.equal(await store.refreshIfStale(new Date('2099-01-01T00:00:00Z')), 'failed');
    t.equal(store.baseFor('x.test'), null, 'the denied copy was not taken');
  }
  t.same(errors, [
    `RDAP bootstrap ${denied.url}/dns.json: denied: address 127.0.0.2 is denied by DOMMON_OUTBOUND_DENY (127.0.0.2/32)`,
    `RDAP bootstrap ${front.url}/dns.json: after a redirect: denied: address 127.0.0.2 is denied by DOMMON_OUTBOUND_DENY (127.0.0.2/32)`,
  ]);
  t.equal(denied.seen.connections, 0);
  t.notOk(fs.existsSync(`${dataDir}/rdap-dns.json`));
});

t.test('through the daemon: DOMMON_OUTBOUND_DENY covers DOMMON_RDAP_URL and its redirects', async (t) => {
  const denied = await serve(t, '127.0.0.2', (_req, res) => json(res, 200, DOMAIN));
  const front = await serve(t, '127.0.0.1', (_req, res) => redirect(res, `${denied.url}/domain/example.com`));
  const s = await startApp({ DOMMON_RDAP_URL: `${front.url}/`, DOMMON_OUTBOUND_DENY: 'metadata,127.0.0.2' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token());
  const id = (await api.post('/api/v1/domains', { domain: 'example.com' })).body.id;
  const r = (await api.post(`/api/v1/domains/${id}/registration`)).body;
  t.equal(r.expiry_date ?? null, null, 'no date came from the denied server');
  t.match(JSON.stringify(r), /after a redirect: denied: address 127\.0\.0\.2 is denied by DOMMON_OUTBOUND_DENY/);
  t.equal(denied.seen.connections, 0, 'the denied server never saw a connection');
});

/** A WHOIS server on `host` that counts connections and answers `text`. */
async function whoisOn(t: Test, host: string, text: string) {
  const seen = { connections: 0 };
  const server = net.createServer((socket) => {
    seen.connections++;
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end(text));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { address: `${host}:${(server.address() as AddressInfo).port}`, seen };
}

t.test('WHOIS: the server IANA refers to and IANA itself are dialled only within the policy', async (t) => {
  const denied = await whoisOn(
    t,
    '127.0.0.2',
    'Domain Name: EXAMPLE.ZZ\r\nRegistry Expiry Date: 2030-01-01T00:00:00Z\r\n',
  );
  const iana = await whoisOn(
    t,
    '127.0.0.1',
    `domain:       ZZ\n\nwhois:        ${denied.address}\n\nstatus:       ACTIVE\n`,
  );
  const resolver = createResolver([], { policy: outboundPolicy('127.0.0.2/32', undefined) });
  const now = () => new Date();
  const probes = createRegistrationProbes({
    bootstrap: createBootstrapStore({ dataDir: '/nonexistent-dommon' }),
    rdapUrl: null,
    whoisServer: null,
    now,
    resolver,
    referrals: createWhoisReferrals({ iana: iana.address, now, resolver }),
  });
  const signal = AbortSignal.timeout(10_000);
  const choice = await probes.whois.serverFor('example.zz', signal, 5000);
  t.same(choice, { server: denied.address }, 'IANA (allowed) was asked and named the denied server');
  const r = await probes.whois.lookup('example.zz', (choice as { server: string }).server, signal, 5000);
  t.same(r, {
    kind: 'error',
    source: 'whois',
    server: denied.address,
    reason: `WHOIS ${denied.address}: denied: address 127.0.0.2 is denied by DOMMON_OUTBOUND_DENY (127.0.0.2/32)`,
  });
  t.equal(denied.seen.connections, 0, 'the denied WHOIS server never saw a connection');

  // IANA itself on a denied address: not asked either.
  const deniedIana = await whoisOn(t, '127.0.0.2', 'domain: ZZ\n');
  const refs = createWhoisReferrals({ iana: deniedIana.address, now, resolver });
  t.same(await refs.serverFor('zz', 5000), {
    error: `IANA WHOIS ${deniedIana.address}: denied: address 127.0.0.2 is denied by DOMMON_OUTBOUND_DENY (127.0.0.2/32)`,
  });
  t.equal(deniedIana.seen.connections, 0);
});
