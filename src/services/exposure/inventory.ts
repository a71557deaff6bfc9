// Builds the list of names a scan covers: the apex, endpoint hosts, certificate SANs, user-added names
// and the wordlist (kept only when it resolves, and not to the wildcard's answer). Wildcard DNS is
// detected by resolving a random label.
import { randomBytes } from 'node:crypto';
import { withinDomain } from '../../domain/exposure.js';
import type { Lookup } from '../../probes/dns.js';
import type { ExposureDns, HostInfo, Inventory, Limit, NameSource } from './types.js';

interface InventoryInput {
  domain: string;
  endpointHosts: string[];
  certificateNames: string[];
  userNames: string[];
  wordlist: readonly string[];
  maxHosts: number;
}

const records = (l: Lookup<string>): string[] =>
  l.status === 'ok' ? l.records.map((r) => r.toLowerCase().replace(/\.$/, '')) : [];

async function resolveHost(dns: ExposureDns, limit: Limit, name: string): Promise<Omit<HostInfo, 'sources'>> {
  const cname = await limit(() => dns.lookup.cname(name));
  if (cname.status === 'nxdomain')
    return { name, nxdomain: true, cname: null, addresses: [], targetNxdomain: false, error: null };
  const target = records(cname)[0] ?? null;
  const [a, aaaa] = await Promise.all([limit(() => dns.lookup.a(name)), limit(() => dns.lookup.aaaa(name))]);
  const failed = [cname, a, aaaa].find((l) => l.status === 'error');
  const error = failed && failed.status === 'error' ? failed.error : null;
  const addresses = [...records(a), ...records(aaaa)];
  // With a CNAME, NXDOMAIN on the address look-up means the end of the chain does not exist.
  const targetNxdomain =
    target !== null && addresses.length === 0 && (a.status === 'nxdomain' || aaaa.status === 'nxdomain');
  return { name, nxdomain: false, cname: target, addresses, targetNxdomain, error };
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

export async function buildInventory(dns: ExposureDns, limit: Limit, input: InventoryInput): Promise<Inventory> {
  const { domain } = input;
  const sources = new Map<string, Set<NameSource>>();
  const add = (raw: string, src: NameSource) => {
    const n = raw.trim().toLowerCase().replace(/\.$/, '');
    // Wildcard SANs name no single host; anything outside the domain is never probed.
    if (!n || n.includes('*') || !withinDomain(n, domain)) return;
    if (!sources.has(n)) sources.set(n, new Set());
    sources.get(n)!.add(src);
  };
  add(domain, 'apex');
  input.endpointHosts.forEach((h) => add(h, 'endpoint'));
  input.certificateNames.forEach((h) => add(h, 'certificate'));
  input.userNames.forEach((h) => add(h, 'user'));
  input.wordlist.forEach((w) => add(`${w}.${domain}`, 'wordlist'));

  const probe = `dommon-wildcard-${randomBytes(6).toString('hex')}.${domain}`;
  const [wild, ns, mx] = await Promise.all([
    resolveHost(dns, limit, probe),
    limit(() => dns.lookup.ns(domain)),
    limit(() => dns.lookup.mx(domain)),
  ]);
  // Without working DNS a scan can tell nothing apart: fail it rather than resolve findings.
  if (wild.error && ns.status === 'error')
    throw new Error(`DNS look-ups failing (${wild.error}); check DOMMON_DNS_SERVERS`);
  const wildcard = {
    detected: !wild.nxdomain && (wild.addresses.length > 0 || wild.cname !== null),
    addresses: wild.addresses,
    cname: wild.cname,
  };

  const names = [...sources.keys()];
  const resolved = await Promise.all(names.map((n) => resolveHost(dns, limit, n)));
  const hosts: HostInfo[] = [];
  const uncertain = resolved.filter((r) => r.error !== null).map((r) => r.name);
  for (const r of resolved) {
    const src = [...sources.get(r.name)!].sort() as NameSource[];
    const onlyWordlist = src.length === 1 && src[0] === 'wordlist';
    if (onlyWordlist) {
      if (r.error) continue;
      if (r.nxdomain || (r.addresses.length === 0 && r.cname === null)) continue;
      // Under a wildcard, a guessed name answering like the random label is the wildcard, not a host.
      if (wildcard.detected && r.cname === wildcard.cname && sameSet(r.addresses, wildcard.addresses)) continue;
    }
    hosts.push({ ...r, sources: src });
  }
  // Named sources first, then guessed names, within the bound.
  hosts.sort(
    (a, b) =>
      Number(a.sources.includes('wordlist') && a.sources.length === 1) -
        Number(b.sources.includes('wordlist') && b.sources.length === 1) || a.name.localeCompare(b.name),
  );
  return {
    domain,
    hosts: hosts.slice(0, input.maxHosts),
    wildcard,
    nameservers: records(ns),
    mailHosts: records(mx.status === 'ok' ? { status: 'ok', records: mx.records.map((m) => m.exchange) } : mx),
    uncertain,
  };
}
