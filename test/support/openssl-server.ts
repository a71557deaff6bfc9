// A TLS server that serves what Node itself refuses to load (a certificate signed with MD5 or SHA-1, a
// key under OpenSSL's security level): `openssl s_server` at security level 0 on a loopback port.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './targets.js';

interface OpensslServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `cert` (the leaf) with `chain` (PEM intermediates, may be empty) until closed. */
export async function startOpensslServer(o: { cert: string; key: string; chain?: string }): Promise<OpensslServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-s-server-'));
  const file = (name: string, text: string) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const port = await freePort();
  const args = [
    's_server',
    '-accept',
    `127.0.0.1:${port}`,
    '-cert',
    file('leaf.pem', o.cert),
    '-key',
    file('key.pem', o.key),
  ];
  if (o.chain) args.push('-cert_chain', file('chain.pem', o.chain));
  args.push('-cipher', 'DEFAULT@SECLEVEL=0', '-www');
  const child = spawn('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('ACCEPT')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`openssl s_server exited ${code}: ${out}`)));
  });
  return {
    port,
    close: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill();
      }),
  };
}
