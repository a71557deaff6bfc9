// IANA's WHOIS referral for TLDs dommon has no server for: asks whois.iana.org (port 43) about the
// TLD and reads its `whois:` line. Answers are cached in memory and, when the data directory exists,
// in DATA_DIR/whois-referrals.json (beside the RDAP bootstrap copy), so a restart does not ask again.
// A probe returns an answer; it never throws for a failing server.
import fs from 'node:fs';
import path from 'node:path';
import { parseWhoisServer, whoisAddress, whoisFailure, whoisQuery } from './whois.js';
import type { Resolver } from '../net/resolve.js';

const IANA_WHOIS = 'whois.iana.org:43';
export const REFERRALS_FILE = 'whois-referrals.json';
/** A referral (or IANA's word that there is none) is kept this long, like the RDAP bootstrap. */
const REFERRAL_TTL_MS = 7 * 86_400_000;
/** After IANA could not be asked, it is not asked again for the same TLD for this long. */
const REFERRAL_RETRY_MS = 600_000;

/** server: where to ask; none: IANA names no WHOIS server; error: IANA could not be asked. */
type Referral = { server: string } | { none: string } | { error: string };

interface Entry {
  /** null: IANA lists no WHOIS server for the TLD. */
  server: string | null;
  /** false: IANA does not know the TLD at all (absent in files written before it was kept: known). */
  known?: boolean;
  fetched_at: string;
}

/**
 * The `whois:` server of IANA's answer for a TLD; null when it lists none. A referral may carry a
 * port (`host:port`): IANA's never do, but a private IANA-like server (a mirror, a test) may.
 */
export function parseIanaReferral(text: string): { known: boolean; server: string | null } {
  if (/returned 0 objects/i.test(text) || !/^domain:/im.test(text)) return { known: false, server: null };
  const m = /^whois:\s*(\S+)\s*$/im.exec(text);
  return { known: true, server: m ? m[1]!.toLowerCase() : null };
}

interface WhoisReferralOptions {
  /** host[:port] of IANA's WHOIS service (DOMMON_IANA_WHOIS). */
  iana?: string;
  /** Where the cache is kept across restarts; nothing is written when the directory does not exist. */
  dataDir?: string | null;
  now: () => Date;
  /** The guarded resolver: DOMMON_OUTBOUND_DENY is checked on the address asked. */
  resolver?: Resolver;
}

export function createWhoisReferrals(o: WhoisReferralOptions) {
  const iana = parseWhoisServer(o.iana ?? IANA_WHOIS);
  const label = `${iana.host}:${iana.port}`;
  const file = o.dataDir ? path.join(o.dataDir, REFERRALS_FILE) : null;
  const cache = new Map<string, Entry>();
  const failedAt = new Map<string, { at: number; reason: string }>();
  const inflight = new Map<string, Promise<Referral>>();
  try {
    const saved = JSON.parse(fs.readFileSync(file ?? '', 'utf8')) as Record<string, Entry>;
    for (const [tld, e] of Object.entries(saved)) if (e && typeof e.fetched_at === 'string') cache.set(tld, e);
  } catch {
    // nothing saved yet
  }

  function save() {
    // The one-shot `dommon check` has no data directory and must not create one.
    if (!file || !fs.existsSync(path.dirname(file))) return;
    try {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(Object.fromEntries(cache)), { mode: 0o600 });
      fs.renameSync(`${file}.tmp`, file);
    } catch {
      // a read-only data directory: the memory cache still serves
    }
  }

  // The same words whether IANA was asked just now or its answer came from the cache.
  const answer = (tld: string, e: Entry): Referral =>
    e.server
      ? { server: e.server }
      : { none: e.known === false ? `.${tld} is not a TLD IANA knows` : `IANA lists no WHOIS server for .${tld}` };

  async function ask(tld: string, timeoutMs: number, signal?: AbortSignal): Promise<Referral> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const host = await whoisAddress(iana.host, o.resolver);
      const q = whoisQuery({ host, port: iana.port, query: tld, timeout: timeoutMs });
      q.catch(() => undefined);
      const stop = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
        onAbort = () => reject(new Error('aborted'));
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      const text = await Promise.race([q, stop]);
      const r = parseIanaReferral(text);
      const entry: Entry = {
        server: r.server,
        ...(r.known ? {} : { known: false }),
        fetched_at: o.now().toISOString(),
      };
      cache.set(tld, entry);
      failedAt.delete(tld);
      save();
      return answer(tld, entry);
    } catch (err) {
      const reason = `IANA WHOIS ${label}: ${whoisFailure(err)}`;
      failedAt.set(tld, { at: o.now().getTime(), reason });
      return { error: reason };
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    /** The WHOIS server IANA names for a TLD: from the cache when fresh, else asked (one query per TLD at a time). */
    async serverFor(tld: string, timeoutMs = 5000, signal?: AbortSignal): Promise<Referral> {
      const key = tld.toLowerCase();
      const now = o.now().getTime();
      const hit = cache.get(key);
      if (hit && now - Date.parse(hit.fetched_at) < REFERRAL_TTL_MS) return answer(key, hit);
      const failed = failedAt.get(key);
      if (failed && now - failed.at < REFERRAL_RETRY_MS) return hit ? answer(key, hit) : { error: failed.reason };
      let p = inflight.get(key);
      if (!p) {
        p = ask(key, timeoutMs, signal).finally(() => inflight.delete(key));
        inflight.set(key, p);
      }
      const r = await p;
      // IANA unreachable but an old referral known: the old one is better than none.
      return 'error' in r && hit ? answer(key, hit) : r;
    },
    /** The cached referrals (doctor, tests). */
    cached: () => Object.fromEntries(cache),
  };
}

export type WhoisReferrals = ReturnType<typeof createWhoisReferrals>;
