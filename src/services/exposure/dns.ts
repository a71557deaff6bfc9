// The DNS the exposure scanner needs, behind a small interface: look-ups through the configured
// resolvers (DOMMON_DNS_SERVERS) that tell NXDOMAIN from "no such record", and AXFR over TCP.
import { promises as dnsPromises } from 'node:dns';
import net from 'node:net';
import dnsPacket from 'dns-packet';

export type Lookup<T> =
  | { status: 'ok'; records: T[] }
  | { status: 'nxdomain' }
  | { status: 'nodata' }
  | { status: 'error'; error: string };

export interface ZoneRecord {
  name: string;
  type: string;
  data: string;
}

export type AxfrResult = { ok: true; records: ZoneRecord[] } | { ok: false; error: string };

export interface ExposureDns {
  a(name: string): Promise<Lookup<string>>;
  aaaa(name: string): Promise<Lookup<string>>;
  cname(name: string): Promise<Lookup<string>>;
  ns(name: string): Promise<Lookup<string>>;
  /** Each TXT record's strings joined. */
  txt(name: string): Promise<Lookup<string>>;
  /** CAA records as `tag value`. */
  caa(name: string): Promise<Lookup<string>>;
  mx(name: string): Promise<Lookup<string>>;
  /** Asks `address:port` (TCP) for a full zone transfer of `zone`. */
  axfr(address: string, port: number, zone: string, timeoutMs: number): Promise<AxfrResult>;
}

export interface ExposureDnsOptions {
  /** `host` or `host:port` resolvers; empty = the system's. */
  servers: readonly string[];
  timeoutMs?: number;
  tries?: number;
}

function outcome<T>(p: Promise<T[]>): Promise<Lookup<T>> {
  return p.then(
    (records) => (records.length ? { status: 'ok' as const, records } : { status: 'nodata' as const }),
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOTFOUND') return { status: 'nxdomain' as const };
      if (err.code === 'ENODATA') return { status: 'nodata' as const };
      return { status: 'error' as const, error: err.code ?? err.message };
    },
  );
}

function rdata(a: dnsPacket.Answer): string {
  const d = (a as { data?: unknown }).data;
  if (typeof d === 'string') return d;
  if (Buffer.isBuffer(d)) return d.toString();
  if (Array.isArray(d)) return d.map((x) => (Buffer.isBuffer(x) ? x.toString() : String(x))).join('');
  return JSON.stringify(d);
}

/** One AXFR over TCP: length-prefixed messages until the closing SOA, a refusal, an error or the timeout. */
export function axfr(address: string, port: number, zone: string, timeoutMs: number): Promise<AxfrResult> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port });
    const records: ZoneRecord[] = [];
    let buf = Buffer.alloc(0);
    let soaSeen = 0;
    let done = false;
    const finish = (r: AxfrResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish(records.length ? { ok: true, records } : { ok: false, error: 'timeout' }), timeoutMs);
    socket.on('connect', () => {
      socket.write(dnsPacket.streamEncode({ type: 'query', id: Math.floor(Math.random() * 65535), flags: 0, questions: [{ type: 'AXFR', name: zone }] }));
    });
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2) {
        const len = buf.readUInt16BE(0);
        if (buf.length < len + 2) break;
        const msg = buf.subarray(0, len + 2);
        buf = buf.subarray(len + 2);
        let packet: dnsPacket.DecodedPacket;
        try {
          packet = dnsPacket.streamDecode(msg) as dnsPacket.DecodedPacket;
        } catch {
          return finish({ ok: false, error: 'malformed answer' });
        }
        const rcode = (packet as { rcode?: string }).rcode ?? 'NOERROR';
        if (rcode !== 'NOERROR') return finish({ ok: false, error: rcode });
        for (const a of packet.answers ?? []) {
          records.push({ name: a.name, type: a.type, data: rdata(a) });
          if (a.type === 'SOA') soaSeen++;
        }
        if (soaSeen >= 2 || (packet.answers ?? []).length === 0) {
          return finish(soaSeen >= 1 ? { ok: true, records } : { ok: false, error: 'empty answer' });
        }
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, error: err.code ?? err.message }));
    socket.on('close', () => finish(soaSeen >= 1 ? { ok: true, records } : { ok: false, error: 'connection closed' }));
  });
}

export function createExposureDns(opts: ExposureDnsOptions): ExposureDns {
  const r = new dnsPromises.Resolver({ timeout: opts.timeoutMs ?? 2000, tries: opts.tries ?? 2 });
  if (opts.servers.length) r.setServers([...opts.servers]);
  return {
    a: (n) => outcome(r.resolve4(n)),
    aaaa: (n) => outcome(r.resolve6(n)),
    cname: (n) => outcome(r.resolveCname(n)),
    ns: (n) => outcome(r.resolveNs(n)),
    txt: (n) => outcome(r.resolveTxt(n).then((rows) => rows.map((parts) => parts.join('')))),
    caa: (n) =>
      outcome(
        r.resolveCaa(n).then((rows) =>
          rows.map((c) => {
            const tag = Object.keys(c).find((k) => k !== 'critical') ?? 'issue';
            return `${tag} ${String((c as unknown as Record<string, unknown>)[tag])}`;
          }),
        ),
      ),
    mx: (n) => outcome(r.resolveMx(n).then((rows) => rows.map((m) => m.exchange))),
    axfr,
  };
}
