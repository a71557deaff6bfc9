// The full HTTP exchange of a check that asks for more than a status line: a method, headers and a
// body of its own, credentials, redirects, or conditions on the body, the address or the certificate.
// node:http parses the answer (llhttp); every hop is dialled at the address the guarded resolver
// chose (DOMMON_OUTBOUND_DENY checked on each), and a redirect is followed only when the
// configuration asks, at most MAX_REDIRECTS times. Credentials go only to the origin they were given
// for, never along a redirect to another one. The body is read only when a condition names it, and
// never past MAX_BODY_BYTES.
import http from 'node:http';
import net from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
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
  /** The body's bytes (readBody only). */
  body: Buffer | null;
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
  let url = new URL(spec.url);
  let method: string = spec.method;
  let body = spec.body;
  for (let hop = 0; ; hop++) {
    const sendAuth = spec.auth !== null && url.origin === spec.auth.origin;
    const res = await once(url, method, body, sendAuth ? spec.auth!.header : null, spec, deps);
    const location = res.response.headers.location;
    if (!spec.followRedirects || res.response.statusCode! < 300 || res.response.statusCode! > 399 || !location)
      return finish(res, spec);
    res.response.destroy();
    if (hop >= MAX_REDIRECTS) throw new RedirectError(`more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new RedirectError(`redirect to an invalid URL (${location.slice(0, 200)})`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new RedirectError(`redirect to a ${next.protocol} URL: only http and https are followed`);
    // As browsers and Go: 303 (and 301/302 after a POST) turn into a GET without a body; 307 and 308 keep both.
    const status = res.response.statusCode!;
    if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
      method = 'GET';
      body = null;
    }
    url = next;
  }
}

interface Response {
  response: http.IncomingMessage;
  ip: string;
}

function once(
  url: URL,
  method: string,
  body: string | null,
  authorization: string | null,
  spec: RequestSpec,
  deps: ProbeDeps,
): Promise<Response> {
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return deps.resolver.resolve(host).then(
    (addr) =>
      new Promise<Response>((resolve, reject) => {
        if (spec.cancel.reason) return reject(spec.cancel.reason as Error);
        const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' };
        for (const [name, value] of Object.entries(spec.headers)) headers[name.toLowerCase()] = value;
        headers.host = url.host;
        headers.connection = 'close';
        if (authorization) headers.authorization = authorization;
        if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
        const port = url.port ? Number(url.port) : secure ? 443 : 80;
        // The connection is made here (no Agent: one per request would cost more than the check).
        const connect = () =>
          secure
            ? tls.connect({
                host: addr.address,
                port,
                ...(net.isIP(host) ? {} : { servername: host }),
                ...(deps.ca ? { ca: deps.ca } : {}),
                ALPNProtocols: ['http/1.1'],
              })
            : net.connect({ host: addr.address, port });
        const options: http.RequestOptions = {
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          createConnection: connect,
        };
        const req = http.request(options, (response) => resolve({ response, ip: addr.address }));
        spec.cancel.onCancel = (reason) => req.destroy(reason as Error);
        req.on('error', reject);
        req.end(body ?? undefined);
      }),
  );
}

/** The last response: its certificate and, when a condition needs it, its body (bounded). */
function finish({ response, ip }: Response, spec: RequestSpec): Promise<Answer> {
  const socket = response.socket as TLSSocket | null;
  let certificateMs: number | null = null;
  if (socket && typeof socket.getPeerCertificate === 'function') {
    const notAfter = Date.parse(socket.getPeerCertificate().valid_to ?? '');
    if (Number.isFinite(notAfter)) certificateMs = notAfter - Date.now();
  }
  const answer = { status: response.statusCode ?? 0, ip, certificateMs, body: null, tooLarge: false };
  if (!spec.readBody) {
    response.destroy();
    return Promise.resolve(answer);
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    response.destroy();
    return Promise.resolve({ ...answer, tooLarge: true });
  }
  return new Promise<Answer>((resolve, reject) => {
    spec.cancel.onCancel = (reason) => response.destroy(reason as Error);
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.destroy();
        resolve({ ...answer, tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => resolve({ ...answer, body: Buffer.concat(chunks, size) }));
    response.on('error', reject);
  });
}
