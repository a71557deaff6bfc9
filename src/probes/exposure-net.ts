// Short network probes for the exposure scanner (src/services/exposure): TCP connect, one HTTP(S) GET, one TLS handshake.
// Each resolves with a result (never throws for a failing target) within its timeout. `portFor`
// maps a well-known port to the one actually dialled (a composition-root hook; identity by default).
import net from 'node:net';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { deniedMessage, type OutboundPolicy } from '../domain/outbound.js';
import type { AxfrResult, DnsResolver } from './dns.js';

export type PortState = 'open' | 'closed' | 'timeout' | 'error';

export interface HttpAnswer {
  ok: boolean;
  status?: number;
  body?: string;
  error?: string;
}

export interface TlsAnswer {
  ok: boolean;
  protocol?: string;
  /** DER of the leaf certificate, when one was presented. */
  cert?: X509Certificate;
  error?: string;
}

export type TlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

export interface ExposureNet {
  tcp(address: string, port: number, timeoutMs: number): Promise<PortState>;
  /** GET / from `address` with `Host: host` (SNI too over TLS); the body is cut at 64 KiB. */
  http(address: string, host: string, tlsOn: boolean, timeoutMs: number): Promise<HttpAnswer>;
  /** A handshake limited to [min, max] (legacy versions with OpenSSL security level 0). */
  tls(
    address: string,
    servername: string,
    versions: { min: TlsVersion; max: TlsVersion },
    timeoutMs: number,
  ): Promise<TlsAnswer>;
  /** The port actually dialled for a well-known one (used by AXFR too). */
  portFor(port: number, address: string): number;
}

interface ExposureNetOptions {
  portFor?: (port: number, address: string) => number;
  /** DOMMON_OUTBOUND_DENY: a denied address is never dialled (answered as `error` / not ok). */
  policy?: OutboundPolicy;
}

/** AXFR that refuses, without dialling, a nameserver address the policy denies. */
export function guardedAxfr(axfr: DnsResolver['axfr'], policy: OutboundPolicy): DnsResolver['axfr'] {
  return (address, port, zone, timeoutMs): Promise<AxfrResult> => {
    const rule = policy.denied(address);
    return rule
      ? Promise.resolve({ ok: false, error: deniedMessage(address, rule) })
      : axfr(address, port, zone, timeoutMs);
  };
}

const MAX_BODY = 64 * 1024;

export function createExposureNet(opts: ExposureNetOptions = {}): ExposureNet {
  const portFor = opts.portFor ?? ((p: number) => p);
  const denied = (address: string) => {
    const rule = opts.policy?.denied(address);
    return rule ? deniedMessage(address, rule) : null;
  };
  return {
    portFor,
    tcp(address, port, timeoutMs) {
      if (denied(address)) return Promise.resolve('error');
      return new Promise((resolve) => {
        const s = net.connect({ host: address, port: portFor(port, address) });
        const done = (st: PortState) => {
          clearTimeout(timer);
          s.destroy();
          resolve(st);
        };
        const timer = setTimeout(() => done('timeout'), timeoutMs);
        s.once('connect', () => done('open'));
        s.once('error', (e: NodeJS.ErrnoException) => done(e.code === 'ECONNREFUSED' ? 'closed' : 'error'));
      });
    },
    http(address, host, tlsOn, timeoutMs) {
      const refused = denied(address);
      if (refused) return Promise.resolve({ ok: false, error: refused });
      return new Promise((resolve) => {
        const lib = tlsOn ? https : http;
        const port = portFor(tlsOn ? 443 : 80, address);
        let settled = false;
        const done = (a: HttpAnswer) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          req.destroy();
          resolve(a);
        };
        const req = lib.request({
          host: address,
          port,
          path: '/',
          method: 'GET',
          headers: { host, 'user-agent': 'dommon-exposure' },
          servername: tlsOn ? host : undefined,
          rejectUnauthorized: false,
          agent: false,
        });
        const timer = setTimeout(() => done({ ok: false, error: 'timeout' }), timeoutMs);
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= MAX_BODY) chunks.push(c);
            else done({ ok: true, status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') });
          });
          res.on('end', () => done({ ok: true, status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (e) => done({ ok: false, error: e.message }));
        });
        req.on('error', (e: NodeJS.ErrnoException) => done({ ok: false, error: e.code ?? e.message }));
        req.end();
      });
    },
    tls(address, servername, versions, timeoutMs) {
      const refused = denied(address);
      if (refused) return Promise.resolve({ ok: false, error: refused });
      return new Promise((resolve) => {
        const legacy = versions.min === 'TLSv1' || versions.min === 'TLSv1.1';
        const s = tls.connect({
          host: address,
          port: portFor(443, address),
          servername: net.isIP(servername) ? undefined : servername,
          rejectUnauthorized: false,
          minVersion: versions.min,
          maxVersion: versions.max,
          ...(legacy ? { ciphers: 'DEFAULT@SECLEVEL=0' } : {}),
        });
        const done = (a: TlsAnswer) => {
          clearTimeout(timer);
          s.destroy();
          resolve(a);
        };
        const timer = setTimeout(() => done({ ok: false, error: 'timeout' }), timeoutMs);
        s.once('secureConnect', () => {
          const raw = s.getPeerCertificate()?.raw;
          let cert: X509Certificate | undefined;
          try {
            cert = raw ? new X509Certificate(raw) : undefined;
          } catch {
            cert = undefined;
          }
          done({ ok: true, protocol: s.getProtocol() ?? undefined, cert });
        });
        s.once('error', (e: NodeJS.ErrnoException) => done({ ok: false, error: e.code ?? e.message }));
      });
    },
  };
}
