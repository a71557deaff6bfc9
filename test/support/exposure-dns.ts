// A small authoritative-and-recursive-looking DNS server for exposure tests: UDP and TCP on the same
// loopback port, wildcard names, CNAME chasing (NXDOMAIN when the chain ends nowhere) and AXFR over
// TCP for the zones it is told to hand out (REFUSED otherwise). Records can be changed between scans.
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { tcpFrames } from '../../src/probes/dns.js';

export interface Rec {
  name: string;
  type: 'A' | 'AAAA' | 'CNAME' | 'NS' | 'TXT' | 'CAA' | 'MX' | 'SOA';
  data: unknown;
}

export interface ExposureDnsServer {
  address: string;
  port: number;
  /** `address:port`, for DOMMON_DNS_SERVERS. */
  server: string;
  records: Rec[];
  /** Zones this server answers AXFR for. */
  axfr: Set<string>;
  /** AXFR requests seen (zone names). */
  axfrRequests: string[];
  queries: number;
  /** While true, every query is answered SERVFAIL (a broken resolver). */
  servfail: boolean;
  close(): Promise<void>;
}

const NOERROR = 0;
const SERVFAIL = 2;
const NXDOMAIN = 3;
const REFUSED = 5;

const lc = (s: string) => s.toLowerCase().replace(/\.$/, '');

function lookup(
  records: Rec[],
  qname: string,
  qtype: string,
  depth = 0,
): { answers: dnsPacket.Answer[]; rcode: number } {
  const name = lc(qname);
  let own = records.filter((r) => lc(r.name) === name);
  if (!own.length) {
    // Closest wildcard: *.parent for each parent of the name.
    const labels = name.split('.');
    for (let i = 1; i < labels.length && !own.length; i++) {
      const wild = `*.${labels.slice(i).join('.')}`;
      own = records.filter((r) => lc(r.name) === wild);
    }
  }
  if (!own.length) return { answers: [], rcode: NXDOMAIN };
  const answer = (r: Rec) => ({ name, type: r.type, ttl: 60, data: r.data }) as dnsPacket.Answer;
  const direct = own.filter((r) => r.type === qtype);
  if (direct.length) return { answers: direct.map(answer), rcode: NOERROR };
  const cname = own.find((r) => r.type === 'CNAME');
  if (cname && qtype !== 'CNAME' && depth < 8) {
    const rest = lookup(records, String(cname.data), qtype, depth + 1);
    return { answers: [answer(cname), ...rest.answers], rcode: rest.rcode };
  }
  return { answers: [], rcode: NOERROR };
}

function respond(s: ExposureDnsServer, query: dnsPacket.DecodedPacket): dnsPacket.Packet[] {
  s.queries++;
  const q = query.questions?.[0];
  const base = { type: 'response' as const, id: query.id, questions: query.questions };
  if (!q) return [{ ...base, flags: dnsPacket.RECURSION_AVAILABLE | REFUSED }];
  if (s.servfail) return [{ ...base, flags: dnsPacket.RECURSION_AVAILABLE | SERVFAIL }];
  if (q.type === 'AXFR') {
    const zone = lc(q.name);
    s.axfrRequests.push(zone);
    if (!s.axfr.has(zone)) return [{ ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER | REFUSED }];
    const inZone = s.records.filter((r) => lc(r.name) === zone || lc(r.name).endsWith(`.${zone}`));
    const soa = inZone.find((r) => r.type === 'SOA' && lc(r.name) === zone);
    if (!soa) return [{ ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER | REFUSED }];
    const rr = (r: Rec) => ({ name: lc(r.name), type: r.type, ttl: 60, data: r.data }) as dnsPacket.Answer;
    return [
      {
        ...base,
        flags: dnsPacket.AUTHORITATIVE_ANSWER,
        answers: [rr(soa), ...inZone.filter((r) => r !== soa).map(rr), rr(soa)],
      },
    ];
  }
  const { answers, rcode } = lookup(s.records, q.name, q.type);
  return [
    {
      ...base,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode,
      answers,
    },
  ];
}

export async function startExposureDns(
  records: Rec[],
  opts: { axfr?: string[]; address?: string } = {},
): Promise<ExposureDnsServer> {
  const address = opts.address ?? '127.0.0.1';
  for (let attempt = 0; ; attempt++) {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(0, address, resolve));
    const port = udp.address().port;
    const tcp = net.createServer();
    const bound = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, address, () => resolve(true));
    });
    if (!bound) {
      udp.close();
      if (attempt > 10) throw new Error('no port free for UDP and TCP');
      continue;
    }
    const sockets = new Set<net.Socket>();
    const s: ExposureDnsServer = {
      address,
      port,
      server: `${address}:${port}`,
      records,
      axfr: new Set(opts.axfr ?? []),
      axfrRequests: [],
      queries: 0,
      servfail: false,
      async close() {
        sockets.forEach((x) => x.destroy());
        await Promise.all([
          new Promise<void>((r) => udp.close(() => r())),
          new Promise<void>((r) => tcp.close(() => r())),
        ]);
      },
    };
    udp.on('message', (msg, rinfo) => {
      let query: dnsPacket.DecodedPacket;
      try {
        query = dnsPacket.decode(msg);
      } catch {
        return;
      }
      for (const p of respond(s, query)) udp.send(dnsPacket.encode(p), rinfo.port, rinfo.address);
    });
    tcp.on('connection', (sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      sock.on('error', () => undefined);
      const frames = tcpFrames();
      sock.on('data', (chunk: Buffer) => {
        for (const msg of frames(chunk)) {
          let query: dnsPacket.DecodedPacket;
          try {
            query = dnsPacket.streamDecode(msg) as dnsPacket.DecodedPacket;
          } catch {
            sock.destroy();
            return;
          }
          for (const p of respond(s, query)) sock.write(dnsPacket.streamEncode(p));
        }
      });
    });
    return s;
  }
}
