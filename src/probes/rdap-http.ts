// The HTTP GET of every RDAP request (domain look-ups and the IANA bootstrap): through the guarded
// dispatcher, so DOMMON_OUTBOUND_DENY is checked on the address each hop connects to; redirects
// followed by hand, at most MAX_RDAP_REDIRECTS of them and only to http(s) URLs, each hop a new
// guarded request; the answer read up to MAX_RDAP_BYTES and the rest cancelled.
import type { Dispatcher } from 'undici';
import { dispatcherOf, undici, type DispatcherSource } from '../net/dispatcher.js';

/** At most this many bytes of an RDAP answer (or of the bootstrap file) are read. */
export const MAX_RDAP_BYTES = 1024 * 1024;
/** Redirects followed per RDAP request; every hop is checked against the outbound policy. */
export const MAX_RDAP_REDIRECTS = 3;

/** A failed request, said in our words: `reason` never holds a byte the peer sent. */
type RdapFailure = { failed: string; denied?: boolean };

interface RdapAnswer {
  status: number;
  header(name: string): string | null;
  /** The body when it fits in MAX_RDAP_BYTES, else null (the rest is not downloaded). */
  read(): Promise<Buffer | null>;
  discard(): Promise<void>;
}

/** Reads at most `max` bytes of a body; null when it holds more (the download stops there). */
async function readBounded(body: Dispatcher.ResponseData['body'], max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let seen = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      seen += chunk.byteLength;
      if (seen > max) return null; // leaving the loop destroys the body: the download stops
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  } finally {
    void discard(body);
  }
}

/** Stops a body that is not wanted (or not wanted further); the download ends with it. */
function discard(body: Dispatcher.ResponseData['body']): Promise<void> {
  // undici reports a body destroyed before its end as an error: expected here, so heard and dropped.
  body.on('error', () => undefined);
  if (!body.destroyed && !body.readableEnded) body.destroy();
  return Promise.resolve();
}

/** The reason of a request that got no answer: a timeout, our policy's refusal, or an error code. */
function failure(err: unknown, signal: AbortSignal): RdapFailure {
  const e = err as Error & { code?: string; cause?: Error & { code?: string } };
  if (signal.aborted || e.name === 'TimeoutError' || e.name === 'AbortError') return { failed: 'timed out' };
  const cause = e.code ? e : (e.cause ?? e);
  if (cause.code === 'ERR_OUTBOUND_DENIED') return { failed: `denied: ${cause.message}`, denied: true };
  // An error code (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET...) is ours; a message may quote the peer.
  return { failed: cause.code ?? e.code ?? 'the request failed' };
}

/**
 * GET `url` with `accept`; a 3xx with a Location is followed (relative to the hop that sent it) up to
 * MAX_RDAP_REDIRECTS times. Answers the final response, or why there is none.
 */
export async function rdapGet(
  url: string,
  accept: string,
  signal: AbortSignal,
  dispatcher?: DispatcherSource,
): Promise<RdapAnswer | RdapFailure> {
  const [{ request }, through] = await Promise.all([undici(), dispatcherOf(dispatcher)]);
  let at = url;
  for (let hop = 0; ; hop++) {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(at, {
        method: 'GET',
        headers: { accept, 'user-agent': 'dommon' },
        signal,
        dispatcher: through,
      });
    } catch (err) {
      const f = failure(err, signal);
      return hop === 0 ? f : { ...f, failed: `after a redirect: ${f.failed}` };
    }
    const header = (name: string) => {
      const v = res.headers[name];
      return (Array.isArray(v) ? v[0] : v) ?? null;
    };
    const location = header('location');
    if (res.statusCode >= 300 && res.statusCode < 400 && location) {
      await discard(res.body);
      if (hop >= MAX_RDAP_REDIRECTS) return { failed: `more than ${MAX_RDAP_REDIRECTS} redirects` };
      let next: URL;
      try {
        next = new URL(location, at);
      } catch {
        return { failed: `HTTP ${res.statusCode} redirects to an unreadable location` };
      }
      if (next.protocol !== 'https:' && next.protocol !== 'http:')
        return { failed: `HTTP ${res.statusCode} redirects to a URL that is not http(s)` };
      at = next.toString();
      continue;
    }
    const body = res.body;
    return {
      status: res.statusCode,
      header,
      read: () => readBounded(body, MAX_RDAP_BYTES),
      discard: () => discard(body),
    };
  }
}
