// A zone's delegation as its parent zone's servers give it: the NS names of the referral and the DS
// records the parent holds. The parent's servers are found through the recursive resolvers
// (DOMMON_DNS_SERVERS, else the system's), each one's address chosen through the guarded resolver
// (DOMMON_OUTBOUND_DENY applies), and asked without recursion on the name-server port (53, or
// DOMMON_NAMESERVER_PORT). The child's own servers are never asked: a hijacked child zone cannot hide
// a changed delegation.
import dns from 'node:dns';
import net from 'node:net';
import type packet from 'dns-packet';
import { DnsError, queryServer, type DnsReply } from './dns.js';
import { raceSignal, type ProbeDeps } from './types.js';

export interface Delegation {
  zone: string;
  /** The zone whose servers answered (`com` for example.com). */
  parent: string;
  /** The server that answered (address:port). */
  server: string;
  /** The NS names of the referral: lower case, no trailing dot, sorted; [] when the parent has no delegation. */
  nameservers: string[];
  /** The DS records at the parent as `keyTag algorithm digestType DIGEST` (hex, upper case), sorted. */
  ds: string[];
}

/** The recursive resolvers: the configured ones, else the system's. */
export const recursiveServers = (deps: ProbeDeps): string[] =>
  deps.dnsServers?.length ? [...deps.dnsServers] : dns.getServers();

const bare = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** address:port of a name server at `address`: port 53, or what DOMMON_NAMESERVER_PORT (the deps) says. */
export function nameserverAt(address: string, deps: ProbeDeps): string {
  const port = deps.nameserverPort?.(address) ?? 53;
  return net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`;
}

/** One question to the recursive resolvers in turn (the next only when one does not answer). */
export async function askRecursive(
  name: string,
  type: packet.RecordType,
  deps: ProbeDeps,
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<DnsReply> {
  // The error is made when every server failed: an Error's stack costs more than an answer's parsing.
  let failed = false;
  let last: unknown;
  for (const r of recursiveServers(deps)) {
    try {
      return await queryServer(r, name, type, { ...opts, recurse: true });
    } catch (err) {
      if (opts.signal.aborted) throw err;
      failed = true;
      last = err;
    }
  }
  throw failed ? last : new DnsError('no DNS server configured', 'ENOSERVER');
}

/**
 * The NS names of `zone` as the recursive resolvers answer them; [] when no zone starts there (no
 * NS records, or no such name). SERVFAIL, REFUSED and the like throw.
 */
export async function zoneNameservers(
  zone: string,
  deps: ProbeDeps,
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<string[]> {
  const reply = await askRecursive(zone, 'NS', deps, opts);
  if (reply.rcode === 'NXDOMAIN') return [];
  if (reply.rcode !== 'NOERROR') throw new DnsError(`${reply.rcode} for ${zone || '.'} NS`, reply.rcode);
  return reply.answers
    .filter((a) => a.type === 'NS' && bare(a.name) === bare(zone))
    .map((a) => bare(String((a as { data: string }).data)));
}

/**
 * One question, without recursion, to name servers named `names`, each resolved through the guarded
 * resolver when its turn comes: the first that answers NOERROR or NXDOMAIN is taken (`anyAnswer`: the
 * first that answers at all); REFUSED, SERVFAIL, no answer or a name that does not resolve moves on to
 * the next.
 */
export async function askNameservers(
  names: readonly string[],
  qname: string,
  type: packet.RecordType,
  deps: ProbeDeps,
  opts: { timeoutMs: number; signal: AbortSignal; anyAnswer?: boolean },
): Promise<{ reply: DnsReply; server: string }> {
  let failed = false;
  let last: unknown;
  for (const ns of names) {
    try {
      const addr = await raceSignal(deps.resolver.resolve(ns), opts.signal);
      const server = nameserverAt(addr.address, deps);
      const reply = await queryServer(server, qname, type, {
        timeoutMs: opts.timeoutMs,
        signal: opts.signal,
        recurse: false,
      });
      if (opts.anyAnswer || reply.rcode === 'NOERROR' || reply.rcode === 'NXDOMAIN') return { reply, server };
      failed = true;
      last = new DnsError(`${reply.rcode} from ${ns} (${server}) for ${qname} ${type}`, reply.rcode);
    } catch (err) {
      if (opts.signal.aborted) throw err;
      failed = true;
      last = err;
    }
  }
  throw failed ? last : new DnsError('no name server to ask', 'ENOSERVER');
}

/**
 * The servers a referral names: an answer without records of `qname` whose authority section holds
 * NS records of a zone between `zone` (exclusive) and `qname` (inclusive), that is a delegated
 * sub-zone; null when the answer is no referral (an answer, NXDOMAIN, no data).
 */
export function referralOf(reply: DnsReply, qname: string, zone: string): { cut: string; names: string[] } | null {
  if (reply.rcode !== 'NOERROR' || reply.answers.length) return null;
  const q = bare(qname);
  const z = bare(zone);
  const ns = reply.authorities.filter((a) => {
    if (a.type !== 'NS') return false;
    const owner = bare(a.name);
    return owner !== z && owner.endsWith(`.${z}`) && (q === owner || q.endsWith(`.${owner}`));
  });
  if (!ns.length) return null;
  const cut = bare(ns[0]!.name);
  return { cut, names: ns.filter((a) => bare(a.name) === cut).map((a) => bare(String((a as { data: string }).data))) };
}

/** A DS record's data as text: `keyTag algorithm digestType DIGEST`. */
export function dsText(a: packet.Answer): string {
  const d = (a as packet.DSAnswer).data;
  return `${d.keyTag} ${d.algorithm} ${d.digestType} ${Buffer.from(d.digest).toString('hex').toUpperCase()}`;
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

/**
 * The delegation of `zone` at its parent: the parent zone is the nearest enclosing name the
 * recursive resolvers give NS records for (the next label up, or further when that is no zone).
 * Throws a DnsError when no parent server answers (a look-up failure, not an empty delegation).
 */
export async function lookUpDelegation(
  zone: string,
  deps: ProbeDeps,
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<Delegation> {
  const child = bare(zone);
  const labels = child.split('.');
  let parent = '';
  let names: string[] = [];
  for (let i = 1; i <= labels.length; i++) {
    parent = labels.slice(i).join('.');
    names = await zoneNameservers(parent || '.', deps, opts);
    if (names.length) break;
  }
  if (!names.length) throw new DnsError(`no name servers found for the parent zones of ${child}`, 'ENOSERVER');
  const { reply, server } = await askNameservers(names, child, 'NS', deps, opts);
  // The referral's NS are in the authority section; a parent server that also serves the child
  // answers them in the answer section.
  const nameservers =
    reply.rcode === 'NXDOMAIN'
      ? []
      : sorted(
          [...reply.answers, ...reply.authorities]
            .filter((a) => a.type === 'NS' && bare(a.name) === child)
            .map((a) => bare(String((a as { data: string }).data))),
        );
  // DS is the parent's own data: the same server answers it authoritatively.
  const ds = await queryServer(server, child, 'DS', { ...opts, recurse: false });
  if (ds.rcode !== 'NOERROR' && ds.rcode !== 'NXDOMAIN')
    throw new DnsError(`${ds.rcode} from ${server} for ${child} DS`, ds.rcode);
  return {
    zone: child,
    parent: parent || '.',
    server,
    nameservers,
    ds: sorted(ds.answers.filter((a) => a.type === 'DS' && bare(a.name) === child).map(dsText)),
  };
}
