// A real UDP DNS server on 127.0.0.1 (dns-packet) answering from a zone object the test can change.
// Names absent from the zone answer NXDOMAIN; a present name without the asked type answers NOERROR/no data.
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import packet from 'dns-packet';

export interface ZoneEntry {
  /** A record of several strings: an array (raw bytes: Buffers; no string at all: []). */
  TXT?: (string | (string | Buffer)[])[];
  CAA?: { flags?: number; tag: 'issue' | 'issuewild' | 'iodef'; value: string }[];
  MX?: { preference: number; exchange: string }[];
  NS?: string[];
  CNAME?: string;
  A?: string[];
  AAAA?: string[];
  DS?: { keyTag: number; algorithm: number; digestType: number; digest: string }[];
  DNSKEY?: { flags: number; algorithm: number; key: string }[];
}

export type Zone = Record<string, ZoneEntry>;

interface DnsServer {
  /** `127.0.0.1:PORT`, ready for DOMMON_DNS_SERVERS. */
  address: string;
  port: number;
  zone: Zone;
  queries: { name: string; type: string }[];
  /** Names that answer SERVFAIL. */
  failing: Set<string>;
  /** Names that answer REFUSED. */
  refusing: Set<string>;
  /** Names whose queries get no answer at all (a timeout). */
  silent: Set<string>;
  /** Names whose queries for a type they have no record of get no answer (a timeout), as the RFC 7208 suite's TIMEOUT. */
  silentWhenEmpty: Set<string>;
  /** Every answer waits this long (ms): a slow resolver. */
  delayMs: number;
  close(): Promise<void>;
}

function answersFor(name: string, type: string, e: ZoneEntry): packet.Answer[] {
  const base = { name, ttl: 60, class: 'IN' as const };
  switch (type) {
    case 'TXT':
      return (e.TXT ?? []).map((t) => ({ ...base, type: 'TXT', data: Array.isArray(t) ? t : [t] }) as packet.Answer);
    case 'CAA':
      return (e.CAA ?? []).map(
        (c) => ({ ...base, type: 'CAA', data: { flags: c.flags ?? 0, tag: c.tag, value: c.value } }) as packet.Answer,
      );
    case 'MX':
      return (e.MX ?? []).map((m) => ({ ...base, type: 'MX', data: m }) as packet.Answer);
    case 'NS':
      return (e.NS ?? []).map((n) => ({ ...base, type: 'NS', data: n }) as packet.Answer);
    case 'A':
      return (e.A ?? []).map((a) => ({ ...base, type: 'A', data: a }) as packet.Answer);
    case 'AAAA':
      return (e.AAAA ?? []).map((a) => ({ ...base, type: 'AAAA', data: a }) as packet.Answer);
    case 'DS':
      return (e.DS ?? []).map(
        (d) => ({ ...base, type: 'DS', data: { ...d, digest: Buffer.from(d.digest, 'hex') } }) as packet.Answer,
      );
    case 'DNSKEY':
      return (e.DNSKEY ?? []).map(
        (k) => ({ ...base, type: 'DNSKEY', data: { ...k, key: Buffer.from(k.key, 'base64') } }) as packet.Answer,
      );
    default:
      return [];
  }
}

/** A UDP port on 127.0.0.1 where nothing listens (bound, then closed): a resolver there is refused at once. */
export async function closedUdpPort(): Promise<number> {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  const port = (sock.address() as AddressInfo).port;
  await new Promise<void>((r) => sock.close(() => r()));
  return port;
}

export async function startDnsServer(zone: Zone = {}): Promise<DnsServer> {
  const socket = dgram.createSocket('udp4');
  const queries: { name: string; type: string }[] = [];
  const failing = new Set<string>();
  const server: DnsServer = {
    address: '',
    port: 0,
    zone,
    queries,
    failing,
    refusing: new Set(),
    silent: new Set(),
    silentWhenEmpty: new Set(),
    delayMs: 0,
    close: async () => undefined,
  };

  socket.on('message', (msg, rinfo) => {
    let q: packet.Packet;
    try {
      q = packet.decode(msg);
    } catch {
      return;
    }
    const question = q.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase().replace(/\.$/, '');
    queries.push({ name, type: question.type });
    const reply = (rcode: number, answers: packet.Answer[]) => {
      const buf = packet.encode({
        type: 'response',
        id: q.id,
        flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | rcode,
        questions: q.questions,
        answers,
      });
      const send = () => socket.send(buf, rinfo.port, rinfo.address, () => undefined);
      if (server.delayMs > 0) setTimeout(send, server.delayMs).unref();
      else send();
    };
    // A rule for a name covers its subdomains too (_dmarc.x, sel._domainkey.x).
    const covered = (set: Set<string>) => [...set].some((n) => name === n || name.endsWith(`.${n}`));
    if (covered(server.silent)) return;
    if (covered(failing)) return reply(2, []); // SERVFAIL
    if (covered(server.refusing)) return reply(5, []); // REFUSED
    const entry = server.zone[name];
    if (!entry) return reply(3, []); // NXDOMAIN
    if (entry.CNAME && question.type !== 'CNAME') {
      const target = entry.CNAME.toLowerCase();
      const cname = { name, type: 'CNAME', ttl: 60, class: 'IN', data: target } as packet.Answer;
      const t = server.zone[target];
      return reply(0, [cname, ...(t ? answersFor(target, question.type, t) : [])]);
    }
    if (question.type === 'CNAME') {
      return reply(
        0,
        entry.CNAME ? [{ name, type: 'CNAME', ttl: 60, class: 'IN', data: entry.CNAME } as packet.Answer] : [],
      );
    }
    const answers = answersFor(name, question.type, entry);
    if (!answers.length && server.silentWhenEmpty.has(name)) return;
    reply(0, answers);
  });

  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = (socket.address() as AddressInfo).port;
  server.port = port;
  server.address = `127.0.0.1:${port}`;
  server.close = () => new Promise<void>((resolve) => socket.close(() => resolve()));
  return server;
}
