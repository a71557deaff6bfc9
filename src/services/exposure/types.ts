// What a scan knows while it runs: the inventory of names and the tools the checks may use.
import type { Clock } from '../../domain/clock.js';
import type { Domain } from '../../domain/types.js';
import type { DetectedFinding, ExposureCategory } from '../../domain/exposure.js';
import type { DnsResolver } from '../../probes/dns.js';
import type { ExposureNet, PortState } from '../../probes/exposure-net.js';

/** What a scan asks of DNS: look-ups that tell NXDOMAIN apart, and AXFR (src/probes/dns.ts). */
export type ExposureDns = Pick<DnsResolver, 'lookup' | 'axfr'>;

export type NameSource = 'apex' | 'endpoint' | 'certificate' | 'user' | 'wordlist';

export interface HostInfo {
  name: string;
  sources: NameSource[];
  /** NXDOMAIN for the name itself. */
  nxdomain: boolean;
  /** First CNAME target, when the name is an alias. */
  cname: string | null;
  /** A and AAAA addresses the name ends at (through its CNAME chain). */
  addresses: string[];
  /** The alias chain ends at a name that does not exist. */
  targetNxdomain: boolean;
  /** A look-up failed (timeout, SERVFAIL): what the checks saw of this name is not conclusive. */
  error: string | null;
}

export interface Inventory {
  domain: string;
  hosts: HostInfo[];
  wildcard: { detected: boolean; addresses: string[]; cname: string | null };
  nameservers: string[];
  mailHosts: string[];
  /** Names whose look-ups failed: their earlier findings are neither confirmed nor resolved. */
  uncertain: string[];
}

export interface ExposureOptions {
  /** Ports the open_port check tries on each address the domain's own A/AAAA records name. */
  adminPorts: readonly number[];
  /** Labels tried under the domain (bounded). */
  wordlist: readonly string[];
  connectTimeoutMs: number;
  httpTimeoutMs: number;
  tlsTimeoutMs: number;
  axfrTimeoutMs: number;
  /** A scan stops starting new work after this long; unfinished checks resolve nothing. */
  scanBudgetMs: number;
  /** Network operations in flight at once during one scan. */
  concurrency: number;
  /** DNS queries in flight at once (politeness towards the resolvers and nameservers). */
  dnsConcurrency: number;
  maxHosts: number;
}

export type Limit = <T>(fn: () => Promise<T>) => Promise<T>;

export interface CheckContext {
  domain: Domain;
  inventory: Inventory;
  dns: ExposureDns;
  net: ExposureNet;
  clock: Clock;
  options: ExposureOptions;
  signal: AbortSignal;
  /** Bounds network work in flight. */
  limit: Limit;
  dnsLimit: Limit;
  /** Memoised TCP connect (the same address:port is dialled once per scan). */
  tcp(address: string, port: number): Promise<PortState>;
}

export interface ExposureCheck {
  category: ExposureCategory;
  /** One line for docs/exposure.md and the scan's `checks` map. */
  description: string;
  run(ctx: CheckContext): Promise<DetectedFinding[]>;
}

/** A concurrency limiter (no dependency): at most `n` functions run at once, in arrival order. */
export function createLimit(n: number): Limit {
  let active = 0;
  const queue: (() => void)[] = [];
  const next = () => {
    if (active >= n) return;
    const go = queue.shift();
    if (go) {
      active++;
      go();
    }
  };
  return <T>(fn: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push(() => {
        fn()
          .then(resolve, reject)
          .finally(() => {
            active--;
            next();
          });
      });
      next();
    });
}

/** Hosts that reach addresses directly (A/AAAA, or a CNAME chain that stays inside the domain). */
export function ownAddressHosts(inv: Inventory): HostInfo[] {
  return inv.hosts.filter(
    (h) => h.addresses.length > 0 && (h.cname === null || h.cname === inv.domain || h.cname.endsWith(`.${inv.domain}`)),
  );
}
