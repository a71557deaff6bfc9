// http and https liveness: one GET to full_url on a fresh connection (no agent, no keep-alive),
// redirects not followed, success when the status equals expected_status_code. The request is
// written on a plain TCP (or TLS) socket and only the status line is read: no http.ClientRequest,
// parser or stream objects per check. Per check there is one promise, one timer and no listener of
// its own on the caller's signal; the URL is parsed and the request's bytes made once per endpoint.
import net from 'node:net';
import tls from 'node:tls';
import { fullUrl, type UrlParts } from '../domain/endpoint.js';
import type { EndpointPlugin, LivenessProbeFn } from './plugin.js';
import { inspectTls } from './tls.js';
import { classify, failure, onAbort, type ProbeDeps, type ProbeOutcome } from './types.js';

interface HttpTarget {
  url: string;
  timeoutMs: number;
  expectedStatus: number;
}

/** What a check of one URL needs, made once: the name to resolve, the port, and the request's bytes. */
interface Prepared {
  host: string;
  port: number;
  secure: boolean;
  /** SNI name: the host unless it is an IP literal. */
  servername: string | undefined;
  request: Buffer;
}

const USER_AGENT = 'dommon-liveness/1';

function prepare(href: string): Prepared | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    host,
    port: url.port ? Number(url.port) : secure ? 443 : 80,
    secure,
    servername: net.isIP(host) ? undefined : host,
    // A URL's path and host are ASCII once parsed (percent-encoded, punycode).
    request: Buffer.from(
      `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nuser-agent: ${USER_AGENT}\r\naccept: */*\r\nconnection: close\r\n\r\n`,
      'latin1',
    ),
  };
}

export function probeHttp(t: HttpTarget, deps: ProbeDeps, parent: AbortSignal): Promise<ProbeOutcome> {
  const p = prepare(t.url);
  if (!p) return Promise.resolve(failure('error', `invalid URL ${t.url}`, 0));
  return check(p, t.timeoutMs, t.expectedStatus, deps, parent);
}

/** The status line at the head of a response: its code, or null when the bytes are not HTTP. */
function statusOf(head: Buffer, end: number): number | null {
  const m = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(head.toString('latin1', 0, Math.min(end, 64)));
  return m ? Number(m[1]) : null;
}

/** One GET on a new socket: resolves with the outcome once the status line is read (the socket is then closed). */
function check(
  p: Prepared,
  timeoutMs: number,
  expected: number,
  deps: ProbeDeps,
  parent: AbortSignal,
): Promise<ProbeOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<ProbeOutcome>((resolve) => {
    let sock: net.Socket | null = null;
    let settled = false;
    let timedOut = false;
    let head: Buffer | null = null;
    const timer = setTimeout(
      () => {
        timedOut = true;
        fail(new DOMException('probe timed out', 'TimeoutError'));
      },
      Math.max(1, timeoutMs),
    );
    let release = () => {};
    const settle = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      release();
      sock?.destroy();
      resolve(outcome);
    };
    const fail = (err: unknown) => {
      const { reason, detail } = classify(err, parent, () => timedOut && !parent.aborted);
      settle(failure(reason, reason === 'timeout' ? `no response within ${timeoutMs / 1000} s` : detail, elapsed()));
    };
    if (parent.aborted) return fail(parent.reason);
    release = onAbort(parent, () => fail(parent.reason));
    const onData = (chunk: Buffer) => {
      head = head ? Buffer.concat([head, chunk]) : chunk;
      const nl = head.indexOf(10);
      if (nl < 0 && head.length < 8192) return;
      const status = statusOf(head, nl < 0 ? head.length : nl);
      if (status === null)
        return fail(Object.assign(new Error('Parse Error: not an HTTP response'), { code: 'HPE_INVALID_CONSTANT' }));
      const ms = elapsed();
      settle(
        status === expected
          ? { ok: true, responseTimeMs: ms, statusCode: status, error: null, reason: null }
          : failure('status', `HTTP ${status}, expected ${expected}`, ms, status),
      );
    };
    deps.resolver.resolve(p.host).then((addr) => {
      if (settled) return;
      const s = p.secure
        ? tls.connect({
            host: addr.address,
            port: p.port,
            ...(p.servername ? { servername: p.servername } : {}),
            ...(deps.ca ? { ca: deps.ca } : {}),
            ALPNProtocols: ['http/1.1'],
          })
        : net.connect({ host: addr.address, port: p.port });
      sock = s;
      // TLS writes its handshake's last flight and the request back to back: no Nagle delay between
      // them. A plain request is one write, which Nagle never holds back.
      if (p.secure) s.setNoDelay(true);
      s.once(p.secure ? 'secureConnect' : 'connect', () => s.write(p.request));
      // Raw bytes (no string decoder): only the status line is looked at.
      s.on('data', onData);
      s.on('error', fail);
      // Closed before a status line: what node:http calls "socket hang up".
      s.on('close', () => fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
    }, fail);
  });
}

/** The prepared request of an endpoint, made again only when the endpoint object is replaced (an update). */
const preparedOf = new WeakMap<UrlParts, Prepared | null>();

const web: LivenessProbeFn = (e, c, deps, signal) => {
  let p = preparedOf.get(e);
  if (p === undefined) preparedOf.set(e, (p = prepare(fullUrl(e))));
  if (!p) return Promise.resolve(failure('error', `invalid URL ${fullUrl(e)}`, 0));
  return check(p, c.timeout_seconds * 1000, c.expected_status_code, deps, signal);
};

declare module '../domain/endpoint.js' {
  interface EndpointTypeNames {
    https: true;
    http: true;
  }
}

const GET = '`GET full_url` answers `expected_status_code`';

/** `http`: a GET expecting expected_status_code; no certificate. */
export const http: EndpointPlugin<'http'> = {
  name: 'http',
  defaultPort: 80,
  url: 'web',
  certificate: 'never',
  docs: { liveness: GET, certificate: 'none' },
  liveness: web,
};

/** `https`: the same GET over TLS; its certificate is inspected (TLS from the first byte). */
export const https: EndpointPlugin<'https'> = {
  name: 'https',
  defaultPort: 443,
  url: 'web',
  certificate: 'always',
  docs: { liveness: GET, certificate: 'always inspected' },
  liveness: web,
  inspect: inspectTls,
};
