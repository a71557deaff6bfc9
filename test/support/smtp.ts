// A loopback SMTP server (smtp-server) that accepts every message and decodes its text and HTML parts.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  text: string;
  html: string;
  auth: string | null;
}

export interface SmtpPeer {
  url: string;
  port: number;
  mails: ReceivedMail[];
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
export function parseMail(raw: string): { subject: string; text: string; html: string; headers: Record<string, string> } {
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

export async function startSmtp(opts: { user?: string; pass?: string; rejectRcpt?: (addr: string) => number | null } = {}): Promise<SmtpPeer> {
  const mails: ReceivedMail[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    authOptional: !opts.user,
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.pass) cb(null, { user: auth.username });
      else cb(new Error('invalid credentials'));
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
          raw, subject: p.subject, text: p.text, html: p.html,
          auth: (session.user as string | undefined) ?? null,
        });
        for (const w of waiters.filter((w) => mails.length >= w.count)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  const cred = opts.user ? `${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.pass ?? '')}@` : '';
  return {
    url: `smtp://${cred}127.0.0.1:${port}`,
    port,
    mails,
    waitFor(count, timeoutMs = 5000) {
      if (mails.length >= count) return Promise.resolve(mails.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`smtp: ${mails.length} of ${count} mails after ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(mails.slice())) });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
