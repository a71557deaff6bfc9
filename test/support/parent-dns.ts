// An authoritative server of a zone (a TLD's, say) on a loopback address, over UDP and TCP on one
// port: for a name in a delegated child zone it answers what a real parent answers, a referral (the
// child's NS in the authority section, no AA, no answer), and the child's DS records itself (AA); the
// zone's own A records (`records`) it answers with AA. The test changes `delegations` and `records`
// between questions. Names of `truncated` get a UDP answer with TC set and nothing in it, and their
// whole answer over TCP.
import dgram from 'node:dgram';
import net from 'node:net';
import packet from 'dns-packet';

interface ChildDelegation {
  NS: string[];
  DS?: { keyTag: number; algorithm: number; digestType: number; digest: string }[];
}

interface ParentDns {
  host: string;
  port: number;
  zone: string;
  delegations: Record<string, ChildDelegation>;
  /** The zone's own A records, by name (outside every delegation). */
  records: Record<string, string[]>;
  /** Names whose UDP answer comes truncated (TC): the records only over TCP. */
  truncated: Set<string>;
  /** Stops answering (every question times out) while true. */
  silent: boolean;
  queries: { name: string; type: string; rd: boolean; tcp: boolean }[];
  close(): Promise<void>;
}

const bare = (n: string) => n.toLowerCase().replace(/\.$/, '');

/** Starts the server on `host:port` (port 0: any free one). */
export async function startParentDns(opts: {
  host: string;
  port?: number;
  zone: string;
  delegations?: Record<string, ChildDelegation>;
  records?: Record<string, string[]>;
}): Promise<ParentDns> {
  const state: ParentDns = {
    host: opts.host,
    port: 0,
    zone: bare(opts.zone),
    delegations: opts.delegations ?? {},
    records: opts.records ?? {},
    truncated: new Set(),
    silent: false,
    queries: [],
    close: async () => undefined,
  };

  /** The answer to one query, or null (no answer at all). */
  function answer(msg: Buffer, tcp: boolean): packet.Packet | null {
    let q: packet.Packet;
    try {
      q = packet.decode(msg);
    } catch {
      return null;
    }
    const question = q.questions?.[0];
    if (!question || state.silent) return null;
    const name = bare(question.name);
    const rd = Boolean((q.flags ?? 0) & packet.RECURSION_DESIRED);
    state.queries.push({ name, type: question.type, rd, tcp });
    const reply = (flags: number, rcode: number, sections: Partial<packet.Packet> = {}): packet.Packet => ({
      type: 'response',
      id: q.id,
      flags: flags | rcode,
      questions: q.questions,
      ...sections,
    });
    const inZone = name === state.zone || name.endsWith(`.${state.zone}`);
    if (!inZone) return reply(0, 5); // REFUSED: not this server's zone
    const base = { ttl: 3600, class: 'IN' as const };
    if (state.truncated.has(name) && !tcp) return reply(packet.AUTHORITATIVE_ANSWER | packet.TRUNCATED_RESPONSE, 0);
    const child = Object.keys(state.delegations).find((c) => name === c || name.endsWith(`.${c}`));
    if (!child) {
      const own = state.records[name];
      if (!own && name !== state.zone) return reply(packet.AUTHORITATIVE_ANSWER, 3); // NXDOMAIN
      const answers =
        question.type === 'A' ? (own ?? []).map((a) => ({ ...base, name, type: 'A', data: a }) as packet.Answer) : [];
      return reply(packet.AUTHORITATIVE_ANSWER, 0, { answers });
    }
    const d = state.delegations[child]!;
    if (question.type === 'DS' && name === child) {
      const answers = (d.DS ?? []).map(
        (x) => ({ ...base, name, type: 'DS', data: { ...x, digest: Buffer.from(x.digest, 'hex') } }) as packet.Answer,
      );
      return reply(packet.AUTHORITATIVE_ANSWER, 0, { answers });
    }
    // The referral: the child's servers, not an answer.
    const authorities = d.NS.map((ns) => ({ ...base, name: child, type: 'NS', data: ns }) as packet.Answer);
    return reply(0, 0, { authorities });
  }

  const udp = dgram.createSocket('udp4');
  udp.on('message', (msg, rinfo) => {
    const res = answer(msg, false);
    if (res) udp.send(packet.encode(res), rinfo.port, rinfo.address, () => undefined);
  });
  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= buf.readUInt16BE(0) + 2) {
        const msg = buf.subarray(2, buf.readUInt16BE(0) + 2);
        buf = buf.subarray(msg.length + 2);
        const res = answer(msg, true);
        if (res) socket.write(packet.streamEncode(res));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(opts.port ?? 0, opts.host, () => resolve());
  });
  state.port = (udp.address() as net.AddressInfo).port;
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(state.port, opts.host, () => resolve());
  });
  let closed = false;
  state.close = async () => {
    if (closed) return;
    closed = true;
    for (const s of sockets) s.destroy();
    await Promise.all([new Promise<void>((r) => udp.close(() => r())), new Promise<void>((r) => tcp.close(() => r()))]);
  };
  return state;
}
