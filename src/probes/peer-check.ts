// The peer checks of `dommon doctor` (src/services/doctor.ts): does each configured outside peer
// answer? One DNS query over UDP, one RDAP GET, one WHOIS query, and the SMTP conversation the
// e-mail channel will hold. A failure throws an Error whose message says what failed.
import dgram from 'node:dgram';
import dns from 'node:dns/promises';
import net from 'node:net';
import { randomInt } from 'node:crypto';
import dnsPacket from 'dns-packet';
import nodemailer from 'nodemailer';
import type { Config } from '../config/index.js';
import type { Dispatcher } from 'undici';
import { smtpFailure, smtpTransportOptions } from '../net/smtp.js';
import { rdapGet } from './rdap-http.js';

/** A check's outcome when the peer answered; `warn` when it answered badly. */
interface PeerAnswer {
  status: 'ok' | 'warn';
  detail: string;
}

/** "host", "host:port", "[v6]:port" or a bare IPv6 address. */
function splitHostPort(v: string, defPort: number): { host: string; port: number } {
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(v);
  if (bracket) return { host: bracket[1]!, port: bracket[2] ? Number(bracket[2]) : defPort };
  if (net.isIPv6(v)) return { host: v, port: defPort };
  const i = v.lastIndexOf(':');
  return i > 0 ? { host: v.slice(0, i), port: Number(v.slice(i + 1)) } : { host: v, port: defPort };
}

/** One UDP query for the root NS set; any well-formed answer with our id means the resolver answers. */
export async function pingDns(server: string, timeoutMs: number): Promise<string> {
  const { host, port } = splitHostPort(server, 53);
  const address = net.isIP(host) ? host : (await dns.lookup(host)).address;
  const id = randomInt(1, 65535);
  const query = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: 'NS', name: '.' }],
  });
  const socket = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer from ${server} within ${timeoutMs} ms`)), timeoutMs);
      socket.on('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`${server}: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
      });
      socket.on('message', (msg) => {
        try {
          const p = dnsPacket.decode(msg);
          if (p.id !== id) return;
          clearTimeout(timer);
          resolve(`${server} answered (${(p as { rcode?: string }).rcode ?? 'NOERROR'})`);
        } catch {
          /* not a DNS answer: keep waiting */
        }
      });
      socket.send(query, port, address);
    });
  } finally {
    socket.close();
  }
}

/** GET {base}/help the way RDAP look-ups go (bounded redirects, each hop checked; the default policy
 * unless a guarded `dispatcher` is given); any answer below 500 means the server answers. */
export async function pingRdap(base: string, timeoutMs: number, dispatcher?: Dispatcher): Promise<PeerAnswer> {
  const url = `${base}/help`;
  const res = await rdapGet(url, 'application/rdap+json, application/json', AbortSignal.timeout(timeoutMs), dispatcher);
  if ('failed' in res) throw new Error(`${url}: ${res.failed}`);
  await res.discard();
  if (res.status >= 500) return { status: 'warn', detail: `${url} answered HTTP ${res.status}` };
  return { status: 'ok', detail: `${url} answered HTTP ${res.status}` };
}

/** Connects, asks for one name and reads until the server closes (WHOIS answers then hangs up). */
export async function pingWhois(server: string, timeoutMs: number): Promise<PeerAnswer> {
  const { host, port } = splitHostPort(server, 43);
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      if (bytes) resolve({ status: 'ok', detail: `${server} answered ${bytes} bytes` });
      else reject(new Error(`no answer from ${server} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('connect', () => socket.write('example.com\r\n'));
    socket.on('data', (d) => {
      bytes += d.length;
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${server}: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (bytes) resolve({ status: 'ok', detail: `${server} answered ${bytes} bytes` });
      else resolve({ status: 'warn', detail: `${server} accepted the connection but sent nothing` });
    });
  });
}

/** Greeting, EHLO, TLS as DOMMON_SMTP_TLS says and (with credentials in the URL) authentication, as the e-mail channel will do. */
export async function pingSmtp(config: Readonly<Config>, timeoutMs: number, ca?: string | string[]): Promise<string> {
  const options = smtpTransportOptions(config.smtpUrl!, config.smtpTls, { timeoutMs, ca });
  const host = options.host!.includes(':') ? `[${options.host}]` : options.host;
  const where = `${new URL(config.smtpUrl!).protocol}//${host}:${options.port} (DOMMON_SMTP_TLS=${config.smtpTls})`;
  const transport = nodemailer.createTransport(options);
  try {
    await transport.verify();
    return `${where} answered${options.auth ? ' and accepted the credentials' : ''}`;
  } catch (err) {
    // The message may echo the URL; never print the password.
    const pass = options.auth?.pass;
    throw new Error(
      `${where}: ${smtpFailure(err, config.smtpTls).error.replaceAll(pass || '\u0000', '****')}`
        .replace(/\s+/g, ' ')
        .trim(),
    );
  } finally {
    transport.close();
  }
}
