// A loopback SMTP server (smtp-server) that accepts every message and decodes its text and HTML parts.
// By default it offers STARTTLS with a certificate for 127.0.0.1 from a test CA (`ca`), so callers
// trust that CA (AppOptions.smtp.ca, SendContext.smtpCa, NODE_EXTRA_CA_CERTS=caFile for a child).
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { issue, makeCa, type TestCa, type TestCert } from './certs.js';

interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  text: string;
  html: string;
  auth: string | null;
  /** The session was TLS (implicit or STARTTLS) at MAIL FROM and at DATA. */
  secure: boolean;
}

interface SmtpPeer {
  /** smtp:// (smtps:// with tls 'implicit'), with user:pass@ when the peer asks for AUTH. */
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** User names of every AUTH attempt (onAuth calls), successful or not. */
  authAttempts: string[];
  /** The test CA (PEM) that signed the default certificate, and its file. */
  ca: string;
  caFile: string;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

function decodeWords(s: string): string {
  return s.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_, enc: string, data: string) =>
    enc.toLowerCase() === 'b' ? Buffer.from(data, 'base64').toString('utf8') : decodeQp(data.replace(/_/g, ' ')),
  );
}

function decodeQp(s: string): string {
  const bytes: number[] = [];
  const src = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '=' && /^[0-9A-F]{2}$/i.test(src.slice(i + 1, i + 3))) {
      bytes.push(parseInt(src.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(src[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function splitHead(part: string): { headers: Record<string, string>; body: string } {
  const idx = part.search(/\r?\n\r?\n/);
  const head = idx < 0 ? part : part.slice(0, idx);
  const body = idx < 0 ? '' : part.slice(idx).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const c = line.indexOf(':');
    if (c > 0) headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
  }
  return { headers, body };
}

function decodeBody(headers: Record<string, string>, body: string): string {
  const enc = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  if (enc === 'quoted-printable') return decodeQp(body);
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** Top-level headers plus the text/plain and text/html parts (one level of multipart). */
function parseMail(raw: string): { subject: string; text: string; html: string; headers: Record<string, string> } {
  const top = splitHead(raw);
  const out = { subject: decodeWords(top.headers.subject ?? ''), text: '', html: '', headers: top.headers };
  const type = top.headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  const parts = boundary ? top.body.split(`--${boundary}`).slice(1, -1).map(splitHead) : [top];
  for (const p of parts) {
    const t = (p.headers['content-type'] ?? 'text/plain').toLowerCase();
    if (t.startsWith('text/plain')) out.text = decodeBody(p.headers, p.body).replace(/\r\n/g, '\n').trim();
    if (t.startsWith('text/html')) out.html = decodeBody(p.headers, p.body).replace(/\r\n/g, '\n').trim();
  }
  return out;
}

let shared: { ca: TestCa; cert: TestCert } | undefined;

/** One test CA and one certificate for 127.0.0.1 per test process (openssl is slow to start). */
function testCa(): { ca: TestCa; cert: TestCert } {
  if (!shared) {
    const ca = makeCa('dommon SMTP Test CA');
    shared = { ca, cert: issue({ ca, cn: '127.0.0.1', sans: ['127.0.0.1', 'localhost'], toDays: 30 }) };
  }
  return shared;
}

export interface SmtpOptions {
  user?: string;
  pass?: string;
  rejectRcpt?: (addr: string) => number | null;
  /** 'starttls' (default) offers STARTTLS, 'none' does not, 'implicit' speaks TLS from the first byte. */
  tls?: 'starttls' | 'none' | 'implicit';
  /** The server certificate; default: the test CA's one for 127.0.0.1. */
  cert?: TestCert;
}

export async function startSmtp(opts: SmtpOptions = {}): Promise<SmtpPeer> {
  const mode = opts.tls ?? 'starttls';
  const { ca, cert: caCert } = testCa();
  const cert = opts.cert ?? caCert;
  const mails: ReceivedMail[] = [];
  const authAttempts: string[] = [];
  const secureAtMailFrom = new Set<string>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = new SMTPServer({
    logger: false,
    secure: mode === 'implicit',
    ...(mode === 'none' ? { disabledCommands: ['STARTTLS'] } : { key: cert.key, cert: cert.cert }),
    authOptional: !opts.user,
    // AUTH is offered in clear text too: a client that must not send credentials there is the one to refuse.
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      authAttempts.push(auth.username ?? '');
      if (auth.username === opts.user && auth.password === opts.pass) cb(null, { user: auth.username });
      else cb(new Error('invalid credentials'));
    },
    onMailFrom(_addr, session, cb) {
      if (session.secure) secureAtMailFrom.add(session.id);
      cb();
    },
    onRcptTo(addr, _session, cb) {
      const code = opts.rejectRcpt?.(addr.address);
      if (code) cb(Object.assign(new Error('mailbox unavailable'), { responseCode: code }));
      else cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const p = parseMail(raw);
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: p.subject,
          text: p.text,
          html: p.html,
          auth: (session.user as string | undefined) ?? null,
          secure: secureAtMailFrom.has(session.id) && session.secure,
        });
        for (const w of waiters.filter((w) => mails.length >= w.count)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
        cb();
      });
    },
  });
  // A client that rejects our certificate ends the handshake: that is the server's error, not the test's.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  const cred = opts.user ? `${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.pass ?? '')}@` : '';
  return {
    url: `${mode === 'implicit' ? 'smtps' : 'smtp'}://${cred}127.0.0.1:${port}`,
    port,
    mails,
    authAttempts,
    ca: ca.cert,
    caFile: path.join(ca.dir, 'ca.crt'),
    waitFor(count, timeoutMs = 5000) {
      if (mails.length >= count) return Promise.resolve(mails.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`smtp: ${mails.length} of ${count} mails after ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(mails.slice())) });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
