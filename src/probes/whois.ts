// WHOIS (port 43) domain look-ups through whoiser's raw query; the answer is read by our own
// parser (src/domain/whois-parse.ts: label tables per registry family, per-registry date order).
// A probe returns an outcome; it never throws for a failing server.
import type { LookupOutcome, RegistrationData } from '../domain/registration.js';
import { registryRegistration } from '../domain/registry-suffixes.js';
import { classifyWhoisAnswer, parseWhoisAnswer, readWhoisAnswer, type WhoisClass } from '../domain/whois-parse.js';
import type { Resolver } from '../net/resolve.js';

type RawQuery = (o: { host: string; port: number; query: string; timeout: number }) => Promise<string>;
let whoiser: Promise<RawQuery> | undefined;

/**
 * One raw WHOIS query (whoiser's). whoiser loads with the first query, not with the services that may
 * send one: a command that sends none does not load it.
 */
export function whoisQuery(o: Parameters<RawQuery>[0]): Promise<string> {
  whoiser ??= import('whoiser').then((m) => (m.default as unknown as { query: RawQuery }).query);
  return whoiser.then((query) => query(o));
}

/**
 * Registry WHOIS servers for TLDs dommon knows (no look-up at whois.iana.org needed at run time);
 * other TLDs get IANA's referral (whois-referral.ts). The hosts match IANA's root zone data.
 */
export const WHOIS_SERVERS: Record<string, string> = {
  com: 'whois.verisign-grs.com',
  net: 'whois.verisign-grs.com',
  cc: 'ccwhois.verisign-grs.com',
  tv: 'whois.nic.tv',
  org: 'whois.pir.org',
  info: 'whois.nic.info',
  biz: 'whois.nic.biz',
  mobi: 'whois.nic.mobi',
  pro: 'whois.nic.pro',
  io: 'whois.nic.io',
  ai: 'whois.nic.ai',
  me: 'whois.nic.me',
  co: 'whois.nic.co',
  us: 'whois.nic.us',
  xyz: 'whois.nic.xyz',
  online: 'whois.nic.online',
  site: 'whois.nic.site',
  store: 'whois.nic.store',
  tech: 'whois.nic.tech',
  app: 'whois.nic.google',
  dev: 'whois.nic.google',
  page: 'whois.nic.google',
  uk: 'whois.nic.uk',
  de: 'whois.denic.de',
  eu: 'whois.eu',
  ch: 'whois.nic.ch',
  li: 'whois.nic.ch',
  fr: 'whois.nic.fr',
  nl: 'whois.domain-registry.nl',
  be: 'whois.dns.be',
  it: 'whois.nic.it',
  at: 'whois.nic.at',
  se: 'whois.iis.se',
  nu: 'whois.iis.nu',
  dk: 'whois.punktum.dk',
  no: 'whois.norid.no',
  fi: 'whois.fi',
  pl: 'whois.dns.pl',
  cz: 'whois.nic.cz',
  es: 'whois.nic.es',
  pt: 'whois.dns.pt',
  ie: 'whois.weare.ie',
  is: 'whois.isnic.is',
  lu: 'whois.dns.lu',
  ca: 'whois.cira.ca',
  au: 'whois.auda.org.au',
  nz: 'whois.irs.net.nz',
  jp: 'whois.jprs.jp',
  br: 'whois.registro.br',
  in: 'whois.registry.in',
  ru: 'whois.tcinet.ru',
  su: 'whois.tcinet.ru',
  cn: 'whois.cnnic.cn',
  tw: 'whois.twnic.net.tw',
  kr: 'whois.kr',
  sg: 'whois.sgnic.sg',
  hk: 'whois.hkirc.hk',
  za: 'whois.registry.net.za',
  mx: 'whois.mx',
  // ccTLDs with no RDAP service in IANA's bootstrap.
  rs: 'whois.rnids.rs',
  bg: 'whois.register.bg',
  by: 'whois.cctld.by',
  cl: 'whois.nic.cl',
  il: 'whois.isoc.org.il',
  ve: 'whois.nic.ve',
  pe: 'kero.yachay.pe',
  sa: 'whois.nic.net.sa',
  tr: 'whois.trabis.gov.tr',
  do: 'whois.nic.do',
  hu: 'whois.nic.hu',
  lv: 'whois.nic.lv',
  ro: 'whois.rotld.ro',
  sk: 'whois.sk-nic.sk',
  kz: 'whois.nic.kz',
};

/** The built-in server for a registrable name: its registry suffix's (shop.uk.com), else its TLD's; null when unknown. */
export function whoisServerFor(name: string): string | null {
  const reg = registryRegistration(name);
  if (reg) return reg.registry.whois;
  const tld = name.toLowerCase().split('.').pop() ?? '';
  return WHOIS_SERVERS[tld] ?? null;
}

/** The class of an answer for `name` (rate limits are short refusals without domain data). */
export function classifyWhois(text: string, name = 'example.com'): WhoisClass {
  return classifyWhoisAnswer(name, text);
}

/** "try again in 60 seconds" style hints, else null. */
function whoisRetryHint(text: string): number | null {
  const m = /(?:in|after)\s+(\d+)\s*(second|sec|s|minute|min)/i.exec(text);
  if (!m) return null;
  return Number(m[1]) * (/^m/i.test(m[2]!) ? 60_000 : 1000);
}

export function parseWhoisText(name: string, text: string): RegistrationData {
  return parseWhoisAnswer(name, text).data;
}

interface WhoisServer {
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

/** The address a WHOIS query connects to: the server's name looked up through the guarded resolver
 * (DOMMON_OUTBOUND_DENY checked on every address), or the name itself when there is no resolver. */
export async function whoisAddress(host: string, resolver: Resolver | undefined): Promise<string> {
  return resolver ? (await resolver.resolve(host)).address : host;
}

/** Why a WHOIS query got no answer, in our words: a timeout, our policy's refusal, or an error code. */
export function whoisFailure(err: unknown): string {
  const e = err as Error & { code?: string };
  if (e.code === 'ERR_OUTBOUND_DENIED') return `denied: ${e.message}`;
  return e.code ?? (e.message === 'timed out' || e.message === 'aborted' ? e.message : 'the query failed');
}

export async function whoisLookup(
  name: string,
  server: WhoisServer,
  timeoutMs: number,
  signal?: AbortSignal,
  resolver?: Resolver,
): Promise<LookupOutcome> {
  const label = `${server.host}:${server.port}`;
  let text: string;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const host = await whoisAddress(server.host, resolver);
    const q = whoisQuery({
      host,
      port: server.port,
      query: whoisQueryText(name),
      timeout: Math.max(1000, timeoutMs),
    });
    // whoiser's timeout is an idle timeout; the budget is enforced here as a whole.
    const aborted = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), Math.max(1000, timeoutMs));
      onAbort = () =>
        reject(new Error((signal?.reason as Error | undefined)?.name === 'TimeoutError' ? 'timed out' : 'aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    q.catch(() => undefined);
    text = await Promise.race([q, aborted]);
  } catch (err) {
    return { kind: 'error', source: 'whois', server: label, reason: `WHOIS ${label}: ${whoisFailure(err)}` };
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
  const verdict = readWhoisAnswer(name, text);
  switch (verdict.kind) {
    case 'empty':
      return { kind: 'error', source: 'whois', server: label, reason: `WHOIS ${label}: empty answer` };
    case 'rate_limited':
      return {
        kind: 'rate_limited',
        source: 'whois',
        server: label,
        // The server's own words are not repeated: they are remote bytes (docs/security.md).
        reason: `WHOIS ${label}: rate limited`,
        retryAfterMs: whoisRetryHint(text),
      };
    case 'not_found':
      return { kind: 'not_found', source: 'whois', server: label, reason: `WHOIS ${label}: no match for ${name}` };
    case 'unreadable':
      return { kind: 'error', source: 'whois', server: label, reason: `WHOIS ${label}: answer could not be parsed` };
    case 'ok':
      // No expiry published is an answer, not a failure: state ok, the reason says what is missing.
      return verdict.reason
        ? { kind: 'ok', source: 'whois', server: label, data: verdict.data, reason: verdict.reason }
        : { kind: 'ok', source: 'whois', server: label, data: verdict.data };
  }
}
