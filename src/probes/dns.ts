// DNS look-ups for every check dommon makes, always through the configured resolvers
// (DOMMON_DNS_SERVERS) or the system's. Node's resolver answers A/AAAA/TXT/CAA/MX/NS/CNAME; DS and
// DNSKEY (which it cannot ask) go over UDP with dns-packet to the same servers, and a zone transfer
// (AXFR, for the exposure scanner) over TCP to the nameserver asked.
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import { randomInt } from 'node:crypto';
import type packet from 'dns-packet';

type Codec = typeof packet;
let codec: Promise<Codec> | undefined;

/**
 * The DNS wire codec (dns-packet), loaded by the first query that needs it (DNSSEC records, a name
 * server's own answer, a zone transfer): the look-ups most commands make (or none) go through the
 * system's resolver library and do not load it.
 */
function wire(): Promise<Codec> {
  return (codec ??= import('dns-packet').then((m) => m.default));
}

/** A failed look-up that is not "no such name / no such record" (timeout, SERVFAIL, refused). */
export class DnsError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'DnsError';
  }
}

export interface CaaRecord {
  critical: number;
  tag: string;
  value: string;
}

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** One answer with "no such name" (NXDOMAIN), "no such record" (NODATA) and failures told apart. */
export type Lookup<T> =
  { status: 'ok'; records: T[] } | { status: 'nxdomain' } | { status: 'nodata' } | { status: 'error'; error: string };

/** The resolver's questions answered as Lookup (the exposure scanner needs NXDOMAIN apart from NODATA). */
export interface DnsLookups {
  a(name: string): Promise<Lookup<string>>;
  aaaa(name: string): Promise<Lookup<string>>;
  cname(name: string): Promise<Lookup<string>>;
  ns(name: string): Promise<Lookup<string>>;
  /** Each TXT record's strings joined. */
  txt(name: string): Promise<Lookup<string>>;
  caa(name: string): Promise<Lookup<CaaRecord>>;
  mx(name: string): Promise<Lookup<MxRecord>>;
}

export interface ZoneRecord {
  name: string;
  type: string;
  data: string;
}

export type AxfrResult = { ok: true; records: ZoneRecord[] } | { ok: false; error: string };

export interface DnsResolver {
  /** TXT strings (chunks joined); [] when the name or the record does not exist. */
  txt(name: string): Promise<string[]>;
  caa(name: string): Promise<CaaRecord[]>;
  mx(name: string): Promise<MxRecord[]>;
  ns(name: string): Promise<string[]>;
  cname(name: string): Promise<string[]>;
  /** DS (asked of the resolver, which fetches it from the parent zone) and DNSKEY record counts. */
  ds(name: string): Promise<{ keyTag: number; algorithm: number; digestType: number }[]>;
  dnskey(name: string): Promise<{ flags: number; algorithm: number }[]>;
  /** The same questions (and A/AAAA) with NXDOMAIN, NODATA and failures told apart. */
  lookup: DnsLookups;
  /** Asks `address:port` (TCP) for a full zone transfer of `zone`; never throws. */
  axfr(address: string, port: number, zone: string, timeoutMs: number): Promise<AxfrResult>;
  servers: string[];
  /** Cancels outstanding queries (shutdown). */
  cancel?(): void;
}

interface ServerAddress {
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

const NO_NAME = new Set(['ENOTFOUND', 'NXDOMAIN', 'NOTFOUND']);

/** Node's resolver outcome as a Lookup: ENOTFOUND is NXDOMAIN, ENODATA (or an empty answer) NODATA. */
async function outcome<T>(p: Promise<T[]>): Promise<Lookup<T>> {
  try {
    const records = await p;
    return records.length ? { status: 'ok', records } : { status: 'nodata' };
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'ESERVFAIL';
    if (NO_NAME.has(code)) return { status: 'nxdomain' };
    if (code === 'ENODATA') return { status: 'nodata' };
    return { status: 'error', error: code };
  }
}

/** The records of a Lookup; [] when the name or the record does not exist, DnsError on a failure. */
function recordsOf<T>(l: Lookup<T>): T[] {
  if (l.status === 'error') throw new DnsError(`DNS ${l.error}`, l.error);
  return l.status === 'ok' ? l.records : [];
}

interface ResolverOptions {
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

  // After cancel() nothing new goes out: a caller still looping over names gets ECANCELLED at once.
  const ask = <T>(fn: (r: dns.promises.Resolver) => Promise<T[]>): Promise<Lookup<T>> =>
    outcome(
      cancelled
        ? Promise.reject(new DnsError('DNS query cancelled', 'ECANCELLED'))
        : setup().then(({ resolver }) => fn(resolver)),
    );
  const lookup: DnsLookups = {
    a: (name) => ask((r) => r.resolve4(name)),
    aaaa: (name) => ask((r) => r.resolve6(name)),
    cname: (name) => ask((r) => r.resolveCname(name)),
    ns: (name) => ask((r) => r.resolveNs(name)),
    txt: async (name) => {
      const r = await ask((r) => r.resolveTxt(name).then((rs) => rs.map((chunks) => chunks.join(''))));
      if (r.status !== 'error' || r.error !== 'EBADRESP') return r;
      // c-ares refuses a whole answer that holds a TXT record without strings (an empty TXT, which
      // RFC 7208 3.3 says SPF must survive): ask again over UDP and read each record, "" for that one.
      try {
        const txts = (await raw(name, 'TXT')).map((a) => ((a as packet.TxtAnswer).data as Buffer[]).join(''));
        return txts.length ? { status: 'ok', records: txts } : { status: 'nodata' };
      } catch (err) {
        return { status: 'error', error: (err as { code?: string }).code ?? 'EBADRESP' };
      }
    },
    caa: (name) => ask((r) => r.resolveCaa(name).then((rs) => rs.map(caaOf))),
    mx: (name) => ask((r) => r.resolveMx(name)),
  };

  async function raw(name: string, type: 'DS' | 'DNSKEY' | 'TXT'): Promise<packet.Answer[]> {
    const [{ addrs }, packet] = await Promise.all([setup(), wire()]);
    // Errors are made when a query fails: an Error's stack costs more than the answered query's parsing.
    let last: Error | undefined;
    for (let attempt = 0; attempt < tries; attempt++) {
      for (const a of addrs) {
        try {
          if (cancelled) throw new DnsError('DNS query cancelled', 'ECANCELLED');
          const res = await udpQuery(packet, a, name, type, timeoutMs, pending);
          if (res.rcode === 'NXDOMAIN') return [];
          if (res.rcode && res.rcode !== 'NOERROR') throw new DnsError(`DNS ${res.rcode}`, res.rcode);
          return (res.answers ?? []).filter((x) => x.type === type);
        } catch (err) {
          last = err as Error;
        }
      }
    }
    if (!last) throw new DnsError('no DNS server configured', 'ENOSERVER');
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
    lookup,
    axfr,
    txt: async (name) => recordsOf(await lookup.txt(name)),
    caa: async (name) => recordsOf(await lookup.caa(name)),
    mx: async (name) => recordsOf(await lookup.mx(name)),
    ns: async (name) => recordsOf(await lookup.ns(name)),
    cname: async (name) => recordsOf(await lookup.cname(name)),
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
  const tag =
    (['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone'] as const).find((t) => r[t] !== undefined) ??
    'unknown';
  return { critical: r.critical, tag, value: String(r[tag] ?? '') };
}

/** One UDP query (RD set unless `recurse` is false, EDNS0 with DO so validating resolvers return DNSSEC records). */
function udpQuery(
  packet: Codec,
  server: ServerAddress,
  name: string,
  type: packet.RecordType,
  timeoutMs: number,
  pending: Set<() => void>,
  recurse = true,
): Promise<packet.Packet & { rcode?: string }> {
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
    const timer = setTimeout(
      () => done(new DnsError(`DNS timeout asking ${server.host}:${server.port}`, 'ETIMEOUT')),
      timeoutMs,
    );
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
      flags: recurse ? packet.RECURSION_DESIRED : 0,
      questions: [{ type, name, class: 'IN' }],
      additionals: [
        {
          type: 'OPT',
          name: '.',
          udpPayloadSize: 4096,
          extendedRcode: 0,
          ednsVersion: 0,
          flags: packet.DNSSEC_OK,
          flag_do: true,
          options: [],
        } as unknown as packet.Answer,
      ],
    });
    // A connected socket surfaces ICMP "port unreachable" as ECONNREFUSED instead of a timeout.
    socket.connect(server.port, server.host, () => socket.send(query));
  });
}

/** One server's answer to one question: its response code, answer and authority sections. */
export interface DnsReply {
  rcode: string;
  answers: packet.Answer[];
  authorities: packet.Answer[];
}

/**
 * Asks one server (`host`, `host:port`, `[v6]:port`; an address, not a name) one question over UDP,
 * and again over TCP when the answer comes truncated (TC); `recurse: false` asks an authoritative
 * server for its own data (a parent zone's delegation). Rejects with a DnsError (ETIMEOUT,
 * ECANCELLED) or a socket error (ECONNREFUSED from a server without TCP).
 */
export async function queryServer(
  server: string,
  name: string,
  type: packet.RecordType,
  opts: { timeoutMs: number; recurse?: boolean; signal?: AbortSignal },
): Promise<DnsReply> {
  const packet = await wire();
  const pending = new Set<() => void>();
  const onAbort = () => {
    for (const c of [...pending]) c();
  };
  if (opts.signal?.aborted) throw new DnsError('DNS query cancelled', 'ECANCELLED');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const to = parseServer(server);
  const recurse = opts.recurse ?? true;
  const started = performance.now();
  return udpQuery(packet, to, name, type, opts.timeoutMs, pending, recurse)
    .then((res) => {
      // A truncated answer (TC) is asked again over TCP, as RFC 7766 asks of every client; the time
      // left of the query's own bound applies.
      if (!((res.flags ?? 0) & packet.TRUNCATED_RESPONSE)) return replyOf(res);
      const left = Math.max(1, opts.timeoutMs - (performance.now() - started));
      return tcpQuery(packet, to, name, type, left, pending, recurse).then(replyOf);
    })
    .finally(() => opts.signal?.removeEventListener('abort', onAbort));
}

function replyOf(res: packet.Packet & { rcode?: string }): DnsReply {
  return { rcode: res.rcode ?? 'NOERROR', answers: res.answers ?? [], authorities: res.authorities ?? [] };
}

/** One query over TCP (a 2-byte length before each message), the same question as udpQuery's. */
function tcpQuery(
  packet: Codec,
  server: ServerAddress,
  name: string,
  type: packet.RecordType,
  timeoutMs: number,
  pending: Set<() => void>,
  recurse: boolean,
): Promise<packet.Packet & { rcode?: string }> {
  return new Promise((resolve, reject) => {
    const id = randomInt(0, 65536);
    const socket = net.connect({ host: server.host, port: server.port });
    const frames = tcpFrames();
    let finished = false;
    const cancel = () => done(new DnsError('DNS query cancelled', 'ECANCELLED'));
    pending.add(cancel);
    const done = (err: Error | null, res?: packet.Packet) => {
      if (finished) return;
      finished = true;
      pending.delete(cancel);
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(res as packet.Packet & { rcode?: string });
    };
    const timer = setTimeout(
      () => done(new DnsError(`DNS timeout asking ${server.host}:${server.port} over TCP`, 'ETIMEOUT')),
      timeoutMs,
    );
    socket.on('error', (err) => done(err));
    socket.on('close', () =>
      done(new DnsError(`${server.host}:${server.port} closed the TCP connection`, 'ECONNRESET')),
    );
    socket.on('data', (chunk: Buffer) => {
      for (const msg of frames(chunk)) {
        try {
          const res = packet.streamDecode(msg) as packet.Packet;
          if (res.id === id) return done(null, res);
        } catch (err) {
          return done(err as Error);
        }
      }
    });
    socket.on('connect', () =>
      socket.write(
        packet.streamEncode({
          type: 'query',
          id,
          flags: recurse ? packet.RECURSION_DESIRED : 0,
          questions: [{ type, name, class: 'IN' }],
        }),
      ),
    );
  });
}

function rdata(a: packet.Answer): string {
  const d = (a as { data?: unknown }).data;
  if (typeof d === 'string') return d;
  if (Buffer.isBuffer(d)) return d.toString();
  if (Array.isArray(d)) return d.map((x) => (Buffer.isBuffer(x) ? x.toString() : String(x))).join('');
  return JSON.stringify(d);
}

/** Splits a DNS-over-TCP byte stream (2-byte length prefixes) into whole messages, prefix included. */
export function tcpFrames(): (chunk: Buffer) => Buffer[] {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    const out: Buffer[] = [];
    while (buf.length >= 2 && buf.length >= buf.readUInt16BE(0) + 2) {
      const end = buf.readUInt16BE(0) + 2;
      out.push(buf.subarray(0, end));
      buf = buf.subarray(end);
    }
    return out;
  };
}

/** One AXFR over TCP: length-prefixed messages until the closing SOA, a refusal, an error or the timeout. */
export async function axfr(address: string, port: number, zone: string, timeoutMs: number): Promise<AxfrResult> {
  const packet = await wire();
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port });
    const records: ZoneRecord[] = [];
    const frames = tcpFrames();
    let soaSeen = 0;
    let done = false;
    const finish = (r: AxfrResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(
      () => finish(records.length ? { ok: true, records } : { ok: false, error: 'timeout' }),
      timeoutMs,
    );
    socket.on('connect', () => {
      socket.write(
        packet.streamEncode({
          type: 'query',
          id: randomInt(0, 65536),
          flags: 0,
          questions: [{ type: 'AXFR', name: zone }],
        }),
      );
    });
    socket.on('data', (chunk: Buffer) => {
      for (const msg of frames(chunk)) {
        let res: packet.DecodedPacket;
        try {
          res = packet.streamDecode(msg) as packet.DecodedPacket;
        } catch {
          return finish({ ok: false, error: 'malformed answer' });
        }
        const rcode = (res as { rcode?: string }).rcode ?? 'NOERROR';
        if (rcode !== 'NOERROR') return finish({ ok: false, error: rcode });
        for (const a of res.answers ?? []) {
          records.push({ name: a.name, type: a.type, data: rdata(a) });
          if (a.type === 'SOA') soaSeen++;
        }
        if (soaSeen >= 2 || (res.answers ?? []).length === 0) {
          return finish(soaSeen >= 1 ? { ok: true, records } : { ok: false, error: 'empty answer' });
        }
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, error: err.code ?? err.message }));
    socket.on('close', () => finish(soaSeen >= 1 ? { ok: true, records } : { ok: false, error: 'connection closed' }));
  });
}
