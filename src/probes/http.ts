// http and https liveness. A plain check (GET, nothing else asked) is one GET to full_url on a fresh
// connection (no agent, no keep-alive), redirects not followed, success when the status equals
// expected_status_code or every condition holds. That request is written on a plain TCP (or TLS)
// socket and only the status line is read: no http.ClientRequest or parser per check, and a plain
// (unencrypted) socket reads into one buffer shared by every check (net's `onread`: no buffer
// allocated per read, no readable-stream machinery). Per check there is one promise, one timer and
// no listener of its own on the caller's signal; the URL is parsed and the request's bytes made
// once per endpoint. A check that asks for more (its own method, headers, body or credentials,
// redirects, conditions on the body, the address or the certificate) goes through http-request.ts.
import { createHash, hash } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import {
  bodyMemo,
  evaluateConditions,
  parseConditions,
  statusCondition,
  type BodyMemo,
  type BodySource,
  type ConditionContext,
  type ConditionSet,
  type Placeholder,
} from '../domain/conditions.js';
import { fullUrl, type UrlParts } from '../domain/endpoint.js';
import {
  exchange,
  firstHop,
  MAX_BODY_BYTES,
  type Answer,
  type Cancel,
  type FirstHop,
  type RequestSpec,
} from './http-request.js';
import type { EndpointPlugin, LivenessProbeFn, ProbeSettings, ProbeTarget } from './plugin.js';
import { inspectTls } from './tls.js';
import { classify, failure, onAbort, sentAfter, type ProbeDeps, type ProbeOutcome } from './types.js';

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
  return check(p, t.timeoutMs, byStatus(t.expectedStatus), deps, parent);
}

/** How an answer's status and time are judged: the outcome of the check. */
type Judge = (status: number, ms: number) => ProbeOutcome;

const byStatus =
  (expected: number): Judge =>
  (status, ms) =>
    status === expected
      ? { ok: true, responseTimeMs: ms, statusCode: status, error: null, reason: null }
      : failure('status', `HTTP ${status}, expected ${expected}`, ms, status);

/**
 * The status line at the head of a response (`HTTP/d[.d] ddd`, in the bytes before `end`): its code,
 * or null when the bytes are not HTTP. Read from the bytes: no string per check.
 */
function statusOf(head: Uint8Array, end: number): number | null {
  // "HTTP/", the major version, [".", the minor version], " ", three digits
  if (end < 10 || head[0] !== 0x48 || head[1] !== 0x54 || head[2] !== 0x54 || head[3] !== 0x50 || head[4] !== 0x2f)
    return null;
  let i = 5;
  if (!isDigit(head[i++]!)) return null;
  if (head[i] === 0x2e) {
    if (!isDigit(head[i + 1]!)) return null;
    i += 2;
  }
  if (i + 4 > end || head[i] !== 0x20) return null;
  let code = 0;
  for (let k = i + 1; k < i + 4; k++) {
    if (!isDigit(head[k]!)) return null;
    code = code * 10 + head[k]! - 0x30;
  }
  return code;
}

const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

/** The most of a response's head looked at for its status line (bytes). */
const MAX_HEAD = 8192;

/**
 * Where every plain socket of the HTTP check reads its bytes (net's `onread`): a read's callback
 * looks at them, and copies what it keeps, before the event loop reads another socket into it.
 */
const READS = Buffer.allocUnsafe(MAX_HEAD);

/** One GET on a new socket: resolves with the outcome once the status line is read (the socket is then closed). */
function check(
  p: Prepared,
  timeoutMs: number,
  judge: Judge,
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
    /** When the connection was opened (performance.now()), once the name is resolved. */
    let sentAt: number | undefined;
    const settle = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      release();
      sock?.destroy();
      resolve(sentAfter(outcome, started, sentAt));
    };
    const fail = (err: unknown) => {
      const { reason, detail } = classify(err, parent, () => timedOut && !parent.aborted);
      settle(failure(reason, reason === 'timeout' ? `no response within ${timeoutMs / 1000} s` : detail, elapsed()));
    };
    if (parent.aborted) return fail(parent.reason);
    release = onAbort(parent, () => fail(parent.reason));
    // `n` bytes of `bytes` arrived (the shared READS buffer, or a TLS socket's chunk): judged once the
    // status line is complete, or MAX_HEAD bytes came without one. Only a status line split over
    // reads is copied.
    const onBytes = (bytes: Buffer, n: number): void => {
      let buf = bytes;
      let len = n;
      if (head) {
        head = Buffer.concat([head, bytes.subarray(0, n)]);
        buf = head;
        len = head.length;
      }
      let nl = 0;
      while (nl < len && buf[nl] !== 0x0a) nl++;
      if (nl === len && len < MAX_HEAD) {
        head ??= Buffer.from(bytes.subarray(0, n));
        return;
      }
      const status = statusOf(buf, nl);
      if (status === null)
        return fail(Object.assign(new Error('Parse Error: not an HTTP response'), { code: 'HPE_INVALID_CONSTANT' }));
      settle(judge(status, elapsed()));
    };
    deps.resolver.resolve(p.host).then((addr) => {
      if (settled) return;
      sentAt = performance.now();
      const s = p.secure
        ? tls.connect({
            host: addr.address,
            port: p.port,
            ...(p.servername ? { servername: p.servername } : {}),
            ...(deps.ca ? { ca: deps.ca } : {}),
            ALPNProtocols: ['http/1.1'],
          })
        : net.connect({
            host: addr.address,
            port: p.port,
            onread: {
              buffer: READS,
              callback: (n: number, buf: Uint8Array) => {
                onBytes(buf as Buffer, n);
                return true;
              },
            },
          });
      sock = s;
      // TLS writes its handshake's last flight and the request back to back: no Nagle delay between
      // them. A plain request is one write, which Nagle never holds back.
      if (p.secure) {
        s.setNoDelay(true);
        // Raw bytes (no string decoder): only the status line is looked at.
        s.on('data', (chunk: Buffer) => onBytes(chunk, chunk.length));
      }
      s.once(p.secure ? 'secureConnect' : 'connect', () => s.write(p.request));
      // After the verdict the socket is destroyed: its close (and any late error) is no news, and
      // no error object is built for it.
      s.on('error', (err) => {
        if (!settled) fail(err);
      });
      // Closed before a status line: what node:http calls "socket hang up".
      s.on('close', () => {
        if (!settled) fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      });
    }, fail);
  });
}

/** The prepared request of an endpoint, made again only when the endpoint object is replaced (an update). */
const preparedOf = new WeakMap<UrlParts, Prepared | null>();

/** The placeholders an HTTP check supplies. */
const HTTP_PLACEHOLDERS: readonly Placeholder[] = [
  'STATUS',
  'RESPONSE_TIME',
  'BODY',
  'CONNECTED',
  'IP',
  'CERTIFICATE_EXPIRATION',
  'DOMAIN_EXPIRATION',
];

/** What a configuration asks of its checks, worked out once per configuration object. */
interface Plan {
  conditions: ConditionSet;
  /** The configuration has conditions of its own (else: `[STATUS] == expected_status_code`). */
  own: boolean;
  /** Needs http-request.ts: more than a GET and a status line. */
  full: boolean;
  /** A transport failure is judged by the conditions too (they name [CONNECTED]). */
  judgesConnection: boolean;
  /** The conditions name [DOMAIN_EXPIRATION]: the domain's stored expiry is read before the request. */
  domain: boolean;
  /** The conditions name [BODY]: what the last body gave them, for a next body with the same bytes. */
  memo: BodyMemo | null;
  /** The full request's first hop, made on the first check (full checks only). */
  first: FirstHop | null;
  /** The full request as the exchange takes it, made again when the URL or the credentials change. */
  spec: RequestSpec | null;
}

const planOf = new WeakMap<ProbeSettings, Plan>();

function plan(c: ProbeSettings): Plan {
  let p = planOf.get(c);
  if (p) return p;
  // Stored conditions were parsed when written; one that no longer parses fails every check plainly.
  const list = c.conditions?.length ? c.conditions : [statusCondition(c.expected_status_code)];
  const conditions = parseConditions(list, { placeholders: HTTP_PLACEHOLDERS });
  const needs = (x: Placeholder) => conditions.uses.has(x);
  p = {
    conditions,
    own: (c.conditions?.length ?? 0) > 0,
    full:
      (c.method ?? 'GET') !== 'GET' ||
      Object.keys(c.headers ?? {}).length > 0 ||
      (c.body ?? null) !== null ||
      c.follow_redirects === true ||
      (c.auth ?? null) !== null ||
      needs('BODY') ||
      needs('IP') ||
      needs('CERTIFICATE_EXPIRATION'),
    judgesConnection: needs('CONNECTED'),
    domain: needs('DOMAIN_EXPIRATION'),
    memo: needs('BODY') ? bodyMemo() : null,
    first: null,
    spec: null,
  };
  if (p.full) p.first = firstHop();
  planOf.set(c, p);
  return p;
}

/** The longest error text a failed condition list leaves in a result. */
const MAX_CONDITION_ERROR = 500;

/** The outcome of an answer (or of no answer: `connected` false) judged by the plan's conditions. */
function judged(
  p: Plan,
  context: ConditionContext,
  ms: number,
  status: number | null,
  body?: BodySource,
): ProbeOutcome {
  const out = evaluateConditions(p.conditions, context, body);
  if (out.ok) return { ok: true, responseTimeMs: ms, statusCode: status, error: null, reason: null };
  // Judged by expected_status_code alone: the error reads as it always has.
  if (!p.own && status !== null)
    return failure(
      'status',
      `HTTP ${status}, expected ${out.failures[0].condition.slice('[STATUS] == '.length)}`,
      ms,
      status,
    );
  let text = out.failures.map((f) => f.seen).join('; ');
  if (text.length > MAX_CONDITION_ERROR) text = `${text.slice(0, MAX_CONDITION_ERROR)}...`;
  return failure('condition', text, ms, status);
}

/** A transport failure: a failed check, unless the conditions judge the connection ([CONNECTED] == false). */
function unanswered(p: Plan, o: ProbeOutcome, known: ConditionContext): ProbeOutcome {
  if (!p.judgesConnection || o.reason === 'cancelled' || o.reason === 'denied') return o;
  const verdict = judged(p, { ...known, CONNECTED: false, RESPONSE_TIME: o.responseTimeMs }, o.responseTimeMs, null);
  return verdict.ok ? verdict : o;
}

/** The Authorization header of a configuration's credentials, opened once per configuration object. */
const authOf = new WeakMap<object, { header: string; origin: string } | Error>();

function authorization(c: ProbeSettings, deps: ProbeDeps): { header: string; origin: string } | Error | null {
  const a = c.auth;
  if (!a) return null;
  let h = authOf.get(a);
  if (!h) {
    try {
      if (!deps.openAuth) throw new Error('no secret key to open them with');
      const { secret, origin } = deps.openAuth(a.sealed);
      const header =
        a.type === 'basic'
          ? `Basic ${Buffer.from(`${a.username ?? ''}:${secret}`, 'utf8').toString('base64')}`
          : `Bearer ${secret}`;
      h = { header, origin };
    } catch (err) {
      h = new Error(`the credentials cannot be opened: ${(err as Error).message}`);
    }
    authOf.set(a, h);
  }
  return h;
}

function full(
  e: UrlParts,
  c: ProbeSettings,
  p: Plan,
  known: ConditionContext,
  deps: ProbeDeps,
  parent: AbortSignal,
): Promise<ProbeOutcome> {
  const url = fullUrl(e);
  const auth = authorization(c, deps);
  if (auth instanceof Error) return Promise.resolve(failure('error', `auth: ${auth.message}`, 0));
  if (auth && auth.origin !== new URL(url).origin)
    return Promise.resolve(
      failure(
        'error',
        `auth: the credentials were given for ${auth.origin} and the endpoint is now ${new URL(url).origin}; set them again`,
        0,
      ),
    );
  let spec = p.spec;
  if (spec === null || spec.url !== url || spec.auth !== auth)
    p.spec = spec = {
      url,
      method: c.method ?? 'GET',
      headers: c.headers ?? {},
      body: c.body ?? null,
      followRedirects: c.follow_redirects === true,
      auth,
      readBody: p.conditions.uses.has('BODY'),
      first: p.first ?? undefined,
    };
  const request = spec;
  const timeoutMs = c.timeout_seconds * 1000;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // As the plain check: one promise, one timer and no listener of its own on the caller's signal.
  return new Promise<ProbeOutcome>((resolve) => {
    let settled = false;
    let timedOut = false;
    const cancel: Cancel = { reason: null, hop: null };
    const stop = (reason: unknown) => {
      cancel.reason = reason;
      cancel.hop?.abort(reason);
      fail(reason);
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        stop(new DOMException('probe timed out', 'TimeoutError'));
      },
      Math.max(1, timeoutMs),
    );
    let release = () => {};
    const settle = (o: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      release();
      resolve(sentAfter(o, started, cancel.sentAt));
    };
    function fail(err: unknown) {
      const { reason, detail } = classify(err, parent, () => timedOut && !parent.aborted);
      settle(
        unanswered(
          p,
          failure(reason, reason === 'timeout' ? `no response within ${timeoutMs / 1000} s` : detail, elapsed()),
          known,
        ),
      );
    }
    if (parent.aborted) return fail(parent.reason);
    release = onAbort(parent, () => stop(parent.reason));
    exchange(request, cancel, deps, (err, a) => {
      if (settled) return;
      if (err) return fail(err);
      // Called from the socket's read: a throw here would end no check, so it fails this one.
      let o: ProbeOutcome;
      try {
        o = answered(p, a!, elapsed(), known);
      } catch (e) {
        return fail(e);
      }
      settle(o);
    });
  });
}

/** The outcome of an answer: the body's bound, then the conditions. */
function answered(p: Plan, a: Answer, ms: number, known: ConditionContext): ProbeOutcome {
  if (a.tooLarge)
    return failure(
      'condition',
      `the body is longer than ${MAX_BODY_BYTES} bytes: conditions read at most that`,
      ms,
      a.status,
    );
  const context: ConditionContext =
    a.certificateMs === null
      ? { ...known, STATUS: a.status, RESPONSE_TIME: ms, CONNECTED: true, IP: a.ip }
      : {
          ...known,
          STATUS: a.status,
          RESPONSE_TIME: ms,
          CONNECTED: true,
          IP: a.ip,
          CERTIFICATE_EXPIRATION: a.certificateMs,
        };
  return judged(p, context, ms, a.status, a.body && p.memo ? bodySource(a.body, p.memo) : undefined);
}

/**
 * A body for the conditions: its SHA-256 (7-8 us for 10 KB, against 60 us for JSON.parse and the
 * collection of what it built) tells whether it is the configuration's last body again, in which
 * case the values its [BODY] operands gave are taken from the memo and it is not decoded or parsed
 * (docs/benchmarks.md, "Figures quoted in the code").
 */
function bodySource(pieces: Buffer[], memo: BodyMemo): BodySource {
  return {
    text: () => (pieces.length === 1 ? pieces[0] : Buffer.concat(pieces)).toString('utf8'),
    digest: digestOf(pieces),
    memo,
  };
}

/** SHA-256 of the pieces as one text, without joining them: one call (no Hash object) for a body in one piece. */
function digestOf(pieces: Buffer[]): string {
  if (pieces.length === 1) return hash('sha256', pieces[0], 'base64');
  const h = createHash('sha256');
  for (const piece of pieces) h.update(piece);
  return h.digest('base64');
}

/** Nothing known before the request: the context of a check whose conditions name no stored value. */
const NOTHING: ConditionContext = {};

/**
 * [DOMAIN_EXPIRATION]: the time left until the endpoint's domain's stored registration expiry (one
 * read by the domain's key, no registry look-up); unknown (no date stored, or a `dommon check`
 * target) leaves it out, which reads as 0.
 */
async function storedValues(e: ProbeTarget, deps: ProbeDeps): Promise<ConditionContext> {
  const ms = e.domain_id && deps.domainExpiry ? await deps.domainExpiry(e.domain_id) : null;
  return ms === null ? NOTHING : { DOMAIN_EXPIRATION: ms };
}

const web: LivenessProbeFn = (e, c, deps, signal) => {
  let p: Plan;
  try {
    p = plan(c);
  } catch (err) {
    return Promise.resolve(failure('error', `conditions: ${(err as Error).message}`, 0));
  }
  if (!p.domain) return request(e, c, p, NOTHING, deps, signal);
  return storedValues(e, deps).then(
    (known) => request(e, c, p, known, deps, signal),
    (err: unknown) => failure('error', `the domain's registration expiry cannot be read: ${(err as Error).message}`, 0),
  );
};

function request(
  e: ProbeTarget,
  c: ProbeSettings,
  p: Plan,
  known: ConditionContext,
  deps: ProbeDeps,
  signal: AbortSignal,
): Promise<ProbeOutcome> {
  if (p.full) return full(e, c, p, known, deps, signal);
  let prepared = preparedOf.get(e);
  if (prepared === undefined) preparedOf.set(e, (prepared = prepare(fullUrl(e))));
  if (!prepared) return Promise.resolve(failure('error', `invalid URL ${fullUrl(e)}`, 0));
  const judge: Judge = p.own
    ? (status, ms) => judged(p, { ...known, STATUS: status, RESPONSE_TIME: ms, CONNECTED: true }, ms, status)
    : byStatus(c.expected_status_code);
  const out = check(prepared, c.timeout_seconds * 1000, judge, deps, signal);
  return p.judgesConnection ? out.then((o) => (o.ok || o.statusCode !== null ? o : unanswered(p, o, known))) : out;
}

declare module '../domain/endpoint.js' {
  interface EndpointTypeNames {
    https: true;
    http: true;
  }
}

/** A passing HTTP check: its status and time. */
const httpUp = (o: ProbeOutcome) => `HTTP ${o.statusCode} in ${o.responseTimeMs} ms`;

const GET =
  '`GET full_url` (or the configured request) answers `expected_status_code`, or every condition holds ([conditions](conditions.md))';

/** `http`: a GET expecting expected_status_code; no certificate. */
export const http: EndpointPlugin<'http'> = {
  name: 'http',
  defaultPort: 80,
  url: 'web',
  certificate: 'never',
  docs: { liveness: GET, certificate: 'none' },
  liveness: web,
  upSummary: httpUp,
  placeholders: HTTP_PLACEHOLDERS,
  httpRequest: true,
};

/** `https`: the same GET over TLS; its certificate is inspected (TLS from the first byte). */
export const https: EndpointPlugin<'https'> = {
  name: 'https',
  defaultPort: 443,
  url: 'web',
  certificate: 'always',
  docs: { liveness: GET, certificate: 'always inspected' },
  liveness: web,
  upSummary: httpUp,
  placeholders: HTTP_PLACEHOLDERS,
  httpRequest: true,
  inspect: inspectTls,
};
