// The full HTTP exchange of a check that asks for more than a status line: a method, headers and a
// body of its own, credentials, redirects, or conditions on the body, the address or the certificate.
// The request is written on a socket the probe opens itself (as the plain check does) and the answer
// is framed by http-parser-js (status line, headers, Content-Length, chunked or read to the close):
// no http.ClientRequest, IncomingMessage or stream objects per check, about a quarter less CPU than
// node:http for a 10 KB answer (docs/benchmarks.md, "Figures quoted in the code"). Every hop is dialled at the address the guarded resolver chose
// (DOMMON_OUTBOUND_DENY checked on each), and a redirect is followed only when the
// configuration asks, at most MAX_REDIRECTS times. Credentials go only to the origin they were given
// for, never along a redirect to another one. The body is read only when a condition names it, and
// never past MAX_BODY_BYTES.
import net from 'node:net';
import tls from 'node:tls';
import { HTTPParser } from 'http-parser-js';
import type { HttpMethod } from '../domain/types.js';
import type { ProbeDeps } from './types.js';

/** Redirects followed at most (as Go's HTTP client, which Gatus uses). */
export const MAX_REDIRECTS = 10;
/** The most of a body read for conditions (bytes); a longer one fails the check unread. */
export const MAX_BODY_BYTES = 1024 * 1024;

const USER_AGENT = 'dommon-liveness/1';

interface RequestSpec {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | null;
  followRedirects: boolean;
  /** The Authorization header and the origin it may be sent to. */
  auth: { header: string; origin: string } | null;
  readBody: boolean;
  cancel: Cancel;
  /**
   * Where the first hop's request is kept between checks (one per configuration: its method, headers,
   * body and credentials are the configuration's), made again when the URL differs.
   */
  first?: FirstHop;
}

/** A configuration's first request, kept: made once, not on every check. */
export interface FirstHop {
  href: string | null;
  out: Outgoing | null;
}

export const firstHop = (): FirstHop => ({ href: null, out: null });

/** One hop's request, ready to send: where to, and its bytes. */
interface Outgoing {
  url: URL;
  /** The name to resolve (brackets of an IPv6 literal removed). */
  host: string;
  secure: boolean;
  port: number;
  request: Buffer;
}

/**
 * How the caller stops an exchange (its deadline, a shutdown): it sets `reason` and calls `onCancel`,
 * which destroys what is in flight. One plain object per check: no AbortController or listener.
 */
export interface Cancel {
  reason: unknown;
  onCancel: ((reason: unknown) => void) | null;
}

interface Answer {
  status: number;
  /** The address the last hop connected to. */
  ip: string;
  /** Milliseconds until the last hop's certificate expires (null: no TLS). */
  certificateMs: number | null;
  /** The body's bytes as they came, in pieces (readBody only): joined only by whoever needs them whole. */
  body: Buffer[] | null;
  /** The body was longer than MAX_BODY_BYTES (readBody only): not read. */
  tooLarge: boolean;
}

/** A refused redirect, reported as the check's error. */
class RedirectError extends Error {
  readonly code = 'ERR_PROBE_PROTOCOL';
  readonly reason = 'error';
  constructor(readonly detail: string) {
    super(detail);
  }
}

/** Sends the request (following redirects when asked) and answers with the last response; throws on a transport error. */
export async function exchange(spec: RequestSpec, deps: ProbeDeps): Promise<Answer> {
  let method: string = spec.method;
  let body = spec.body;
  const first = spec.first;
  let out: Outgoing;
  if (first && first.href === spec.url && first.out) out = first.out;
  else {
    out = outgoing(new URL(spec.url), method, body, spec);
    if (first) {
      first.href = spec.url;
      first.out = out;
    }
  }
  for (let hop = 0; ; hop++) {
    const url = out.url;
    const res = await once(out, method, spec, deps);
    if (res.location === null) return res.answer;
    if (hop >= MAX_REDIRECTS) throw new RedirectError(`more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(res.location, url);
    } catch {
      throw new RedirectError(`redirect to an invalid URL (${res.location.slice(0, 200)})`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new RedirectError(`redirect to a ${next.protocol} URL: only http and https are followed`);
    // As browsers and Go: 303 (and 301/302 after a POST) turn into a GET without a body; 307 and 308 keep both.
    const status = res.answer.status;
    if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
      method = 'GET';
      body = null;
    }
    out = outgoing(next, method, body, spec);
  }
}

/** The request of one hop: the configuration's headers, the credentials only for their own origin. */
function outgoing(url: URL, method: string, body: string | null, spec: RequestSpec): Outgoing {
  const secure = url.protocol === 'https:';
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' };
  for (const [name, value] of Object.entries(spec.headers)) headers[name.toLowerCase()] = value;
  headers.host = url.host;
  headers.connection = 'close';
  if (spec.auth !== null && url.origin === spec.auth.origin) headers.authorization = spec.auth.header;
  if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
  return {
    url,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    secure,
    port: url.port ? Number(url.port) : secure ? 443 : 80,
    request: requestBytes(url, method, headers, body),
  };
}

/** One hop's answer, and where it redirects to when it is a redirect the configuration follows (else null). */
interface Hop {
  answer: Answer;
  location: string | null;
}

/** The longest head (status line and headers) read, as node:http's default. */
const MAX_HEAD_BYTES = 16 * 1024;

/** What node:http refuses in a header value: control characters other than tab, and anything past latin1. */
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** The request's bytes: the head (latin1, as written on the wire) and the body (UTF-8). */
function requestBytes(url: URL, method: string, headers: Record<string, string>, body: string | null): Buffer {
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (INVALID_HEADER_VALUE.test(value))
      throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), {
        code: 'ERR_INVALID_CHAR',
      });
    head += `${name}: ${value}\r\n`;
  }
  head += '\r\n';
  return body === null ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]);
}

/** What a head callback returns to end the parse there (the answer is complete, or not wanted further). */
const STOP = 2;

/** A protocol error, as node:http reports one (classified as an `error` with its code). */
const parseError = (code: string, message: string) => Object.assign(new Error(`Parse Error: ${message}`), { code });

/** The first value of a header in http-parser-js's flat list (name, value, name, value...), by its lower-case name. */
function header(list: string[], name: string): string | undefined {
  for (let i = 0; i < list.length; i += 2) if (list[i].toLowerCase() === name) return list[i + 1];
  return undefined;
}

function once(out: Outgoing, method: string, spec: RequestSpec, deps: ProbeDeps): Promise<Hop> {
  const { secure, host, port, request } = out;
  return deps.resolver.resolve(host).then(
    (addr) =>
      new Promise<Hop>((resolve, reject) => {
        if (spec.cancel.reason) return reject(spec.cancel.reason as Error);
        const socket = secure
          ? tls.connect({
              host: addr.address,
              port,
              ...(net.isIP(host) ? {} : { servername: host }),
              ...(deps.ca ? { ca: deps.ca } : {}),
              ALPNProtocols: ['http/1.1'],
            })
          : net.connect({ host: addr.address, port });
        // The head and the body of the request back to back, as one write after the handshake.
        socket.setNoDelay(true);
        let done = false;
        const end = (err: Error | null, hop?: Hop) => {
          if (done) return;
          done = true;
          spec.cancel.onCancel = null;
          socket.destroy();
          if (err) reject(err);
          else resolve(hop!);
        };
        spec.cancel.onCancel = (reason) => end(reason as Error);

        let answer: Answer | null = null;
        const chunks: Buffer[] = [];
        let size = 0;
        const parser = new HTTPParser(HTTPParser.RESPONSE);
        parser.maxHeaderSize = MAX_HEAD_BYTES;
        parser[HTTPParser.kOnHeadersComplete] = (info) => {
          const status = info.statusCode;
          // An interim answer (100 Continue, 103 Early Hints): the real one follows on the same connection.
          if (status >= 100 && status < 200 && status !== 101) return 0;
          const list = info.headers;
          const declared = header(list, 'content-length');
          if (declared !== undefined && !/^\d+$/.test(declared.trim())) {
            end(parseError('HPE_INVALID_CONTENT_LENGTH', 'Invalid character in Content-Length'));
            return STOP;
          }
          let certificateMs: number | null = null;
          if (secure) {
            const notAfter = Date.parse((socket as tls.TLSSocket).getPeerCertificate().valid_to ?? '');
            if (Number.isFinite(notAfter)) certificateMs = notAfter - Date.now();
          }
          answer = { status, ip: addr.address, certificateMs, body: null, tooLarge: false };
          const location = header(list, 'location');
          if (spec.followRedirects && status >= 300 && status <= 399 && location) {
            end(null, { answer, location });
            return STOP;
          }
          if (!spec.readBody) {
            end(null, { answer, location: null });
            return STOP;
          }
          if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) {
            end(null, { answer: { ...answer, tooLarge: true }, location: null });
            return STOP;
          }
          // A HEAD answer has no body, whatever its Content-Length says.
          return method === 'HEAD' ? STOP : 0;
        };
        parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
          if (done) return;
          size += length;
          if (size > MAX_BODY_BYTES) return end(null, { answer: { ...answer!, tooLarge: true }, location: null });
          chunks.push(offset === 0 && length === chunk.length ? chunk : chunk.subarray(offset, offset + length));
        };
        parser[HTTPParser.kOnMessageComplete] = () => {
          // Called for an interim answer too (no `answer` yet): the parser reads on.
          if (answer) end(null, { answer: { ...answer, body: chunks }, location: null });
        };

        socket.once(secure ? 'secureConnect' : 'connect', () => socket.write(request));
        socket.on('data', (chunk: Buffer) => {
          if (done) return;
          let out: number | Error;
          try {
            out = parser.execute(chunk);
          } catch (err) {
            out = err as Error;
          }
          if (out instanceof Error) {
            const e = out as Error & { code?: string };
            end(
              e.message === 'max header size exceeded'
                ? parseError('HPE_HEADER_OVERFLOW', 'Header overflow')
                : e.code
                  ? parseError(e.code, e.message.replace(/^Parse Error:?\s*/, '') || 'not an HTTP response')
                  : parseError('HPE_INVALID', e.message),
            );
          }
        });
        socket.on('error', (err: Error) => end(err));
        // The server closed: the end of a body read to the close, else an answer cut short.
        socket.on('end', () => {
          if (done) return;
          if (answer) parser.finish();
          end(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
        });
        socket.on('close', () => end(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
      }),
  );
}
