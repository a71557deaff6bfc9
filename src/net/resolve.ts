// Name resolution for every probe: DOMMON_DNS_SERVERS (host or host:port) when set, else the system
// resolver. Answers from configured servers are cached for their TTL, as a visitor's resolver would.
import dns from 'node:dns';
import net from 'node:net';
import { deniedMessage, type OutboundPolicy } from '../domain/outbound.js';

export interface Address {
  address: string;
  family: 4 | 6;
}

export interface Resolver {
  /**
   * One address for `host` (IPv4 first); an IP literal is answered as is. Rejects with a dns error
   * code, or with ERR_OUTBOUND_DENIED when the policy denies any address the name resolved to.
   */
  resolve(host: string): Promise<Address>;
  /** TXT strings at `name` (joined chunks), for workers that need them. */
  txt(name: string): Promise<string[]>;
}

interface ResolverOptions {
  timeoutMs?: number;
  tries?: number;
  now?: () => number;
  /** Upper bound on how long an answer is reused (seconds). */
  maxTtl?: number;
  /** DOMMON_OUTBOUND_DENY / ALLOW: checked on every address of the answer; the caller connects to the one returned. */
  policy?: OutboundPolicy;
}

/** A look-up whose answer the outbound policy refuses (the connection is never attempted). */
class OutboundDenied extends Error {
  readonly code = 'ERR_OUTBOUND_DENIED';
  constructor(
    readonly address: string,
    rule: string,
  ) {
    super(deniedMessage(address, rule));
  }
}

function dnsError(code: string, host: string): NodeJS.ErrnoException {
  const e = new Error(`${code} ${host}`) as NodeJS.ErrnoException & { hostname: string };
  e.code = code;
  e.syscall = 'queryA';
  e.hostname = host;
  return e;
}

/** "1.2.3.4", "1.2.3.4:5353", "[::1]:53", "::1" -> the form Resolver#setServers takes; names are looked up once. */
async function serverAddress(s: string): Promise<string> {
  if (net.isIP(s)) return s;
  const bracket = /^\[(.+)\](?::(\d+))?$/.exec(s);
  if (bracket) return bracket[2] ? `[${bracket[1]}]:${bracket[2]}` : bracket[1]!;
  const m = /^(.+?):(\d+)$/.exec(s);
  const host = m ? m[1]! : s;
  const port = m ? m[2] : undefined;
  const ip = net.isIP(host) ? host : (await dns.promises.lookup(host)).address;
  if (!port) return ip;
  return net.isIPv6(ip) ? `[${ip}]:${port}` : `${ip}:${port}`;
}

export function createResolver(servers: readonly string[], opts: ResolverOptions = {}): Resolver {
  const now = opts.now ?? Date.now;
  const maxTtl = opts.maxTtl ?? 300;
  const cache = new Map<string, { addrs: Address[]; until: number }>();
  // The policy's verdict on an answer (its address list), kept as long as the answer is.
  const verdicts = new WeakMap<Address[], { address: string; rule: string } | null>();
  let ready: Promise<dns.promises.Resolver> | undefined;
  const custom = () =>
    (ready ??= Promise.all(servers.map(serverAddress)).then((list) => {
      const r = new dns.promises.Resolver({ timeout: opts.timeoutMs ?? 2000, tries: opts.tries ?? 2 });
      r.setServers(list);
      return r;
    }));

  // Look-ups in flight by name: endpoints sharing a host name and due together ask once.
  const pending = new Map<string, Promise<Address[]>>();

  function viaServers(host: string): Promise<Address[]> {
    const hit = cache.get(host);
    if (hit && hit.until > now()) return Promise.resolve(hit.addrs);
    let p = pending.get(host);
    if (!p) {
      p = query(host).finally(() => pending.delete(host));
      pending.set(host, p);
    }
    return p;
  }

  async function query(host: string): Promise<Address[]> {
    const r = await custom();
    let addrs: Address[] | undefined;
    let ttl = 0;
    for (const family of [4, 6] as const) {
      try {
        const list = family === 4 ? await r.resolve4(host, { ttl: true }) : await r.resolve6(host, { ttl: true });
        if (list.length) {
          addrs = list.map((x) => ({ address: x.address, family }));
          ttl = Math.min(...list.map((x) => x.ttl));
          break;
        }
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // No A record: try AAAA; anything else (NXDOMAIN, timeout, refused) is the answer.
        if (code !== 'ENODATA' || family === 6) throw dnsError(code ?? 'ENOTFOUND', host);
      }
    }
    if (!addrs) throw dnsError('ENODATA', host);
    if (ttl > 0) {
      if (cache.size > 50_000) cache.clear();
      cache.set(host, { addrs, until: now() + Math.min(ttl, maxTtl) * 1000 });
    }
    return addrs;
  }

  async function all(h: string): Promise<Address[]> {
    const fam = net.isIP(h);
    if (fam) return [{ address: h, family: fam as 4 | 6 }];
    if (servers.length) return viaServers(h);
    return (await dns.promises.lookup(h, { all: true })).map((r) => ({
      address: r.address,
      family: r.family as 4 | 6,
    }));
  }

  return {
    async resolve(host: string): Promise<Address> {
      const addrs = await all(host.charCodeAt(0) === 91 ? host.replace(/^\[|\]$/g, '') : host);
      // One denied address refuses the name: a record set mixing a public address with the metadata
      // service must not reach it on the next look-up's order. A cached answer is judged once.
      if (opts.policy) {
        let verdict = verdicts.get(addrs);
        if (verdict === undefined) {
          verdict = null;
          for (const a of addrs) {
            const rule = opts.policy.denied(a.address);
            if (rule) {
              verdict = { address: a.address, rule };
              break;
            }
          }
          verdicts.set(addrs, verdict);
        }
        if (verdict) throw new OutboundDenied(verdict.address, verdict.rule);
      }
      return addrs[0]!;
    },
    async txt(name: string): Promise<string[]> {
      const list = servers.length ? await (await custom()).resolveTxt(name) : await dns.promises.resolveTxt(name);
      return list.map((chunks) => chunks.join(''));
    },
  };
}
