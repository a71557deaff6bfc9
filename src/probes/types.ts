// What every probe shares: its dependencies (resolver, trusted CAs) and the failure reasons it reports.
import type { ResultDetail } from '../domain/liveness.js';
import type { HeartbeatPings } from '../domain/push.js';
import type { Resolver } from '../net/resolve.js';

/** Why a check failed; the stored error text starts with it (`timeout: ...`). */
export type ProbeReason =
  | 'timeout'
  | 'dns'
  | 'refused'
  | 'reset'
  | 'tls'
  | 'status'
  | 'loss'
  | 'condition'
  | 'cancelled'
  | 'denied'
  | 'error'
  /** A heartbeat that did not come in time (push endpoints). */
  | 'late'
  /** A job that reported failure (push endpoints). */
  | 'failed';

export interface ProbeDeps {
  resolver: Resolver;
  /** Extra trusted CA certificates (PEM); tests pass their own CA here. Default: Node's roots. */
  ca?: string | string[];
  /** What a push endpoint's check reads: its last pings (the services' reader; none: no push checks). */
  heartbeat?: (endpointId: string) => Promise<HeartbeatPings | undefined>;
  /**
   * Milliseconds until a domain's registration expires, from the expiry date dommon already stores
   * for it (its registration checks'): no look-up is made. null when none is known. What a
   * `[DOMAIN_EXPIRATION]` condition reads; absent (a `dommon check` target): unknown.
   */
  domainExpiry?: (domainId: string) => Promise<number | null>;
  /** The recursive resolvers (DOMMON_DNS_SERVERS, host[:port]); empty or absent: the system's. */
  dnsServers?: readonly string[];
  /** The port a zone's own name servers answer on (53); tests map it to their loopback server's. */
  nameserverPort?: (address: string) => number;
  /**
   * Opens a configuration's sealed credentials (LivenessAuth.sealed): the secret and the origin it
   * was given for; throws when this node holds no key that opens them. Absent: credentials are not sent.
   */
  openAuth?: (sealed: string) => { secret: string; origin: string };
}

export interface ProbeOutcome {
  ok: boolean;
  responseTimeMs: number;
  statusCode: number | null;
  error: string | null;
  reason: ProbeReason | null;
  /** When to check again (epoch ms) instead of one interval on: a push endpoint's next deadline. */
  nextCheckAt?: number;
  /** Numbers of the probe type's own, stored with the result (an icmp check's loss and round trips). */
  detail?: ResultDetail;
  /**
   * How long after the probe's start its first packet went out to the target (ms): the name's resolution
   * before it. The scheduler spaces the next run from then (a slow first resolution is not a short gap
   * between two probes as the target sees them). Absent: the probe's start.
   */
  sentAfterMs?: number;
}

export function failure(
  reason: ProbeReason,
  detail: string,
  responseTimeMs: number,
  statusCode: number | null = null,
): ProbeOutcome {
  return { ok: false, responseTimeMs, statusCode, error: `${reason}: ${detail}`, reason };
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_|EPROTO)/;

/** Maps a socket/request error to a reason; `timedOut` says the probe's own deadline fired. */
export function classify(
  err: unknown,
  signal: AbortSignal,
  timedOut: () => boolean,
): { reason: ProbeReason; detail: string } {
  const e = err as NodeJS.ErrnoException & { hostname?: string };
  const code = e?.code ?? '';
  if (code === 'ERR_OUTBOUND_DENIED') return { reason: 'denied', detail: e.message };
  // A protocol answer a probe refused (session.ts ProtocolFailure): its own reason and words.
  if (code === 'ERR_PROBE_PROTOCOL')
    return { reason: (err as { reason: ProbeReason }).reason, detail: (err as { detail: string }).detail };
  if (timedOut()) return { reason: 'timeout', detail: 'no answer in time' };
  if (signal.aborted || code === 'ABORT_ERR' || e?.name === 'AbortError')
    return { reason: 'cancelled', detail: 'probe cancelled' };
  if (
    code === 'ENOTFOUND' ||
    code === 'ENODATA' ||
    code === 'ESERVFAIL' ||
    code.startsWith('EAI_') ||
    e?.syscall === 'getaddrinfo' ||
    e?.syscall?.startsWith('query')
  ) {
    return { reason: 'dns', detail: `${code || 'lookup failed'}${e.hostname ? ` ${e.hostname}` : ''}` };
  }
  if (code === 'ECONNREFUSED') return { reason: 'refused', detail: 'connection refused' };
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up/i.test(e?.message ?? ''))
    return { reason: 'reset', detail: 'connection closed before a response' };
  if (code === 'ETIMEDOUT') return { reason: 'timeout', detail: 'connect timed out' };
  if (TLS_CODES.test(code) || /ssl|tls|certificate/i.test(e?.message ?? ''))
    return { reason: 'tls', detail: code || e.message };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { reason: 'refused', detail: code };
  return { reason: 'error', detail: code ? `${code} ${e.message}` : String(e?.message ?? err) };
}

/**
 * The outcome of a probe that threw, classified alike for every probe: the reason by classify(); a
 * timeout in the probe's own words (`no echo reply within 5 s`, `no DNS answer within 5 s`); a
 * per-question timeout that came before the probe's own deadline (ETIMEOUT: a DNS server that did
 * not answer) a timeout naming whom it waited for; refusals and unreachable hosts as classify() says.
 */
export function failedWith(
  err: unknown,
  parent: AbortSignal,
  timedOut: () => boolean,
  t: { timeoutMs: number; noAnswer: string; elapsedMs: number },
): ProbeOutcome {
  const e = err as { code?: unknown; message?: unknown };
  if (e?.code === 'ETIMEOUT' && !parent.aborted && typeof e.message === 'string')
    return failure('timeout', e.message.replace(/^DNS timeout/, t.noAnswer), t.elapsedMs);
  const { reason, detail } = classify(err, parent, timedOut);
  return failure(reason, reason === 'timeout' ? `${t.noAnswer} within ${t.timeoutMs / 1000} s` : detail, t.elapsedMs);
}

/**
 * `o` with its sentAfterMs: when its first packet went out (`sentAt`) after the probe's start
 * (`started`), both performance.now(); `o` itself when nothing went out.
 */
export function sentAfter(o: ProbeOutcome, started: number, sentAt: number | undefined): ProbeOutcome {
  return sentAt === undefined ? o : { ...o, sentAfterMs: Math.round(sentAt - started) };
}

/** A probe that passed, in `responseTimeMs`. */
export function passed(responseTimeMs: number, statusCode: number | null = null): ProbeOutcome {
  return { ok: true, responseTimeMs, statusCode, error: null, reason: null };
}

// One listener per caller's signal (the scheduler's shutdown signal is shared by every probe in
// flight): a probe joins its set and leaves it, instead of adding and removing an event listener.
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `fn` when `signal` aborts (not if it already has: the caller checks `aborted` first); the
 * returned function unregisters it.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let set = waiting.get(signal);
  if (!set) {
    const fns = (set = new Set());
    waiting.set(signal, fns);
    signal.addEventListener(
      'abort',
      () => {
        for (const f of [...fns]) f();
        fns.clear();
      },
      { once: true },
    );
  }
  set.add(fn);
  return () => void set.delete(fn);
}

/**
 * A probe's own deadline joined with the caller's signal; `timedOut()` tells which one fired and
 * `done()` releases the timer and the listener (one plain timer: cheaper than AbortSignal.any/timeout).
 */
export function deadline(
  parent: AbortSignal,
  timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const ac = new AbortController();
  let timed = false;
  let release = () => {};
  const timer = setTimeout(
    () => {
      timed = true;
      ac.abort(new DOMException('probe timed out', 'TimeoutError'));
    },
    Math.max(1, timeoutMs),
  );
  if (parent.aborted) ac.abort(parent.reason);
  else release = onAbort(parent, () => ac.abort(parent.reason));
  return {
    signal: ac.signal,
    timedOut: () => timed && !parent.aborted,
    done: () => {
      clearTimeout(timer);
      release();
    },
  };
}

/** Rejects with an AbortError as soon as `signal` fires (DNS look-ups take no signal). */
export function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The look-up is already under way: its failure is nobody's to handle now (an unhandled rejection
    // otherwise, e.g. a TLS inspection of a name that does not resolve, started as the daemon stops).
    p.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
