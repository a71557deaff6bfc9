// A WHOIS server on 127.0.0.1: reads one query line, writes the canned answer, closes.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

interface TcpWhois {
  port: number;
  /** "127.0.0.1:PORT", as DOMMON_WHOIS_SERVER takes it. */
  address: string;
  queries: string[];
  close(): Promise<void>;
}

export async function startTcpWhois(
  answer: (query: string) => string = (q) =>
    `Domain Name: ${q.toUpperCase()}\r\nRegistry Expiry Date: 2030-01-01T00:00:00Z\r\n`,
): Promise<TcpWhois> {
  const queries: string[] = [];
  const server = net.createServer((socket) => {
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString('utf8');
      const i = buf.indexOf('\n');
      if (i < 0) return;
      const q = buf.slice(0, i).trim();
      queries.push(q);
      socket.end(answer(q));
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    queries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
