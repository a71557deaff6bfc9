// Loopback peers for exposure tests: a TCP listener (a stand-in "database"), an HTTP server with a
// fixed page, TLS servers (modern or TLS 1.0-only) with certificates made by the openssl CLI (EC P-256).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import http from 'node:http';
import tls from 'node:tls';

export interface Peer {
  address: string;
  port: number;
  close(): Promise<void>;
}

function closer(server: net.Server): () => Promise<void> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return () =>
    new Promise<void>((resolve) => {
      sockets.forEach((s) => s.destroy());
      server.close(() => resolve());
    });
}

async function listen(server: net.Server, address: string): Promise<Peer> {
  const close = closer(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  return { address, port: (server.address() as net.AddressInfo).port, close };
}

/** Accepts connections and says nothing (a port that is open). */
export function tcpListener(address: string): Promise<Peer> {
  return listen(
    net.createServer((s) => s.on('error', () => undefined)),
    address,
  );
}

/** A port on `address` that refuses connections (bound, then closed). */
export async function closedPort(address = '127.0.0.1'): Promise<number> {
  const p = await tcpListener(address);
  await p.close();
  return p.port;
}

export function httpPage(address: string, status: number, body: string): Promise<Peer> {
  return listen(
    http.createServer((_req, res) => res.writeHead(status, { 'content-type': 'text/html' }).end(body)),
    address,
  );
}

interface TestCert {
  key: string;
  cert: string;
}

/** A self-signed EC certificate for `names` (first is the CN), valid for `days`; null without openssl. */
export function makeCert(names: string[], days: number): TestCert | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        path.join(dir, 'k.pem'),
        '-out',
        path.join(dir, 'c.pem'),
        '-days',
        String(days),
        '-subj',
        `/CN=${names[0]}`,
        '-addext',
        `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
      ],
      { stdio: 'ignore' },
    );
    return {
      key: fs.readFileSync(path.join(dir, 'k.pem'), 'utf8'),
      cert: fs.readFileSync(path.join(dir, 'c.pem'), 'utf8'),
    };
  } catch {
    return null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type TlsMode = 'modern' | 'tls1.0-only';

/** A TLS server answering HTTP 200; `tls1.0-only` accepts nothing but TLS 1.0 (security level 0). */
export function tlsServer(address: string, c: TestCert, mode: TlsMode): Promise<Peer> {
  const opts: tls.TlsOptions =
    mode === 'modern'
      ? { key: c.key, cert: c.cert, minVersion: 'TLSv1.2' }
      : { key: c.key, cert: c.cert, minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' };
  const server = tls.createServer(opts, (s) => {
    s.on('error', () => undefined);
    s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
  });
  server.on('tlsClientError', () => undefined);
  return listen(server, address);
}

/** Whether this Node/OpenSSL lets a client and server agree on TLS 1.0. */
export async function tls10Supported(c: TestCert): Promise<boolean> {
  const p = await tlsServer('127.0.0.1', c, 'tls1.0-only');
  try {
    return await new Promise<boolean>((resolve) => {
      const s = tls.connect({
        host: p.address,
        port: p.port,
        rejectUnauthorized: false,
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1',
        ciphers: 'DEFAULT@SECLEVEL=0',
      });
      s.once('secureConnect', () => {
        resolve(s.getProtocol() === 'TLSv1');
        s.destroy();
      });
      s.once('error', () => resolve(false));
    });
  } finally {
    await p.close();
  }
}
