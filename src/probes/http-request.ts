// The full HTTP exchange of a check that asks for more than a status line: a method, headers and a
// body of its own, credentials, redirects, or conditions on the body, the address or the certificate.
// The request is written on a socket the probe opens itself (as the plain check does) and the answer
// is framed by http-response.ts (status line, headers, Content-Length, chunked or read to the close):
// no http.ClientRequest, IncomingMessage or stream objects per check, about a quarter less CPU than
// node:http for a 10 KB answer (docs/benchmarks.md, "Figures quoted in the code"). One object per
// hop holds the exchange's state and frames the answer; the caller hears of the end by a callback. Every hop is dialled at the address the guarded resolver chose
// (DOMMON_OUTBOUND_DENY checked on each), and a redirect is followed only when the
// configuration asks, at most MAX_REDIRECTS times. Credentials go only to the origin they were given
// for, never along a redirect to another one. The body is read only when a condition names it, and
// never past MAX_BODY_BYTES.
import net from 'node:net';
import tls from 'node:tls';
import type { HttpMethod } from '../domain/types.js';
import type { Address } from '../net/resolve.js';
import { parseError, READ_ON, ResponseFramer, STOP } from './http-response.js';
import type { ProbeDeps } from './types.js';

/** Redirects followed at most (as Go's HTTP client, which Gatus uses). */
export const MAX_REDIRECTS = 10;
/** The most of a body read for conditions (bytes); a longer one fails the check unread. */
export const MAX_BODY_BYTES = 1024 * 1024;

const USER_AGENT = 'dommon-liveness/1';

export interface RequestSpec {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | null;
  followRedirects: boolean;
  /** The Authorization header and the origin it may be sent to. */
  auth: { header: string; origin: string } | null;
  readBody: boolean;
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
 * How the caller stops an exchange (its deadline, a shutdown): it sets `reason` and aborts `hop`, the
 * hop in flight, which destroys its socket. One plain object per check: no AbortController or listener.
 */
export interface Cancel {
  reason: unknown;
  hop: { abort(reason: unknown): void } | null;
  /** When the first hop's connection was opened (performance.now()), once its name was resolved. */
  sentAt?: number;
}

export interface Answer {
  status: number;
  /** The address the last hop connected to. */
  ip: string;
  /** Milliseconds until the last hop's certificate expires (null: no TLS). */
  certificateMs: number | null;
  /** The body's bytes as they came, in pieces (readBody only): joined only by whoever needs them whole. */
  body: Buffer[] | null;
  /** The body was longer than MAX_BODY_BYTES (readBody only): not read. */
  tooLarge: boolean;
  /** Where a redirect the configuration follows points (else null). */
  location: string | null;
}

/** How an exchange ends: with the last answer, or with the error that stopped it (answer null). */
type Done = (err: Error | null, answer: Answer | null) => void;

/** A refused redirect, reported as the check's error. */
class RedirectError extends Error {
  readonly code = 'ERR_PROBE_PROTOCOL';
  readonly reason = 'error';
  constructor(readonly detail: string) {
    super(detail);
  }
}

/** Sends the request (following redirects when asked) and calls `done` once, with the last answer or a transport error. */
export function exchange(spec: RequestSpec, cancel: Cancel, deps: ProbeDeps, done: Done): void {
  let out: Outgoing;
  const first = spec.first;
  try {
    if (first && first.href === spec.url && first.out) out = first.out;
    else {
      out = outgoing(new URL(spec.url), spec.method, spec.body, spec);
      if (first) {
        first.href = spec.url;
        first.out = out;
      }
    }
  } catch (err) {
    return done(err as Error, null);
  }
  if (spec.followRedirects) follow(out, spec.method, spec.body, 0, spec, cancel, deps, done);
  else send(out, spec.method, spec, cancel, deps, done);
}

/** One hop of a configuration that follows redirects, and the next one when its answer is a redirect. */
function follow(
  out: Outgoing,
  method: string,
  body: string | null,
  hop: number,
  spec: RequestSpec,
  cancel: Cancel,
  deps: ProbeDeps,
  done: Done,
): void {
  send(out, method, spec, cancel, deps, (err, answer) => {
    if (err || answer!.location === null) return done(err, answer);
    const location = answer!.location;
    if (hop >= MAX_REDIRECTS) return done(new RedirectError(`more than ${MAX_REDIRECTS} redirects`), null);
    let next: URL;
    try {
      next = new URL(location, out.url);
    } catch {
      return done(new RedirectError(`redirect to an invalid URL (${location.slice(0, 200)})`), null);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      return done(new RedirectError(`redirect to a ${next.protocol} URL: only http and https are followed`), null);
    // As browsers and Go: 303 (and 301/302 after a POST) turn into a GET without a body; 307 and 308 keep both.
    const status = answer!.status;
    if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
      method = 'GET';
      body = null;
    }
    let to: Outgoing;
    try {
      to = outgoing(next, method, body, spec);
    } catch (e) {
      return done(e as Error, null);
    }
    follow(to, method, body, hop + 1, spec, cancel, deps, done);
  });
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

/** One hop: resolves the host, connects, writes the request and frames the answer. */
function send(out: Outgoing, method: string, spec: RequestSpec, cancel: Cancel, deps: ProbeDeps, done: Done): void {
  if (cancel.reason) return done(cancel.reason as Error, null);
  const hop = new Hop(out, method, spec, cancel, deps, done);
  cancel.hop = hop;
  deps.resolver.resolve(out.host).then(
    (addr) => hop.connect(addr),
    (err: unknown) => hop.abort(err),
  );
}

/**
 * Where every plain (unencrypted) socket of the full check reads its bytes (net's `onread`: no buffer
 * allocated per read, no readable-stream machinery); a read's callback frames them, and copies what
 * it keeps, before the event loop reads another socket into it.
 */
const READS = Buffer.allocUnsafe(64 * 1024);

const hangUp = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

/** One hop's state: its socket, the answer as it is framed, the body's pieces when the conditions read it. */
class Hop extends ResponseFramer {
  private ended = false;
  private socket: net.Socket | null = null;
  private address = '';
  private answer: Answer | null = null;
  private pieces: Buffer[] | null = null;
  private size = 0;

  constructor(
    private readonly out: Outgoing,
    private readonly method: string,
    private readonly spec: RequestSpec,
    private readonly cancel: Cancel,
    private readonly deps: ProbeDeps,
    private readonly done: Done,
  ) {
    super();
  }

  connect(addr: Address): void {
    if (this.ended) return;
    const { secure, host, port, request } = this.out;
    this.address = addr.address;
    this.cancel.sentAt ??= performance.now();
    const socket = secure
      ? tls.connect({
          host: addr.address,
          port,
          ...(net.isIP(host) ? {} : { servername: host }),
          ...(this.deps.ca ? { ca: this.deps.ca } : {}),
          ALPNProtocols: ['http/1.1'],
        })
      : net.connect({
          host: addr.address,
          port,
          onread: {
            buffer: READS,
            callback: (n: number, buf: Uint8Array) => {
              this.read(buf as Buffer, n);
              return true;
            },
          },
        });
    this.socket = socket;
    // The head and the body of the request back to back, as one write after the handshake.
    socket.setNoDelay(true);
    socket.once(secure ? 'secureConnect' : 'connect', () => socket.write(request));
    if (secure) socket.on('data', (chunk: Buffer) => this.read(chunk, chunk.length));
    socket.on('error', (err: Error) => this.end(err, null));
    // The server closed: the end of a body read to the close, else an answer cut short.
    socket.on('end', () => {
      if (this.ended) return;
      if (this.answer) this.finish();
      if (!this.ended) this.end(hangUp(), null);
    });
    // Closed before an answer: what node:http calls "socket hang up" (no error made after the end).
    socket.on('close', () => {
      if (!this.ended) this.end(hangUp(), null);
    });
  }

  /** The first `n` bytes of `bytes` came (READS, or a TLS socket's chunk). */
  private read(bytes: Buffer, n: number): void {
    if (this.ended) return;
    const err = this.execute(bytes, n);
    if (err) this.end(err, null);
  }

  abort(reason: unknown): void {
    this.end(reason as Error, null);
  }

  private end(err: Error | null, answer: Answer | null): void {
    if (this.ended) return;
    this.ended = true;
    this.stop();
    if (this.cancel.hop === this) this.cancel.hop = null;
    this.socket?.destroy();
    this.done(err, answer);
  }

  protected onHead(): number {
    const status = this.status;
    const declared = this.contentLength;
    if (declared !== undefined && !/^\d+$/.test(declared.trim())) {
      this.end(parseError('HPE_INVALID_CONTENT_LENGTH', 'Invalid character in Content-Length'), null);
      return STOP;
    }
    let certificateMs: number | null = null;
    if (this.out.secure) {
      const notAfter = Date.parse((this.socket as tls.TLSSocket).getPeerCertificate().valid_to ?? '');
      if (Number.isFinite(notAfter)) certificateMs = notAfter - Date.now();
    }
    const answer: Answer = { status, ip: this.address, certificateMs, body: null, tooLarge: false, location: null };
    this.answer = answer;
    const location = this.location;
    if (this.spec.followRedirects && status >= 300 && status <= 399 && location) {
      answer.location = location;
      this.end(null, answer);
      return STOP;
    }
    if (!this.spec.readBody) {
      this.end(null, answer);
      return STOP;
    }
    if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) {
      answer.tooLarge = true;
      this.end(null, answer);
      return STOP;
    }
    // A HEAD answer has no body, whatever its Content-Length says.
    return this.method === 'HEAD' ? STOP : READ_ON;
  }

  protected onBody(chunk: Buffer, from: number, to: number): void {
    if (this.ended) return;
    this.size += to - from;
    if (this.size > MAX_BODY_BYTES) {
      this.answer!.tooLarge = true;
      return this.end(null, this.answer);
    }
    // A copy: the bytes may be READS, which the next read of any socket overwrites.
    const piece = Buffer.allocUnsafeSlow(to - from);
    chunk.copy(piece, 0, from, to);
    (this.pieces ??= []).push(piece);
  }

  protected onComplete(): void {
    const answer = this.answer;
    if (!answer) return;
    answer.body = this.pieces ?? [];
    this.end(null, answer);
  }
}
