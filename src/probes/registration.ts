// The registration-data sources, tried in this order: RDAP first, WHOIS as the fallback.
// Adding a source is one file plus one entry here.
import type { LookupOutcome, RegistrationSource } from '../domain/registration.js';
import { rdapLookup, type BootstrapStore } from './rdap.js';
import { parseWhoisServer, whoisLookup, whoisServerFor } from './whois.js';

export interface RegistrationProbe {
  /** The server that answers for this registrable name, or null when this source has none. */
  serverFor(name: string): string | null;
  /** Why serverFor gave null (for the `unsupported` reason). */
  missing(name: string): string;
  lookup(name: string, server: string, signal: AbortSignal, budgetMs: number): Promise<LookupOutcome>;
}

export interface RegistrationProbeOptions {
  bootstrap: BootstrapStore;
  /** DOMMON_RDAP_URL: base for every RDAP query. */
  rdapUrl: string | null;
  /** DOMMON_WHOIS_SERVER: host:port for every WHOIS query. */
  whoisServer: string | null;
  now: () => Date;
  fetch?: typeof fetch;
}

const tldOf = (name: string) => name.split('.').pop() ?? name;

export function createRegistrationProbes(o: RegistrationProbeOptions) {
  return {
    rdap: {
      serverFor: (name) => o.rdapUrl ?? o.bootstrap.baseFor(name),
      missing: (name) => `no RDAP service for .${tldOf(name)} in the IANA bootstrap`,
      lookup: (name, base, signal) => rdapLookup(name, base, signal, o.now, o.fetch),
    },
    whois: {
      serverFor: (name) => o.whoisServer ?? whoisServerFor(name),
      missing: (name) => `no known WHOIS server for .${tldOf(name)}`,
      lookup: (name, server, signal, budgetMs) => whoisLookup(name, parseWhoisServer(server), budgetMs, signal),
    },
  } satisfies Record<RegistrationSource, RegistrationProbe>;
}

export type RegistrationProbes = ReturnType<typeof createRegistrationProbes>;
