// port liveness: a TCP connect to the endpoint's host and port; success once the connection is open.
import net from 'node:net';
import { effectivePort, hostOf, TLS_PORTS } from '../domain/endpoint.js';
import type { EndpointPlugin } from './plugin.js';
import { inspectTls } from './tls.js';
import {
  deadline,
  failedWith,
  failure,
  passed,
  raceSignal,
  sentAfter,
  type ProbeDeps,
  type ProbeOutcome,
} from './types.js';

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
  /** When the connection was opened (performance.now()), once the name is resolved. */
  let sentAt: number | undefined;
  try {
    const addr = await raceSignal(deps.resolver.resolve(t.host), signal);
    sentAt = performance.now();
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect({ host: addr.address, port: t.port, family: addr.family, signal });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', reject);
    });
    return sentAfter(passed(elapsed()), started, sentAt);
  } catch (err) {
    const outcome = failedWith(err, parent, timedOut, {
      timeoutMs: t.timeoutMs,
      noAnswer: 'no connection',
      elapsedMs: elapsed(),
    });
    return sentAfter(outcome, started, sentAt);
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
