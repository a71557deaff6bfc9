// WHOIS (port 43) domain look-ups through whoiser's raw query, parsed with its parser plus the
// registry quirks it misses (Nominet tags, DENIC's query syntax, "no match" and rate-limit answers).
// A probe returns an outcome; it never throws for a failing server.
import { createRequire } from 'node:module';
import whoiser from 'whoiser';
import {
  EMPTY_REGISTRATION, hasTransferLock, normalizeStatus, parseRegistryDate, parseRegistryTimestamp,
  type LookupOutcome, type RegistrationData,
} from '../domain/registration.js';
import { registryRegistration } from '../domain/registry-suffixes.js';

// whoiser's parser module is CommonJS without types.
const require = createRequire(import.meta.url);
const { parseDomainWhois } = require('whoiser/src/parsers.js') as {
  parseDomainWhois(domain: string, text: string, ignorePrivacy?: boolean): Record<string, string | string[]>;
};
const whoisQuery = (whoiser as unknown as { query(o: { host: string; port: number; query: string; timeout: number }): Promise<string> }).query;

/**
 * Registry WHOIS servers for TLDs dommon knows (no look-up at whois.iana.org needed at run time);
 * other TLDs get IANA's referral (whois-referral.ts). The hosts match IANA's root zone data.
 */
export const WHOIS_SERVERS: Record<string, string> = {
  com: 'whois.verisign-grs.com', net: 'whois.verisign-grs.com', cc: 'ccwhois.verisign-grs.com', tv: 'whois.nic.tv',
  org: 'whois.pir.org', info: 'whois.nic.info', biz: 'whois.nic.biz', mobi: 'whois.nic.mobi', pro: 'whois.nic.pro',
  io: 'whois.nic.io', ai: 'whois.nic.ai', me: 'whois.nic.me', co: 'whois.nic.co', us: 'whois.nic.us',
  xyz: 'whois.nic.xyz', online: 'whois.nic.online', site: 'whois.nic.site', store: 'whois.nic.store', tech: 'whois.nic.tech',
  app: 'whois.nic.google', dev: 'whois.nic.google', page: 'whois.nic.google',
  uk: 'whois.nic.uk', de: 'whois.denic.de', eu: 'whois.eu', ch: 'whois.nic.ch', li: 'whois.nic.ch', fr: 'whois.nic.fr',
  nl: 'whois.domain-registry.nl', be: 'whois.dns.be', it: 'whois.nic.it', at: 'whois.nic.at', se: 'whois.iis.se',
  nu: 'whois.iis.nu', dk: 'whois.punktum.dk', no: 'whois.norid.no', fi: 'whois.fi', pl: 'whois.dns.pl', cz: 'whois.nic.cz',
  es: 'whois.nic.es', pt: 'whois.dns.pt', ie: 'whois.weare.ie', is: 'whois.isnic.is', lu: 'whois.dns.lu',
  ca: 'whois.cira.ca', au: 'whois.auda.org.au', nz: 'whois.irs.net.nz', jp: 'whois.jprs.jp', br: 'whois.registro.br',
  in: 'whois.registry.in', ru: 'whois.tcinet.ru', su: 'whois.tcinet.ru', cn: 'whois.cnnic.cn', tw: 'whois.twnic.net.tw',
  kr: 'whois.kr', sg: 'whois.sgnic.sg', hk: 'whois.hkirc.hk', za: 'whois.registry.net.za', mx: 'whois.mx',
  // ccTLDs with no RDAP service in IANA's bootstrap (issue 19 item 6).
  rs: 'whois.rnids.rs', bg: 'whois.register.bg', by: 'whois.cctld.by', cl: 'whois.nic.cl', il: 'whois.isoc.org.il',
  ve: 'whois.nic.ve', pe: 'kero.yachay.pe', sa: 'whois.nic.net.sa', tr: 'whois.trabis.gov.tr', do: 'whois.nic.do',
  hu: 'whois.nic.hu', lv: 'whois.nic.lv', ro: 'whois.rotld.ro', sk: 'whois.sk-nic.sk', kz: 'whois.nic.kz',
};

/** The built-in server for a registrable name: its registry suffix's (shop.uk.com), else its TLD's; null when unknown. */
export function whoisServerFor(name: string): string | null {
  const reg = registryRegistration(name);
  if (reg) return reg.registry.whois;
  const tld = name.toLowerCase().split('.').pop() ?? '';
  return WHOIS_SERVERS[tld] ?? null;
}

const NO_MATCH = [
  /^\s*no match for/im,
  /^\s*not found/im,
  /no entries found/i,
  /no data found/i,
  /domain not found/i,
  /^\s*status:\s*(free|available)\s*$/im,
  /this domain name has not been registered/i,
  /the queried object does not exist/i,
  /^%% no matching objects found/im,
];

const RATE_LIMITED = [
  /limit exceeded/i,
  /query rate/i,
  /too many (requests|queries|connections)/i,
  /access control limit/i,
  /exceeded (the )?(maximum|allowed|query)/i,
  /quota exceeded/i,
  /try again (later|in)/i,
];

export type WhoisClass = 'ok' | 'not_found' | 'rate_limited' | 'empty';

export function classifyWhois(text: string): WhoisClass {
  if (!text.trim()) return 'empty';
  if (RATE_LIMITED.some((r) => r.test(text))) return 'rate_limited';
  if (NO_MATCH.some((r) => r.test(text))) return 'not_found';
  return 'ok';
}

/** "try again in 60 seconds" style hints, else null. */
export function whoisRetryHint(text: string): number | null {
  const m = /(?:in|after)\s+(\d+)\s*(second|sec|s|minute|min)/i.exec(text);
  if (!m) return null;
  return Number(m[1]) * (/^m/i.test(m[2]!) ? 60_000 : 1000);
}

function first(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.trim() ? s.trim() : null;
}

export function parseWhoisText(name: string, text: string): RegistrationData {
  const p = parseDomainWhois(name, text, true);
  // Nominet appends "[Tag = X]"; Verisign-style answers may repeat the registrar in several lines.
  const registrar = first(p['Registrar'])?.replace(/\s*\[Tag = [^\]]*\]\s*/i, '').trim() || null;
  const statuses = ((p['Domain Status'] as string[] | undefined) ?? [])
    .map((s) => normalizeStatus(s))
    .filter((s) => /^[a-zA-Z]+$/.test(s));
  const dnssec = first(p['DNSSEC'])?.toLowerCase() ?? null;
  const hasDnskey = !!first(p['Dnskey']);
  return {
    ...EMPTY_REGISTRATION,
    registrar,
    expiry_date: parseRegistryDate(first(p['Expiry Date'])),
    creation_date: parseRegistryTimestamp(first(p['Created Date'])),
    updated_date: parseRegistryTimestamp(first(p['Updated Date'])),
    nameservers: [...new Set(((p['Name Server'] as string[] | undefined) ?? []).map((n) => n.toLowerCase().replace(/\.$/, '')))].sort(),
    statuses,
    transfer_lock: hasTransferLock(statuses),
    dnssec_signed: dnssec ? /signed|yes|active/.test(dnssec) && !/unsigned/.test(dnssec) : hasDnskey ? true : null,
  };
}

export interface WhoisServer {
  host: string;
  port: number;
}

export function parseWhoisServer(s: string): WhoisServer {
  const m = /^(.*?)(?::(\d+))?$/.exec(s.trim())!;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: m[2] ? Number(m[2]) : 43 };
}

/**
 * The query a registry expects, by TLD (whoever answers it, so DOMMON_WHOIS_SERVER sees the same):
 * DENIC wants `-T dn <name>` for the domain object (plain `<name>` also matches handles); JPRS
 * answers in English with a `/e` suffix (Japanese labels otherwise).
 */
const QUERY_FORMS: Record<string, (name: string) => string> = {
  de: (name) => `-T dn ${name}`,
  jp: (name) => `${name}/e`,
};

export function whoisQueryText(name: string): string {
  // Names under a registry suffix (shop.com.de) go to that registry, which takes the plain name.
  if (registryRegistration(name)) return name;
  const form = QUERY_FORMS[name.toLowerCase().split('.').pop() ?? ''];
  return form ? form(name) : name;
}

export async function whoisLookup(name: string, server: WhoisServer, timeoutMs: number, signal?: AbortSignal): Promise<LookupOutcome> {
  const label = `${server.host}:${server.port}`;
  let text: string;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const q = whoisQuery({ host: server.host, port: server.port, query: whoisQueryText(name), timeout: Math.max(1000, timeoutMs) });
    // whoiser's timeout is an idle timeout; the budget is enforced here as a whole.
    const aborted = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), Math.max(1000, timeoutMs));
      onAbort = () => reject(new Error(signal?.reason?.name === 'TimeoutError' ? 'timed out' : 'aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    q.catch(() => undefined);
    text = await Promise.race([q, aborted]);
  } catch (err) {
    const e = err as Error & { code?: string };
    return { kind: 'error', source: 'whois', server: label, reason: `WHOIS ${label}: ${e.code ?? e.message}` };
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
  switch (classifyWhois(text)) {
    case 'empty':
      return { kind: 'error', source: 'whois', server: label, reason: `WHOIS ${label}: empty answer` };
    case 'rate_limited':
      return { kind: 'rate_limited', source: 'whois', server: label, reason: `WHOIS ${label}: rate limited ("${text.trim().split('\n')[0]!.slice(0, 120)}")`, retryAfterMs: whoisRetryHint(text) };
    case 'not_found':
      return { kind: 'not_found', source: 'whois', server: label, reason: `WHOIS ${label}: no match for ${name}` };
    default: {
      const data = parseWhoisText(name, text);
      if (!data.expiry_date && !data.registrar && !data.nameservers.length && !data.statuses.length) {
        return { kind: 'error', source: 'whois', server: label, reason: `WHOIS ${label}: answer could not be parsed` };
      }
      return { kind: 'ok', source: 'whois', server: label, data };
    }
  }
}
