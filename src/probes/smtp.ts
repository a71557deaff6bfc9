// `smtp` endpoints: the mail server greets (220) and TLS completes. On 465 TLS starts with the first
// byte (implicit TLS, RFC 8314) and the greeting comes over it; on any other port (25, 587) the probe
// says EHLO, needs STARTTLS among the extensions, sends STARTTLS and upgrades the same connection.
// The certificate is read by the same TLS inspection as https; the session ends with QUIT.
// Failures are said in our words: a reply's 3-digit code is the only thing of the server's they carry
// (documented as remote data); its text, an EHLO keyword or a non-SMTP banner never reach an answer.
import { effectivePort, hostOf } from '../domain/endpoint.js';
import type { EndpointPlugin } from './plugin.js';
import { probeSession, ProtocolFailure, type Conversation, type LineReader } from './session.js';
import { inspectTls } from './tls.js';

export type TlsMode = 'starttls' | 'implicit';

/** Implicit TLS on 465 (submissions), STARTTLS everywhere else. */
export const smtpMode = (port: number): TlsMode => (port === 465 ? 'implicit' : 'starttls');

/** The name the probe gives in EHLO (RFC 5321 wants a name or an address literal; nothing is sent). */
const EHLO_NAME = 'dommon.localhost';

interface Reply {
  code: number;
  lines: string[];
}

/** One (multi-line) SMTP reply: `250-a`, `250-b`, `250 c`; `notSmtp` says what a line that is not one means. */
async function reply(r: LineReader, signal: AbortSignal, notSmtp: string): Promise<Reply> {
  const lines: string[] = [];
  for (;;) {
    const l = await r.next(signal);
    const m = /^(\d{3})(?:([ -])(.*))?$/.exec(l);
    if (!m) throw new ProtocolFailure('status', notSmtp);
    lines.push(m[3] ?? '');
    if (m[2] !== '-') return { code: Number(m[1]), lines };
  }
}

async function greeting(r: LineReader, signal: AbortSignal): Promise<number> {
  const g = await reply(r, signal, 'the peer did not greet as an SMTP server');
  if (g.code !== 220) throw new ProtocolFailure('status', `SMTP greeting ${g.code}, expected 220`, g.code);
  return g.code;
}

/** What the probe says to an SMTP server in the given mode. */
export function smtpConversation(mode: TlsMode): Conversation {
  if (mode === 'implicit') return { afterTls: greeting, bye: 'QUIT' };
  return {
    async beforeTls(r, signal) {
      await greeting(r, signal);
      r.send(`EHLO ${EHLO_NAME}`);
      const ehlo = await reply(r, signal, 'the answer to EHLO is not an SMTP reply');
      if (ehlo.code !== 250) throw new ProtocolFailure('status', `EHLO answered ${ehlo.code}, expected 250`, ehlo.code);
      const extensions = ehlo.lines.slice(1).map((l) => l.split(' ')[0]!.toUpperCase());
      if (!extensions.includes('STARTTLS')) {
        const n = extensions.length;
        throw new ProtocolFailure(
          'tls',
          `the server does not offer STARTTLS (EHLO lists ${n === 0 ? 'no extensions' : `${n} other extension${n === 1 ? '' : 's'}`})`,
        );
      }
      r.send('STARTTLS');
      const st = await reply(r, signal, 'the answer to STARTTLS is not an SMTP reply');
      if (st.code !== 220) throw new ProtocolFailure('tls', `STARTTLS refused: ${st.code}, expected 220`, st.code);
    },
    // The greeting was 220 (checked before the upgrade): the status code liveness records.
    afterTls: async () => 220,
    bye: 'QUIT',
  };
}

declare module '../domain/endpoint.js' {
  interface EndpointTypeNames {
    smtp: true;
  }
}

export const smtp: EndpointPlugin<'smtp'> = {
  name: 'smtp',
  defaultPort: 25,
  url: 'service',
  certificate: 'always',
  extension: true,
  docs: {
    liveness: 'the server greets `220` and TLS completes',
    certificate: 'always inspected (behind STARTTLS or implicit TLS)',
  },
  upSummary: (o, e) =>
    `SMTP greeting 220 and ${smtpMode(effectivePort(e)) === 'implicit' ? 'implicit TLS' : 'STARTTLS'} in ${o.responseTimeMs} ms`,
  liveness: (e, c, deps, signal) => {
    const port = effectivePort(e);
    return probeSession(
      { host: hostOf(e), port, timeoutMs: c.timeout_seconds * 1000 },
      smtpConversation(smtpMode(port)),
      deps,
      signal,
    );
  },
  inspect: (t, deps, signal) => inspectTls(t, deps, signal, smtpConversation(smtpMode(t.port))),
};
