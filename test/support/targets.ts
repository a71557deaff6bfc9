// Probe targets on 127.0.0.1: an HTTP(S) server whose behaviour a test switches at will (status,
// slow, close the socket), a TCP listener, a port known to be closed, and a tiny UDP DNS server that
// answers A 127.0.0.1 for every name (NXDOMAIN for names listed as missing).
import dgram from 'node:dgram';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';
import { startApp, type TestApp } from './app.js';

type Behaviour = { kind: 'status'; code: number } | { kind: 'slow'; ms: number } | { kind: 'close' };

interface HttpTarget {
  port: number;
  /** Requests seen so far (every probe opens a new connection: see `connections`). */
  requests: number;
  connections: number;
  /** Host headers and SNI names seen. */
  hosts: string[];
  behave(b: Behaviour): void;
  close(): Promise<void>;
}

export async function startHttpTarget(
  opts: { tls?: { cert: string; key: string }; behaviour?: Behaviour } = {},
): Promise<HttpTarget> {
  let behaviour: Behaviour = opts.behaviour ?? { kind: 'status', code: 200 };
  const handler: http.RequestListener = (req, res) => {
    target.requests++;
    target.hosts.push(String(req.headers.host));
    const b = behaviour;
    if (b.kind === 'close') {
      req.socket.destroy();
      return;
    }
    if (b.kind === 'slow') {
      const t = setTimeout(() => res.end('late'), b.ms);
      res.on('close', () => clearTimeout(t));
      return;
    }
    res.writeHead(b.code, { 'content-type': 'text/plain' });
    res.end(b.code === 200 ? 'ok' : 'not ok');
  };
  const server = opts.tls
    ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, handler)
    : http.createServer(handler);
  server.on('connection', () => target.connections++);
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const target: HttpTarget = {
    port: (server.address() as AddressInfo).port,
    requests: 0,
    connections: 0,
    hosts: [],
    behave(b) {
      behaviour = b;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return target;
}

interface TcpTarget {
  port: number;
  accepted: number;
  close(): Promise<void>;
}

export async function startTcpTarget(): Promise<TcpTarget> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    t.accepted++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const t: TcpTarget = {
    port: (server.address() as AddressInfo).port,
    accepted: 0,
    async close() {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return t;
}

/**
 * A loopback port for a server that starts later under a number known now (an app whose public URL
 * must be known before it starts, `openssl s_server -accept`): one below Linux's ephemeral range
 * (32768-60999), free when tried. A port the kernel handed out (`listen(0)`) may be taken meanwhile as
 * the local port of any process's outgoing connection (a clean clone's app failed to listen:
 * EADDRINUSE); the kernel never picks one below the range for that.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    const server = net.createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise<void>((r) => server.close(() => r()));
      return port;
    }
  }
}

/** A port nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

interface LoopbackDns {
  /** host:port for DOMMON_DNS_SERVERS. */
  server: string;
  queries: number;
  /** Names answered NXDOMAIN. */
  missing: Set<string>;
  close(): Promise<void>;
}

/**
 * Answers every A query with 127.0.0.1 (or `address`, another loopback address; TTL `ttl`), AAAA with no
 * data, names in `missing` with NXDOMAIN.
 */
export async function startLoopbackDns(opts: { ttl?: number; address?: string } = {}): Promise<LoopbackDns> {
  const sock = dgram.createSocket('udp4');
  const dns: LoopbackDns = {
    server: '',
    queries: 0,
    missing: new Set(),
    close: () => new Promise((r) => sock.close(() => r())),
  };
  sock.on('message', (msg, rinfo) => {
    let q: dnsPacket.Packet;
    try {
      q = dnsPacket.decode(msg);
    } catch {
      return;
    }
    dns.queries++;
    const question = q.questions?.[0];
    if (!question) return;
    const nx = dns.missing.has(question.name.toLowerCase());
    const answers =
      !nx && question.type === 'A'
        ? [{ type: 'A' as const, name: question.name, ttl: opts.ttl ?? 0, data: opts.address ?? '127.0.0.1' }]
        : [];
    const out = dnsPacket.encode({
      id: q.id,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (nx ? 3 : 0),
      questions: q.questions,
      answers,
    });
    sock.send(out, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  dns.server = `127.0.0.1:${sock.address().port}`;
  return dns;
}

/**
 * The app with every name resolving to 127.0.0.1 (a loopback DNS server), a loopback HTTP target
 * (HTTPS with `tls`) and a rate limit no test reaches; all three closed when `t` ends.
 */
export async function startLoopbackApp(
  t: { teardown(fn: () => unknown): void },
  opts: { tls?: { cert: string; key: string }; app?: Parameters<typeof startApp>[1] } = {},
): Promise<{ s: TestApp; target: HttpTarget; dns: LoopbackDns }> {
  const dns = await startLoopbackDns();
  const target = await startHttpTarget({ tls: opts.tls });
  const s = await startApp({ DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '1000000' }, opts.app);
  t.teardown(async () => {
    await s.close();
    await target.close();
    await dns.close();
  });
  return { s, target, dns };
}
