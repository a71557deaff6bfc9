// `imap` endpoints: the server greets (`* OK`) and TLS completes. On 993 TLS starts with the first
// byte (implicit TLS, RFC 8314) and the greeting comes over it; on any other port (143) the probe
// needs STARTTLS among the capabilities (the greeting's [CAPABILITY ...] or `a0 CAPABILITY`), sends
// `a1 STARTTLS` and upgrades the same connection. The certificate is read by the same TLS inspection
// as https; the session ends with LOGOUT. Failures are said in our words: no byte of the server's
// (greeting text, capability list, a non-IMAP banner) reaches an answer; at most the protocol's own
// status word (OK, NO, BAD, BYE, PREAUTH), matched against that list, is named.
import { effectivePort, hostOf } from '../domain/endpoint.js';
import type { EndpointPlugin } from './plugin.js';
import { probeSession, ProtocolFailure, type Conversation, type LineReader } from './session.js';
import type { TlsMode } from './smtp.js';
import { inspectTls } from './tls.js';

/** Implicit TLS on 993 (imaps), STARTTLS everywhere else. */
export const imapMode = (port: number): TlsMode => (port === 993 ? 'implicit' : 'starttls');

/** The IMAP status word a line starts with (`* BYE ...`, `a1 NO ...`), when it is one; never the rest. */
const statusWord = (text: string): string | null =>
  /^(OK|NO|BAD|BYE|PREAUTH)\b/i.exec(text)?.[1]?.toUpperCase() ?? null;

async function greeting(r: LineReader, signal: AbortSignal): Promise<string> {
  const g = await r.next(signal);
  if (!/^\* (OK|PREAUTH)\b/i.test(g)) {
    const word = g.startsWith('* ') ? statusWord(g.slice(2)) : null;
    throw new ProtocolFailure(
      'status',
      word ? `IMAP greeting "* ${word}", expected "* OK"` : 'the peer did not greet as an IMAP server',
    );
  }
  return g;
}

/** Untagged lines up to the tagged completion of `tag`; returns the completion's text (OK ..., NO ..., BAD ...). */
async function completion(
  r: LineReader,
  tag: string,
  command: string,
  signal: AbortSignal,
): Promise<{ status: string; untagged: string[] }> {
  const untagged: string[] = [];
  for (;;) {
    const l = await r.next(signal);
    if (l.startsWith(`${tag} `)) return { status: l.slice(tag.length + 1), untagged };
    if (!l.startsWith('* ')) throw new ProtocolFailure('status', `the answer to ${command} is not an IMAP response`);
    untagged.push(l);
  }
}

export function imapConversation(mode: TlsMode): Conversation {
  if (mode === 'implicit')
    return { afterTls: async (r, signal) => (await greeting(r, signal), null), bye: 'a9 LOGOUT' };
  return {
    async beforeTls(r, signal) {
      const g = await greeting(r, signal);
      let caps = /\[CAPABILITY ([^\]]*)\]/i.exec(g)?.[1];
      if (caps === undefined) {
        r.send('a0 CAPABILITY');
        const c = await completion(r, 'a0', 'CAPABILITY', signal);
        caps = c.untagged.map((l) => /^\* CAPABILITY (.*)$/i.exec(l)?.[1]).find((x) => x !== undefined) ?? '';
      }
      if (!caps.toUpperCase().split(/\s+/).includes('STARTTLS')) {
        const n = caps.split(/\s+/).filter(Boolean).length;
        throw new ProtocolFailure(
          'tls',
          `the server does not offer STARTTLS (CAPABILITY lists ${n === 0 ? 'nothing' : `${n} other capabilit${n === 1 ? 'y' : 'ies'}`})`,
        );
      }
      r.send('a1 STARTTLS');
      const st = await completion(r, 'a1', 'STARTTLS', signal);
      if (!/^OK\b/i.test(st.status))
        throw new ProtocolFailure('tls', `STARTTLS refused: a1 ${statusWord(st.status) ?? 'answered'}, expected a1 OK`);
    },
    afterTls: async () => null,
    bye: 'a9 LOGOUT',
  };
}

declare module '../domain/endpoint.js' {
  interface EndpointTypeNames {
    imap: true;
  }
}

export const imap: EndpointPlugin<'imap'> = {
  name: 'imap',
  defaultPort: 143,
  url: 'service',
  certificate: 'always',
  extension: true,
  docs: {
    liveness: 'the server greets `* OK` and TLS completes',
    certificate: 'always inspected (behind STARTTLS or implicit TLS)',
  },
  upSummary: (o, e) =>
    `IMAP greeting * OK and ${imapMode(effectivePort(e)) === 'implicit' ? 'implicit TLS' : 'STARTTLS'} in ${o.responseTimeMs} ms`,
  liveness: (e, c, deps, signal) => {
    const port = effectivePort(e);
    return probeSession(
      { host: hostOf(e), port, timeoutMs: c.timeout_seconds * 1000 },
      imapConversation(imapMode(port)),
      deps,
      signal,
    );
  },
  inspect: (t, deps, signal) => inspectTls(t, deps, signal, imapConversation(imapMode(t.port))),
};
