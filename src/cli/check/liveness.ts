// Minimal liveness check: an HTTP(S) GET (any 2xx/3xx is up) or a TCP connect for host:port.
// TODO(lead, after merging probing): call src/probes/http.ts and src/probes/tcp.ts instead.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { CheckFn, CheckResult } from './types.js';

function httpGet(url: string, ca: string[], timeoutMs: number): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    // Trust is the TLS check's job; liveness only asks whether the service answers.
    const req = mod.get(u, { rejectUnauthorized: false, ...(ca.length ? { ca } : {}), headers: { 'user-agent': 'dommon-check' }, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, ms: Math.round(performance.now() - t0) }));
      res.once('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.once('error', reject);
  });
}

function tcpConnect(host: string, port: number, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const s = net.connect({ host, port });
    s.setTimeout(timeoutMs, () => s.destroy(new Error(`no connection within ${timeoutMs} ms`)));
    s.once('connect', () => {
      resolve(Math.round(performance.now() - t0));
      s.destroy();
    });
    s.once('error', reject);
  });
}

const down = (what: string, err: unknown): CheckResult => {
  const e = err as NodeJS.ErrnoException;
  return { check: 'liveness', status: 'critical', summary: `${what} failed: ${e.code ?? e.message}`, details: { error: e.message } };
};

export const livenessCheck: CheckFn = async (target, o) => {
  if (target.url) {
    try {
      const r = await httpGet(target.url, o.ca, o.timeoutMs);
      const up = r.status >= 200 && r.status < 400;
      return { check: 'liveness', status: up ? 'ok' : 'critical', summary: `HTTP ${r.status} in ${r.ms} ms`, details: { url: target.url, status_code: r.status, response_time_ms: r.ms } };
    } catch (err) {
      return down(`GET ${target.url}`, err);
    }
  }
  try {
    const ms = await tcpConnect(target.host, target.port, o.timeoutMs);
    return { check: 'liveness', status: 'ok', summary: `TCP connect in ${ms} ms`, details: { host: target.host, port: target.port, response_time_ms: ms } };
  } catch (err) {
    return down(`TCP connect to ${target.host}:${target.port}`, err);
  }
};
