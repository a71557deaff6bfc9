// A tiny loopback IMAP server for the imap probe: a greeting (with or without [CAPABILITY ...]),
// CAPABILITY, STARTTLS (upgrading the same socket), NOOP and LOGOUT; or TLS from the first byte
// (implicit, as on 993). It records the commands it saw and whether each came over TLS.
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { TestCert } from './certs.js';

interface ImapOptions {
  /** 'starttls' (default) offers STARTTLS, 'none' does not, 'implicit' speaks TLS from the first byte. */
  tls?: 'starttls' | 'none' | 'implicit';
  cert: TestCert;
  /** Put the capabilities in the greeting (default true); false: the client must ask CAPABILITY. */
  capabilityInGreeting?: boolean;
  /** Replace the greeting line (e.g. `* BYE too busy`). */
  greeting?: string;
}

interface ImapPeer {
  port: number;
  /** `CAPABILITY`, `STARTTLS`, `LOGOUT`..., with `(tls)` appended when it came over TLS. */
  commands: string[];
  connections: number;
  close(): Promise<void>;
}

export async function startImap(opts: ImapOptions): Promise<ImapPeer> {
  const mode = opts.tls ?? 'starttls';
  const caps = `IMAP4rev1${mode === 'starttls' ? ' STARTTLS' : ''} LOGINDISABLED`;
  const context = tls.createSecureContext({ cert: opts.cert.cert, key: opts.cert.key });
  const sockets = new Set<net.Socket>();

  function serve(socket: net.Socket, secure: boolean): void {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = '';
    const onData = (chunk: Buffer) => {
      buf += chunk.toString('latin1');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
        const [tag, cmd = ''] = line.split(' ');
        const verb = cmd.toUpperCase();
        peer.commands.push(`${verb}${secure ? ' (tls)' : ''}`);
        if (verb === 'CAPABILITY')
          socket.write(`* CAPABILITY ${secure ? 'IMAP4rev1 AUTH=PLAIN' : caps}\r\n${tag} OK CAPABILITY completed\r\n`);
        else if (verb === 'NOOP') socket.write(`${tag} OK NOOP completed\r\n`);
        else if (verb === 'LOGOUT') socket.end(`* BYE logging out\r\n${tag} OK LOGOUT completed\r\n`);
        else if (verb === 'STARTTLS' && mode === 'starttls' && !secure) {
          socket.off('data', onData);
          socket.write(`${tag} OK Begin TLS negotiation now\r\n`, () => {
            const upgraded = new tls.TLSSocket(socket, { isServer: true, secureContext: context });
            serve(upgraded, true);
          });
          return;
        } else socket.write(`${tag} BAD command unknown or not allowed now\r\n`);
      }
    };
    socket.on('data', onData);
  }

  const greet = (socket: net.Socket, secure: boolean) => {
    peer.connections++;
    serve(socket, secure);
    const line =
      opts.greeting ??
      (opts.capabilityInGreeting === false
        ? '* OK dommon test IMAP ready'
        : `* OK [CAPABILITY ${caps}] dommon test IMAP ready`);
    socket.write(`${line}\r\n`);
  };
  const server =
    mode === 'implicit'
      ? tls.createServer({ cert: opts.cert.cert, key: opts.cert.key }, (s) => greet(s, true))
      : net.createServer((s) => greet(s, false));
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const peer: ImapPeer = {
    port: (server.address() as AddressInfo).port,
    commands: [],
    connections: 0,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return peer;
}
