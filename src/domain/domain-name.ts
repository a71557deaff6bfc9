// Domain names are validated and normalised once, here: lowercase, IDN -> punycode, no trailing dot,
// and registrable per the public suffix list (example.co.uk yes, co.uk no).
import { parse } from 'tldts';
import { registryRegistration } from './registry-suffixes.js';

type NameCheck = { ok: true; name: string } | { ok: false; reason: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * IDN -> punycode by the WHATWG host parser (the URL global, no node: module): the same hostname
 * setter that node:url's domainToASCII runs. A refused name leaves the placeholder host, answered
 * as '' (a bare "x" is no domain either way).
 */
function domainToASCII(s: string): string {
  const u = new URL('ws://x');
  u.hostname = s;
  return u.hostname === 'x' ? '' : u.hostname;
}

export function normalizeDomainName(input: string): NameCheck {
  let s = input.trim().toLowerCase();
  if (s.endsWith('.')) s = s.slice(0, -1);
  if (s.length === 0) return { ok: false, reason: 'domain must not be empty' };
  if (/[\s/:@?#]/.test(s))
    return { ok: false, reason: 'domain must be a bare host name (no scheme, path, port or spaces)' };
  const ascii = domainToASCII(s);
  if (!ascii) return { ok: false, reason: `"${input}" is not a valid domain name` };
  if (ascii.length > 253) return { ok: false, reason: 'domain is longer than 253 characters' };
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) {
    return { ok: false, reason: `"${input}" is not a valid domain name` };
  }
  const info = parse(ascii, { allowPrivateDomains: false });
  if (info.isIp) return { ok: false, reason: 'an IP address is not a domain' };
  // Unknown TLDs (.test, .internal, new gTLDs) are accepted; a bare public suffix is not.
  if (!info.domain) return { ok: false, reason: `"${ascii}" is a public suffix, not a registrable domain` };
  return { ok: true, name: ascii };
}

/**
 * The registrable domain of a valid name: the registration under a registry-run second-level
 * suffix (www.shop.uk.com -> shop.uk.com), else eTLD+1 by the ICANN part of the public suffix list
 * (www.example.co.uk -> example.co.uk; www.me.github.io -> github.io, a hosting suffix, not a registry).
 */
export function registrableDomain(name: string): string | null {
  return registryRegistration(name)?.name ?? parse(name).domain ?? null;
}
