// Loopback targets for `dommon check` and liveness: an HTTPS server with a certificate made here
// (EC P-256, signed by a throw-away CA, by the openssl CLI) and a plain HTTP server.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

interface TestCert {
  dir: string;
  caFile: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

const ossl = (dir: string, args: string[]) =>
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

/** A CA and a leaf for `localhost` and 127.0.0.1 valid `days` from now. */
export function makeCert(days: number, names = ['DNS:localhost', 'IP:127.0.0.1']): TestCert {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-cert-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ossl(dir, [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '30',
    '-subj',
    '/CN=dommon test CA',
  ]);
  ossl(dir, ['req', '-new', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost']);
  fs.writeFileSync(path.join(dir, 'ext.cnf'), `subjectAltName=${names.join(',')}\nbasicConstraints=CA:FALSE\n`);
  ossl(dir, [
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.pem',
    '-days',
    String(days),
    '-extfile',
    'ext.cnf',
  ]);
  const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    caPem: read('ca.pem'),
    certPem: read('leaf.pem'),
    keyPem: read('leaf.key'),
  };
}

interface Peer {
  url: string;
  port: number;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
const ok: Handler = (req, res) => {
  const status = Number(/status=(\d+)/.exec(req.url ?? '')?.[1] ?? 200);
  res.writeHead(status, { 'content-type': 'text/plain' }).end(`status ${status}\n`);
};

async function listen(server: http.Server, scheme: string): Promise<Peer> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://localhost:${port}/`,
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Answers 200, or the status named by `?status=N`. */
export function httpsPeer(cert: TestCert, handler: Handler = ok): Promise<Peer> {
  return listen(https.createServer({ cert: cert.certPem, key: cert.keyPem }, handler), 'https');
}

export function httpPeer(handler: Handler = ok): Promise<Peer> {
  return listen(http.createServer(handler), 'http');
}
