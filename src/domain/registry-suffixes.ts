// Registry-run second-level suffixes: names under them (shop.uk.com) are registrations of their own,
// sold by the suffix's operator, not subdomains of the suffix's owner (uk.com). The ICANN part of
// the public suffix list does not know them, so without this table shop.uk.com would be looked up
// as uk.com and show the registration of CentralNic's own domain. Hosting suffixes from the PSL's
// private section (github.io, herokuapp.com, blogspot.com) are deliberately absent: a name under
// them is not a registration, and the owner's registration is the right one to watch.
// Sources: CentralNic's second-level list as python-whois (MIT) maps it to whois.centralnic.com;
// ar.com and co.ca as docs/registration-sources.md lists them.

interface RegistrySuffix {
  operator: string;
  /** The operator's WHOIS server (port 43). */
  whois: string;
  /** RDAP base URL, when the operator publishes one for the suffix (none is in IANA's bootstrap). */
  rdap: string | null;
}

const CENTRALNIC: RegistrySuffix = { operator: 'CentralNic', whois: 'whois.centralnic.com', rdap: null };

const CENTRALNIC_SUFFIXES = [
  'ae.org',
  'ar.com',
  'br.com',
  'cn.com',
  'co.com',
  'co.nl',
  'co.no',
  'com.de',
  'com.se',
  'de.com',
  'eu.com',
  'gb.net',
  'gr.com',
  'hu.net',
  'in.net',
  'jp.net',
  'jpn.com',
  'mex.com',
  'ru.com',
  'sa.com',
  'se.net',
  'uk.com',
  'uk.net',
  'us.com',
  'us.org',
  'za.bz',
  'za.com',
] as const;

export const REGISTRY_SUFFIXES: Readonly<Record<string, RegistrySuffix>> = Object.freeze({
  ...Object.fromEntries(CENTRALNIC_SUFFIXES.map((s) => [s, CENTRALNIC])),
  'co.ca': { operator: 'the co.ca registry', whois: 'whois.co.ca', rdap: null },
});

/** The registry suffix a name sits under (shop.uk.com -> uk.com), or null (uk.com itself: null). */
export function registrySuffixOf(name: string): string | null {
  const labels = name.toLowerCase().replace(/\.$/, '').split('.');
  // Longest first, though no entry today is a suffix of another.
  for (let i = 1; i < labels.length - 1; i++) {
    const suffix = labels.slice(i).join('.');
    if (REGISTRY_SUFFIXES[suffix]) return suffix;
  }
  return null;
}

/** The registration a name belongs to under a registry suffix (www.shop.uk.com -> shop.uk.com), else null. */
export function registryRegistration(name: string): { name: string; suffix: string; registry: RegistrySuffix } | null {
  const suffix = registrySuffixOf(name);
  if (!suffix) return null;
  const labels = name.toLowerCase().replace(/\.$/, '').split('.');
  const n = suffix.split('.').length;
  return { name: labels.slice(-(n + 1)).join('.'), suffix, registry: REGISTRY_SUFFIXES[suffix]! };
}
