// port liveness: a TCP connect to the endpoint's host and port; success once the connection is open.
import net from 'node:net';
import { effectivePort, hostOf, TLS_PORTS } from '../domain/endpoint.js';
import type { EndpointPlugin } from './plugin.js';
import { inspectTls } from './tls.js';
import { deadline, failedWith, failure, passed, raceSignal, type ProbeDeps, type ProbeOutcome } from './types.js';

interface TcpTarget {
  host: string;
  port: number;
  timeoutMs: number;
}

export async function probeTcp(t: TcpTarget, deps: ProbeDeps, parent: AbortSignal): Promise<ProbeOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (!(t.port > 0 && t.port < 65536)) return failure('error', `invalid port ${t.port}`, 0);
  const { signal, timedOut, done } = deadline(parent, t.timeoutMs);
  /** The connection's opening, once the name is resolved (ms from the start; ProbeOutcome's sentAfterMs). */
  let sent: { sentAfterMs: number } | null = null;
  try {
    const addr = await raceSignal(deps.resolver.resolve(t.host), signal);
    sent = { sentAfterMs: elapsed() };
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect({ host: addr.address, port: t.port, family: addr.family, signal });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', reject);
    });
    return { ...passed(elapsed()), ...sent };
  } catch (err) {
    const outcome = failedWith(err, parent, timedOut, {
      timeoutMs: t.timeoutMs,
      noAnswer: 'no connection',
      elapsedMs: elapsed(),
    });
    return sent ? { ...outcome, ...sent } : outcome;
  } finally {
    done();
  }
}

declare module '../domain/endpoint.js' {
  interface EndpointTypeNames {
    port: true;
  }
}

/** `port`: a TCP connect; on one of TLS_PORTS its certificate is inspected too (TLS from the first byte). */
export const port: EndpointPlugin<'port'> = {
  name: 'port',
  defaultPort: null,
  url: 'host-port',
  certificate: 'tls-ports',
  docs: { liveness: 'the TCP connection is accepted', certificate: `on ${TLS_PORTS.join(', ')}` },
  upSummary: (o) => `TCP connect in ${o.responseTimeMs} ms`,
  liveness: (e, c, deps, signal) =>
    probeTcp({ host: hostOf(e), port: effectivePort(e), timeoutMs: c.timeout_seconds * 1000 }, deps, signal),
  inspect: inspectTls,
};
