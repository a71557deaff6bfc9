// A TLS session for the probes that speak a line protocol first (SMTP and IMAP STARTTLS) or right
// after the handshake (implicit TLS): a CRLF line reader over a socket, and `openTls`, which connects
// to a resolved address, runs the plain-text part of a conversation, upgrades the same socket with
// tls.connect({ socket }) and runs the part after the handshake. Failures throw; callers classify().
import net from 'node:net';
import tls from 'node:tls';
import { classify, deadline, raceSignal, type ProbeDeps, type ProbeOutcome, type ProbeReason } from './types.js';

/** A protocol answer the probe refuses (a bad greeting, no STARTTLS): classify() keeps its reason. */
export class ProtocolFailure extends Error {
  readonly code = 'ERR_PROBE_PROTOCOL';
  constructor(
    readonly reason: ProbeReason,
    readonly detail: string,
    readonly statusCode: number | null = null,
  ) {
    super(`${reason}: ${detail}`);
  }
}

const MAX_LINE = 8192;
const MAX_LINES = 200;

/** Reads CRLF-terminated lines from a socket; `detach()` stops reading (before the TLS upgrade). */
export class LineReader {
  private buf = '';
  private lines: string[] = [];
  private waiter: { resolve: (l: string) => void; reject: (e: unknown) => void } | null = null;
  private failed: unknown = null;
  private readonly onData = (chunk: Buffer) => {
    this.buf += chunk.toString('latin1');
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      this.lines.push(this.buf.slice(0, nl).replace(/\r$/, ''));
      this.buf = this.buf.slice(nl + 1);
    }
    if (this.buf.length > MAX_LINE || this.lines.length > MAX_LINES)
      this.fail(new ProtocolFailure('error', 'the server sent an over-long answer'));
    this.wake();
  };
  private readonly onEnd = () =>
    this.fail(Object.assign(new Error('connection closed before a response'), { code: 'ECONNRESET' }));
  private readonly onError = (err: Error) => this.fail(err);

  constructor(private readonly socket: net.Socket) {
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('close', this.onEnd);
    socket.on('error', this.onError);
  }

  private fail(err: unknown): void {
    this.failed ??= err;
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    if (!w) return;
    if (this.lines.length) {
      this.waiter = null;
      w.resolve(this.lines.shift()!);
    } else if (this.failed) {
      this.waiter = null;
      w.reject(this.failed);
    }
  }

  /** The next line (without CRLF). */
  next(signal: AbortSignal): Promise<string> {
    const p = new Promise<string>((resolve, reject) => {
      this.waiter = { resolve, reject };
      this.wake();
    });
    return raceSignal(p, signal);
  }

  send(line: string): void {
    this.socket.write(`${line}\r\n`);
  }

  /** True when the server sent more than was asked for (bytes a STARTTLS upgrade must not carry over). */
  get pending(): boolean {
    return this.lines.length > 0 || this.buf.length > 0;
  }

  detach(): void {
    this.socket.off('data', this.onData);
    this.socket.off('end', this.onEnd);
    this.socket.off('close', this.onEnd);
    this.socket.off('error', this.onError);
    this.socket.pause();
  }
}

/** What a protocol says around the TLS handshake. */
export interface Conversation {
  /** The plain-text part ending in an accepted STARTTLS; omitted: TLS from the first byte (implicit). */
  beforeTls?: (r: LineReader, signal: AbortSignal) => Promise<void>;
  /** The part over TLS (the greeting on implicit TLS, a goodbye): what liveness checks; its result is the status code. */
  afterTls?: (r: LineReader, signal: AbortSignal) => Promise<number | null>;
  /** The line that ends a session politely when only the certificate was wanted (QUIT, LOGOUT). */
  bye?: string;
}

interface TlsEnds {
  host: string;
  port: number;
}

function connectPlain(address: string, port: number, family: 4 | 6, signal: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: address, port, family, signal });
    s.once('connect', () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
}

/** A TLS handshake that the signal cuts short (the socket is destroyed, not left to finish). */
function handshake(opts: tls.ConnectionOptions, signal: AbortSignal): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const s = tls.connect(opts);
    const onAbort = () => {
      s.destroy();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    s.once('secureConnect', () => {
      signal.removeEventListener('abort', onAbort);
      s.off('error', onError);
      resolve(s);
    });
    const onError = (err: Error) => {
      signal.removeEventListener('abort', onAbort);
      reject(err);
    };
    s.once('error', onError);
  });
}

/**
 * Resolves (through the guarded resolver), connects, runs `conv.beforeTls` on the plain socket, then
 * the TLS handshake with SNI (never rejecting an untrusted chain: the caller reads `authorized`).
 * The caller destroys the returned socket. `afterTls` is run by the caller when it wants it.
 */
export async function openTls(
  t: TlsEnds,
  deps: ProbeDeps,
  signal: AbortSignal,
  conv: Conversation = {},
): Promise<tls.TLSSocket> {
  const host = t.host.replace(/^\[|\]$/g, '');
  const addr = await raceSignal(deps.resolver.resolve(host), signal);
  const base = { servername: net.isIP(host) ? undefined : host, rejectUnauthorized: false, ca: deps.ca };
  if (!conv.beforeTls) return handshake({ ...base, host: addr.address, port: t.port } as tls.ConnectionOptions, signal);
  const plain = await connectPlain(addr.address, t.port, addr.family, signal);
  try {
    const reader = new LineReader(plain);
    await conv.beforeTls(reader, signal);
    // Anything the server sent after accepting STARTTLS would be read as if it came over TLS.
    if (reader.pending) throw new ProtocolFailure('tls', 'the server sent data after accepting STARTTLS');
    reader.detach();
    plain.on('error', () => undefined); // the TLS socket reports what happens to the connection now
    const secure = await handshake({ ...base, socket: plain } as tls.ConnectionOptions, signal);
    secure.once('close', () => plain.destroy());
    return secure;
  } catch (err) {
    plain.destroy();
    throw err;
  }
}

/** Ends a session: the goodbye line when there is one (the server closes after it), then the socket within a second. */
export function closeSession(socket: net.Socket, bye?: string): void {
  if (!bye || socket.destroyed) {
    socket.destroy();
    return;
  }
  socket.on('error', () => undefined);
  socket.resume();
  socket.end(`${bye}\r\n`);
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * Liveness of a TLS service: the conversation up to and through the handshake (certificate trust is
 * the TLS inspection's business, not liveness's), then its part over TLS. Never throws.
 */
export async function probeSession(
  t: TlsEnds & { timeoutMs: number },
  conv: Conversation,
  deps: ProbeDeps,
  parent: AbortSignal,
): Promise<ProbeOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (!(t.port > 0 && t.port < 65536))
    return { ok: false, responseTimeMs: 0, statusCode: null, error: `error: invalid port ${t.port}`, reason: 'error' };
  const { signal, timedOut, done } = deadline(parent, t.timeoutMs);
  let socket: tls.TLSSocket | undefined;
  try {
    socket = await openTls(t, deps, signal, conv);
    const code = conv.afterTls ? await conv.afterTls(new LineReader(socket), signal) : null;
    return { ok: true, responseTimeMs: elapsed(), statusCode: code, error: null, reason: null };
  } catch (err) {
    const { reason, detail } = classify(err, parent, timedOut);
    const statusCode = err instanceof ProtocolFailure ? err.statusCode : null;
    return {
      ok: false,
      responseTimeMs: elapsed(),
      statusCode,
      error: `${reason}: ${reason === 'timeout' ? `no answer within ${t.timeoutMs / 1000} s` : detail}`,
      reason,
    };
  } finally {
    if (socket) closeSession(socket, conv.bye);
    done();
  }
}
