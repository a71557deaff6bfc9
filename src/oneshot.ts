// The composition root of `dommon check`: the daemon's probes, look-ups and rules built from the
// config, without the database, the API or the schedulers. It sits beside app.ts (which uses its
// createLookupIo) so that a one-shot check loads no koa, Kysely or SQLite.
import tls from 'node:tls';
import type { Config } from './config/index.js';
import { systemClock, type Clock } from './domain/clock.js';
import { createDnsResolver, type DnsResolver } from './probes/dns.js';
import { createBootstrapStore, type BootstrapStore } from './probes/rdap.js';
import { createRegistrationProbes, type RegistrationProbes } from './probes/registration.js';
import { createWhoisReferrals } from './probes/whois-referral.js';
import { createServerLimiter, type ServerLimiter } from './probes/limiter.js';
import { createResolver, type ProbeDeps } from './probes/index.js';
import { createRegistrationLookup } from './services/registration.js';
import { createSecurityEvaluator } from './services/security.js';
import { createCheckService, type CheckService } from './services/check.js';

interface LookupIo {
  dns: DnsResolver;
  probes: RegistrationProbes;
  limiter: ServerLimiter;
  bootstrap: BootstrapStore;
}

/** DNS, RDAP and WHOIS access as the config says (DOMMON_DNS_SERVERS, DOMMON_RDAP_URL, DOMMON_WHOIS_SERVER(S), DOMMON_IANA_WHOIS). */
export function createLookupIo(config: Readonly<Config>, clock: Clock, onBootstrapError?: (err: Error) => void): LookupIo {
  // The RDAP bootstrap is the copy the daemon saved in the data directory, else the shipped one.
  const bootstrap = createBootstrapStore({ dataDir: config.dataDir, onError: onBootstrapError });
  return {
    dns: createDnsResolver(config.dnsServers),
    probes: createRegistrationProbes({
      bootstrap, rdapUrl: config.rdapUrl, whoisServer: config.whoisServer, whoisServers: config.whoisServers, now: () => clock.now(),
      // IANA's WHOIS referrals, kept beside the bootstrap copy (only when the data directory exists).
      referrals: createWhoisReferrals({ iana: config.ianaWhois, dataDir: config.dataDir, now: () => clock.now() }),
    }),
    limiter: createServerLimiter({ clock }),
    bootstrap,
  };
}

interface CheckEngineOptions {
  clock?: Clock;
  /** Extra trusted CA certificates (PEM), added to Node's roots. */
  ca?: string[];
  /** Time budget of one registration look-up (RDAP then WHOIS). */
  registrationBudgetMs?: number;
}

type CheckEngine = CheckService & { close(): void };

/** The one-shot engine of `dommon check`; close() cancels whatever is still running. */
export function createCheckEngine(config: Readonly<Config>, opts: CheckEngineOptions = {}): CheckEngine {
  const clock = opts.clock ?? systemClock;
  const io = createLookupIo(config, clock);
  const registration = createRegistrationLookup({ clock, probes: io.probes, limiter: io.limiter, budgetMs: opts.registrationBudgetMs });
  const probes: ProbeDeps = { resolver: createResolver(config.dnsServers, { policy: config.outbound }), ...(opts.ca?.length ? { ca: [...tls.rootCertificates, ...opts.ca] } : {}) };
  const service = createCheckService({ clock, probes, lookup: registration.lookup, evaluate: createSecurityEvaluator(io.dns) });
  return {
    ...service,
    close() {
      registration.abort();
      io.dns.cancel?.();
      io.bootstrap.stop();
    },
  };
}
