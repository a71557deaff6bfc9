// http and https liveness: one GET to full_url on a fresh connection (no agent, no keep-alive),
// redirects not followed, success when the status equals expected_status_code.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { classify, deadline, failure, raceSignal, type ProbeDeps, type ProbeOutcome } from './types.js';

export interface HttpTarget {
  url: string;
  timeoutMs: number;
  expectedStatus: number;
}

const USER_AGENT = 'dommon-liveness/1';

export async function probeHttp(t: HttpTarget, deps: ProbeDeps, parent: AbortSignal): Promise<ProbeOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(t.url);
  } catch {
    return failure('error', `invalid URL ${t.url}`, 0);
  }
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const { signal, timedOut, done } = deadline(parent, t.timeoutMs);
  try {
    const addr = await raceSignal(deps.resolver.resolve(host), signal);
    const status = await new Promise<number>((resolve, reject) => {
      const opts: https.RequestOptions = {
        host: addr.address,
        family: addr.family,
        port: url.port ? Number(url.port) : secure ? 443 : 80,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { host: url.host, 'user-agent': USER_AGENT, accept: '*/*', connection: 'close' },
        agent: false,
        signal,
      };
      if (secure) {
        if (!net.isIP(host)) opts.servername = host;
        if (deps.ca) opts.ca = deps.ca;
      }
      const req = (secure ? https : http).request(opts, (res) => {
        // The status line is the answer; the body is not read (the socket is closed at once).
        resolve(res.statusCode ?? 0);
        res.destroy();
      });
      req.on('error', reject);
      req.end();
    });
    const ms = elapsed();
    if (status !== t.expectedStatus) return failure('status', `HTTP ${status}, expected ${t.expectedStatus}`, ms, status);
    return { ok: true, responseTimeMs: ms, statusCode: status, error: null, reason: null };
  } catch (err) {
    const { reason, detail } = classify(err, parent, timedOut);
    return failure(reason, reason === 'timeout' ? `no response within ${t.timeoutMs / 1000} s` : detail, elapsed());
  } finally {
    done();
  }
}
