// A UDP DNS responder on 127.0.0.1: answers every query from a table of TXT/A records (NXDOMAIN otherwise).
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';

interface UdpDns {
  port: number;
  /** "127.0.0.1:PORT", as DOMMON_DNS_SERVERS takes it. */
  address: string;
  queries: { name: string; type: string }[];
  close(): Promise<void>;
}

export async function startUdpDns(
  records: Record<string, { type: 'A' | 'TXT'; data: string }[]> = {},
): Promise<UdpDns> {
  const socket = dgram.createSocket('udp4');
  const queries: { name: string; type: string }[] = [];
  socket.on('message', (msg, rinfo) => {
    let q: dnsPacket.DecodedPacket;
    try {
      q = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const question = q.questions?.[0];
    if (!question) return;
    queries.push({ name: question.name, type: question.type });
    const found = (records[question.name.toLowerCase()] ?? []).filter((r) => r.type === question.type);
    const answers = found.map((r) =>
      r.type === 'TXT'
        ? { type: 'TXT' as const, name: question.name, ttl: 60, data: [r.data] }
        : { type: 'A' as const, name: question.name, ttl: 60, data: r.data },
    );
    const res = dnsPacket.encode({
      type: 'response',
      id: q.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (found.length || question.name === '' ? 0 : 3),
      questions: [question],
      answers,
    });
    socket.send(res, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = (socket.address() as AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
