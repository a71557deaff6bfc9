// The registration-data sources, tried in this order: RDAP first, WHOIS as the fallback.
// Adding a source is one file plus one entry here.
import type { DispatcherSource } from '../net/dispatcher.js';
import type { LookupOutcome, RegistrationSource } from '../domain/registration.js';
import { registryRegistration } from '../domain/registry-suffixes.js';
import { rdapLookup, type BootstrapStore } from './rdap.js';
import { parseWhoisServer, whoisLookup, whoisServerFor } from './whois.js';
import type { WhoisReferrals } from './whois-referral.js';
import type { Resolver } from '../net/resolve.js';

/** server: ask it; none: this source has nobody to ask (why); error: finding the server failed (why). */
type ServerChoice = { server: string } | { none: string } | { error: string };

export interface RegistrationProbe {
  /** Who answers for this registrable name (IANA's WHOIS referral may take a query, within budgetMs). */
  serverFor(name: string, signal: AbortSignal, budgetMs: number): ServerChoice | Promise<ServerChoice>;
  lookup(name: string, server: string, signal: AbortSignal, budgetMs: number): Promise<LookupOutcome>;
}

interface RegistrationProbeOptions {
  bootstrap: BootstrapStore;
  /** DOMMON_RDAP_URL: base for every RDAP query. */
  rdapUrl: string | null;
  /** DOMMON_WHOIS_SERVER: host:port for every WHOIS query. */
  whoisServer: string | null;
  /** DOMMON_WHOIS_SERVERS: TLD (or registry suffix such as uk.com) -> host[:port]. */
  whoisServers?: Readonly<Record<string, string>>;
  /** IANA's referral for TLDs with no other WHOIS server; absent: no referral is asked. */
  referrals?: WhoisReferrals;
  now: () => Date;
  /** The guarded HTTP client of RDAP requests (DOMMON_OUTBOUND_DENY); absent: the default policy's. */
  dispatcher?: DispatcherSource;
  /** The guarded resolver of WHOIS connections (DOMMON_OUTBOUND_DENY); absent: the name is dialled as is. */
  resolver?: Resolver;
}

const tldOf = (name: string) => name.split('.').pop() ?? name;

/** The WHOIS server of a name: DOMMON_WHOIS_SERVER, then DOMMON_WHOIS_SERVERS, the built-in table, IANA's referral. */
async function whoisChoice(
  o: RegistrationProbeOptions,
  name: string,
  signal: AbortSignal,
  budgetMs: number,
): Promise<ServerChoice> {
  if (o.whoisServer) return { server: o.whoisServer };
  const tld = tldOf(name);
  const suffix = registryRegistration(name)?.suffix;
  const override = (suffix && o.whoisServers?.[suffix]) || o.whoisServers?.[tld];
  if (override) return { server: override };
  const builtIn = whoisServerFor(name);
  if (builtIn) return { server: builtIn };
  if (!o.referrals) return { none: `no known WHOIS server for .${tld}` };
  const r = await o.referrals.serverFor(tld, Math.min(5000, Math.max(500, budgetMs / 2)), signal);
  if ('server' in r) return r;
  return 'none' in r
    ? { none: `no known WHOIS server for .${tld} (${r.none})` }
    : { error: `no known WHOIS server for .${tld}; ${r.error}` };
}

export type RegistrationProbes = Record<RegistrationSource, RegistrationProbe>;

export function createRegistrationProbes(o: RegistrationProbeOptions): RegistrationProbes {
  return {
    rdap: {
      serverFor: (name): ServerChoice => {
        if (o.rdapUrl) return { server: o.rdapUrl };
        // A registry suffix's own RDAP service, if any: the bootstrap's .com service does not hold shop.uk.com.
        const reg = registryRegistration(name);
        if (reg)
          return reg.registry.rdap
            ? { server: reg.registry.rdap }
            : { none: `no RDAP service for ${reg.suffix} (a ${reg.registry.operator} registry suffix)` };
        const base = o.bootstrap.baseFor(name);
        return base ? { server: base } : { none: `no RDAP service for .${tldOf(name)} in the IANA bootstrap` };
      },
      lookup: (name, base, signal) => rdapLookup(name, base, signal, o.now, o.dispatcher),
    },
    whois: {
      serverFor: (name, signal, budgetMs) => whoisChoice(o, name, signal, budgetMs),
      lookup: (name, server, signal, budgetMs) =>
        whoisLookup(name, parseWhoisServer(server), budgetMs, signal, o.resolver),
    },
  } satisfies Record<RegistrationSource, RegistrationProbe>;
}
