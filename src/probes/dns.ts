// DNS look-ups for every check dommon makes, always through the configured resolvers
// (DOMMON_DNS_SERVERS) or the system's. Node's resolver answers TXT/CAA/MX/NS/CNAME; DS and DNSKEY
// (which it cannot ask) go over UDP with dns-packet to the same servers.
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import { randomInt } from 'node:crypto';
import packet from 'dns-packet';

/** A failed look-up that is not "no such name / no such record" (timeout, SERVFAIL, refused). */
export class DnsError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = 'DnsError';
  }
}

export interface CaaRecord {
  critical: number;
  tag: string;
  value: string;
}

export interface DnsResolver {
  /** TXT strings (chunks joined); [] when the name or the record does not exist. */
  txt(name: string): Promise<string[]>;
  caa(name: string): Promise<CaaRecord[]>;
  mx(name: string): Promise<{ exchange: string; priority: number }[]>;
  ns(name: string): Promise<string[]>;
  cname(name: string): Promise<string[]>;
  /** DS (asked of the resolver, which fetches it from the parent zone) and DNSKEY record counts. */
  ds(name: string): Promise<{ keyTag: number; algorithm: number; digestType: number }[]>;
  dnskey(name: string): Promise<{ flags: number; algorithm: number }[]>;
  servers: string[];
  /** Cancels outstanding queries (shutdown). */
  cancel?(): void;
}

export interface ServerAddress {
  host: string;
  port: number;
}

/** `host`, `host:port`, `[v6]:port` or a bare IPv6 address. */
export function parseServer(s: string): ServerAddress {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (v6) return { host: v6[1]!, port: v6[2] ? Number(v6[2]) : 53 };
  if (net.isIPv6(s)) return { host: s, port: 53 };
  const i = s.lastIndexOf(':');
  if (i > 0) return { host: s.slice(0, i), port: Number(s.slice(i + 1)) };
  return { host: s, port: 53 };
}

const NO_DATA = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'NOTFOUND']);

export interface ResolverOptions {
  /** Per-attempt timeout (ms). */
  timeoutMs?: number;
  tries?: number;
}

/** servers: the configured `host[:port]` list; empty means the system resolvers. */
export function createDnsResolver(servers: readonly string[], opts: ResolverOptions = {}): DnsResolver {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const tries = opts.tries ?? 2;
  let ready: Promise<{ resolver: dns.promises.Resolver; addrs: ServerAddress[] }> | undefined;
  const pending = new Set<() => void>();
  let cancelled = false;

  // Host names in the list are resolved once (the Resolver only takes addresses).
  const setup = () =>
    (ready ??= (async () => {
      const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries });
      let addrs: ServerAddress[];
      if (servers.length) {
        addrs = await Promise.all(
          servers.map(async (s) => {
            const a = parseServer(s);
            if (!net.isIP(a.host)) a.host = (await dns.promises.lookup(a.host)).address;
            return a;
          }),
        );
        resolver.setServers(addrs.map((a) => (net.isIPv6(a.host) ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`)));
      } else {
        addrs = dns.getServers().map(parseServer);
      }
      return { resolver, addrs };
    })());

  async function call<T>(fn: (r: dns.promises.Resolver) => Promise<T>, empty: T): Promise<T> {
    const { resolver } = await setup();
    try {
      return await fn(resolver);
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'ESERVFAIL';
      if (NO_DATA.has(code)) return empty;
      throw new DnsError(`DNS ${code}`, code);
    }
  }

  async function raw(name: string, type: 'DS' | 'DNSKEY'): Promise<packet.Answer[]> {
    const { addrs } = await setup();
    let last: Error = new DnsError('no DNS server configured', 'ENOSERVER');
    for (let attempt = 0; attempt < tries; attempt++) {
      for (const a of addrs) {
        try {
          if (cancelled) throw new DnsError('DNS query cancelled', 'ECANCELLED');
          const res = await udpQuery(a, name, type, timeoutMs, pending);
          if (res.rcode === 'NXDOMAIN') return [];
          if (res.rcode && res.rcode !== 'NOERROR') throw new DnsError(`DNS ${res.rcode}`, res.rcode);
          return (res.answers ?? []).filter((x) => x.type === type);
        } catch (err) {
          last = err as Error;
        }
      }
    }
    throw last instanceof DnsError ? last : new DnsError(last.message, 'ETIMEOUT');
  }

  return {
    cancel() {
      cancelled = true;
      for (const c of [...pending]) c();
      void ready?.then(({ resolver }) => resolver.cancel()).catch(() => undefined);
    },
    get servers() {
      return [...servers];
    },
    txt: (name) => call((r) => r.resolveTxt(name).then((rs) => rs.map((chunks) => chunks.join(''))), [] as string[]),
    caa: (name) => call((r) => r.resolveCaa(name).then((rs) => rs.map(caaOf)), [] as CaaRecord[]),
    mx: (name) => call((r) => r.resolveMx(name), [] as { exchange: string; priority: number }[]),
    ns: (name) => call((r) => r.resolveNs(name), [] as string[]),
    cname: (name) => call((r) => r.resolveCname(name), [] as string[]),
    async ds(name) {
      return (await raw(name, 'DS')).map((a) => {
        const d = (a as packet.DSAnswer).data;
        return { keyTag: d.keyTag, algorithm: d.algorithm, digestType: d.digestType };
      });
    },
    async dnskey(name) {
      return (await raw(name, 'DNSKEY')).map((a) => {
        const d = (a as packet.DnskeyAnswer).data;
        return { flags: d.flags, algorithm: d.algorithm };
      });
    },
  };
}

function caaOf(rec: dns.CaaRecord): CaaRecord {
  const r = rec as unknown as Record<string, unknown> & { critical: number };
  const tag = (['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone'] as const).find((t) => r[t] !== undefined) ?? 'unknown';
  return { critical: r.critical, tag, value: String(r[tag] ?? '') };
}

/** One UDP query (RD set, EDNS0 with DO so validating resolvers return DNSSEC records). */
function udpQuery(server: ServerAddress, name: string, type: 'DS' | 'DNSKEY', timeoutMs: number, pending: Set<() => void>): Promise<packet.Packet & { rcode?: string }> {
  return new Promise((resolve, reject) => {
    const id = randomInt(0, 65536);
    const socket = dgram.createSocket(net.isIPv6(server.host) ? 'udp6' : 'udp4');
    let finished = false;
    const cancel = () => done(new DnsError('DNS query cancelled', 'ECANCELLED'));
    pending.add(cancel);
    const done = (err: Error | null, res?: packet.Packet) => {
      if (finished) return;
      finished = true;
      pending.delete(cancel);
      clearTimeout(timer);
      socket.close();
      if (err) reject(err);
      else resolve(res as packet.Packet & { rcode?: string });
    };
    const timer = setTimeout(() => done(new DnsError(`DNS timeout asking ${server.host}:${server.port}`, 'ETIMEOUT')), timeoutMs);
    socket.on('error', (err) => done(err));
    socket.on('message', (msg) => {
      try {
        const res = packet.decode(msg);
        if (res.id !== id) return;
        done(null, res);
      } catch (err) {
        done(err as Error);
      }
    });
    const query = packet.encode({
      type: 'query',
      id,
      flags: packet.RECURSION_DESIRED,
      questions: [{ type, name, class: 'IN' }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, extendedRcode: 0, ednsVersion: 0, flags: packet.DNSSEC_OK, flag_do: true, options: [] } as unknown as packet.Answer],
    });
    // A connected socket surfaces ICMP "port unreachable" as ECONNREFUSED instead of a timeout.
    socket.connect(server.port, server.host, () => socket.send(query));
  });
}
