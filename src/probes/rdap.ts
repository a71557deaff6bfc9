// RDAP (RFC 9083) domain look-ups and the IANA bootstrap (RFC 9224) that says which server to ask.
// A probe returns an outcome; it never throws for a failing server.
import fs from 'node:fs';
import path from 'node:path';
import {
  EMPTY_REGISTRATION,
  hasTransferLock,
  normalizeStatus,
  type LookupOutcome,
  type RegistrationData,
} from '../domain/registration.js';
import type { DispatcherSource } from '../net/dispatcher.js';
import { SHIPPED_BOOTSTRAP } from './rdap-bootstrap.js';
import { MAX_RDAP_BYTES, rdapGet } from './rdap-http.js';
import { parseWhoisDate, parseWhoisTimestamp } from '../domain/registry-dates.js';

const IANA_BOOTSTRAP_URL = 'https://data.iana.org/rdap/dns.json';
const BOOTSTRAP_MAX_AGE_MS = 7 * 86_400_000;
export const BOOTSTRAP_FILE = 'rdap-dns.json';

interface BootstrapFile {
  publication?: string;
  services: [string[], string[]][];
  /** When this copy was fetched (added by dommon to the saved copy). */
  fetched_at?: string;
}

function isBootstrap(x: unknown): x is BootstrapFile {
  const b = x as BootstrapFile;
  return (
    !!b &&
    Array.isArray(b.services) &&
    b.services.every((s) => Array.isArray(s) && Array.isArray(s[0]) && Array.isArray(s[1]))
  );
}

/** TLD (or multi-label suffix) -> base URL ending in '/', https preferred. */
export function bootstrapIndex(b: BootstrapFile): Map<string, string> {
  const out = new Map<string, string>();
  for (const [tlds, urls] of b.services) {
    const url = urls.find((u) => u.startsWith('https://')) ?? urls[0];
    if (!url) continue;
    for (const t of tlds) out.set(t.toLowerCase(), url.endsWith('/') ? url : `${url}/`);
  }
  return out;
}

/** Longest matching suffix of the name's labels (example.com.br tries com.br, then br). */
export function rdapBaseFor(name: string, index: Map<string, string>): string | null {
  const labels = name.toLowerCase().split('.');
  for (let i = 1; i < labels.length; i++) {
    const hit = index.get(labels.slice(i).join('.'));
    if (hit) return hit;
  }
  return null;
}

export interface BootstrapStore {
  /** Base URL for a registrable domain, or null when no RDAP service covers its TLD. */
  baseFor(name: string): string | null;
  publication(): string | null;
  fetchedAt(): string | null;
  /** Fetches a fresh copy when the current one is older than a week; failures keep the last good copy. */
  refreshIfStale(now: Date): Promise<'fresh' | 'refreshed' | 'failed' | 'busy'>;
  /** Whether the copy in use is older than a week (refreshIfStale would fetch). */
  stale(now: Date): boolean;
  /** The copy in use as JSON (what another node adopts). */
  saved(): string;
  /** Takes a copy another node fetched (JSON) when it is valid and newer than ours; true when taken. */
  adopt(json: string): boolean;
  /** Aborts an in-flight refresh (shutdown). */
  stop(): void;
}

interface BootstrapOptions {
  dataDir: string;
  url?: string;
  /** The guarded HTTP client (DOMMON_OUTBOUND_DENY); absent: the default policy's. */
  dispatcher?: DispatcherSource;
  onError?: (err: Error) => void;
}

/** The shipped copy, replaced by the last good copy in the data directory when there is one. */
export function createBootstrapStore(opts: BootstrapOptions): BootstrapStore {
  const file = path.join(opts.dataDir, BOOTSTRAP_FILE);
  let current: BootstrapFile = SHIPPED_BOOTSTRAP;
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (isBootstrap(saved)) current = saved;
  } catch {
    // none saved yet, or unreadable: the shipped copy serves
  }
  let index = bootstrapIndex(current);
  let inflight: Promise<'refreshed' | 'failed'> | undefined;
  const aborter = new AbortController();
  let lastAttempt = 0;
  const age = (now: Date) => now.getTime() - Date.parse(current.fetched_at ?? current.publication ?? '1970-01-01');
  /** Saves a copy in the data directory (written beside, then renamed) and serves it. */
  const install = (next: BootstrapFile) => {
    fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(next), { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file);
    current = next;
    index = bootstrapIndex(next);
  };

  return {
    baseFor: (name) => rdapBaseFor(name, index),
    publication: () => current.publication ?? null,
    fetchedAt: () => current.fetched_at ?? null,
    stop: () => aborter.abort(),
    stale: (now) => age(now) >= BOOTSTRAP_MAX_AGE_MS,
    saved: () => JSON.stringify(current),
    adopt(json) {
      let next: unknown;
      try {
        next = JSON.parse(json);
      } catch {
        return false;
      }
      if (!isBootstrap(next) || next.services.length === 0 || !next.fetched_at) return false;
      if (current.fetched_at && Date.parse(next.fetched_at) <= Date.parse(current.fetched_at)) return false;
      try {
        install(next);
      } catch (err) {
        opts.onError?.(err as Error);
        return false;
      }
      return true;
    },
    async refreshIfStale(now) {
      if (age(now) < BOOTSTRAP_MAX_AGE_MS) return 'fresh';
      // After a failure, wait an hour before trying again.
      if (now.getTime() - lastAttempt < 3_600_000) return 'fresh';
      if (inflight) return 'busy';
      lastAttempt = now.getTime();
      inflight = (async () => {
        try {
          const from = opts.url ?? IANA_BOOTSTRAP_URL;
          const signal = AbortSignal.any([aborter.signal, AbortSignal.timeout(20_000)]);
          const res = await rdapGet(from, 'application/json', signal, opts.dispatcher);
          if ('failed' in res) throw new Error(`RDAP bootstrap ${from}: ${res.failed}`);
          if (res.status < 200 || res.status > 299) {
            await res.discard();
            throw new Error(`HTTP ${res.status} from ${from}`);
          }
          const raw = await res.read();
          if (!raw) throw new Error(`RDAP bootstrap ${from}: answer larger than ${MAX_RDAP_BYTES} bytes`);
          let body: unknown;
          try {
            body = JSON.parse(raw.toString('utf8'));
          } catch {
            throw new Error(`RDAP bootstrap ${from}: answer is not JSON`);
          }
          if (!isBootstrap(body) || body.services.length === 0) throw new Error('bootstrap file has no services');
          install({ ...body, fetched_at: now.toISOString() });
          return 'refreshed' as const;
        } catch (err) {
          opts.onError?.(err as Error);
          return 'failed' as const;
        } finally {
          inflight = undefined;
        }
      })();
      return inflight;
    },
  };
}

// ---- RFC 9083 response parsing ----

interface RdapEntity {
  roles?: string[];
  vcardArray?: [string, [string, unknown, string, unknown][]];
  handle?: string;
  publicIds?: { type: string; identifier: string }[];
  entities?: RdapEntity[];
}

interface RdapDomain {
  objectClassName?: string;
  ldhName?: string;
  events?: { eventAction: string; eventDate: string }[];
  entities?: RdapEntity[];
  nameservers?: { ldhName?: string; unicodeName?: string }[];
  status?: string[];
  secureDNS?: { delegationSigned?: boolean; zoneSigned?: boolean };
}

function vcardName(e: RdapEntity): string | null {
  const props = e.vcardArray?.[1];
  if (!Array.isArray(props)) return null;
  for (const key of ['fn', 'org']) {
    const p = props.find((x) => Array.isArray(x) && x[0] === key);
    const v = p?.[3];
    if (typeof v === 'string' && v.trim()) return v.trim();
    if (Array.isArray(v) && typeof v[0] === 'string' && v[0].trim()) return v[0].trim();
  }
  return null;
}

/** A registrar entity's name: its vCard fn/org, else its handle (CZ.NIC), else its IANA Registrar ID. */
function registrarName(e: RdapEntity): string | null {
  const iana = e.publicIds?.find((p) => /iana registrar id/i.test(p.type ?? ''))?.identifier;
  return vcardName(e) ?? (e.handle?.trim() || null) ?? (iana ? `IANA Registrar ID ${iana}` : null);
}

/** The registrar entity, at the top level first, then nested under another entity (some registries nest it). */
function findRegistrar(entities: RdapEntity[] | undefined): string | null {
  for (const e of entities ?? []) {
    if (e.roles?.some((r) => r.toLowerCase() === 'registrar')) return registrarName(e);
  }
  for (const e of entities ?? []) {
    const inner = findRegistrar(e.entities);
    if (inner) return inner;
  }
  return null;
}

/**
 * Expiry event names in order of preference: RFC 9083's `expiration`, then the forms some servers
 * use (`registration expiration`; a registrar's own `registrar expiration` only as a last resort).
 */
const EXPIRY_EVENTS = ['expiration', 'registration expiration', 'registrar expiration'];

export function parseRdapDomain(body: unknown): RegistrationData {
  const d = (body ?? {}) as RdapDomain;
  const event = (...actions: string[]) => {
    for (const a of actions) {
      const hit = d.events?.find((e) => e.eventAction?.trim().toLowerCase() === a)?.eventDate;
      if (hit) return hit;
    }
    return null;
  };
  const statuses = (d.status ?? []).map(normalizeStatus);
  return {
    ...EMPTY_REGISTRATION,
    registrar: findRegistrar(d.entities),
    // A date without a zone (2028-09-14T04:00:00) is read as UTC, like the registries that send it mean.
    expiry_date: parseWhoisDate(event(...EXPIRY_EVENTS)),
    creation_date: parseWhoisTimestamp(event('registration')),
    updated_date: parseWhoisTimestamp(event('last changed')),
    nameservers: [
      ...new Set(
        (d.nameservers ?? [])
          .map((n) => (n.ldhName ?? n.unicodeName ?? '').toLowerCase().replace(/\.$/, ''))
          .filter(Boolean),
      ),
    ].sort(),
    statuses,
    transfer_lock: hasTransferLock(statuses),
    dnssec_signed: typeof d.secureDNS?.delegationSigned === 'boolean' ? d.secureDNS.delegationSigned : null,
  };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const t = Date.parse(header);
  return Number.isNaN(t) ? null : Math.max(0, t - now.getTime());
}

/**
 * One RDAP domain query: `{base}domain/{name}`, through the guarded `dispatcher` (every hop, redirects
 * included, checked against DOMMON_OUTBOUND_DENY), the answer read up to MAX_RDAP_BYTES.
 */
export async function rdapLookup(
  name: string,
  base: string,
  signal: AbortSignal,
  now: () => Date,
  dispatcher?: DispatcherSource,
): Promise<LookupOutcome> {
  const url = `${base.endsWith('/') ? base : `${base}/`}domain/${encodeURIComponent(name)}`;
  const server = new URL(url).host;
  const res = await rdapGet(url, 'application/rdap+json, application/json', signal, dispatcher);
  if ('failed' in res) return { kind: 'error', source: 'rdap', server, reason: `RDAP ${server}: ${res.failed}` };
  if (res.status === 404) {
    await res.discard();
    return { kind: 'not_found', source: 'rdap', server, reason: `RDAP ${server}: ${name} is not registered (404)` };
  }
  if (res.status === 400 || res.status === 422) {
    // Some servers answer 400 for a name outside the zones they serve: that says nothing about the name.
    await res.discard();
    return {
      kind: 'error',
      source: 'rdap',
      server,
      reason: `RDAP ${server}: the server does not take this query (HTTP ${res.status}); it may not serve ${name}`,
    };
  }
  if (res.status === 429) {
    await res.discard();
    return {
      kind: 'rate_limited',
      source: 'rdap',
      server,
      reason: `RDAP ${server}: rate limited (429)`,
      retryAfterMs: retryAfterMs(res.header('retry-after'), now()),
    };
  }
  if (res.status < 200 || res.status > 299) {
    await res.discard();
    return { kind: 'error', source: 'rdap', server, reason: `RDAP ${server}: HTTP ${res.status}` };
  }
  let raw: Buffer | null;
  try {
    raw = await res.read();
  } catch (err) {
    const why = signal.aborted ? 'timed out' : ((err as { code?: string }).code ?? 'the answer broke off');
    return { kind: 'error', source: 'rdap', server, reason: `RDAP ${server}: ${why}` };
  }
  if (!raw)
    return {
      kind: 'error',
      source: 'rdap',
      server,
      reason: `RDAP ${server}: answer larger than ${MAX_RDAP_BYTES} bytes (not read)`,
    };
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { kind: 'error', source: 'rdap', server, reason: `RDAP ${server}: answer is not JSON` };
  }
  const b = body as RdapDomain & { errorCode?: number };
  if (b.errorCode === 404)
    return { kind: 'not_found', source: 'rdap', server, reason: `RDAP ${server}: ${name} is not registered` };
  if (b.objectClassName && b.objectClassName !== 'domain')
    return {
      kind: 'error',
      source: 'rdap',
      server,
      reason: `RDAP ${server}: answer is not a domain object`,
    };
  const data = parseRdapDomain(body);
  if (!data.expiry_date && !data.registrar && !data.nameservers.length) {
    return { kind: 'error', source: 'rdap', server, reason: `RDAP ${server}: answer holds no registration data` };
  }
  return { kind: 'ok', source: 'rdap', server, data };
}
