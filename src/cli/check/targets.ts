// TARGET strings -> Target: a domain (example.com), a URL (https://host:port/path) or host:port.
import net from 'node:net';
import { normalizeDomainName } from '../../domain/domain-name.js';
import { TLS_PORTS } from '../../domain/endpoint.js';
import { UsageError } from '../output.js';
import type { Target } from './types.js';

const HOST = /^(?!-)[a-z0-9_.-]{1,253}$/i;

function registrable(host: string): string | null {
  if (net.isIP(host)) return null;
  const n = normalizeDomainName(host);
  return n.ok ? n.name : null;
}

export function parseTarget(input: string): Target {
  const s = input.trim();
  if (!s) throw new UsageError('empty target');
  if (s.includes('://')) {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      throw new UsageError(`"${s}" is not a valid URL`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`"${s}": only http and https URLs can be checked`);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const tls = u.protocol === 'https:';
    return { input: s, kind: 'url', host, port: Number(u.port || (tls ? 443 : 80)), url: u.toString(), tls, domain: registrable(host) };
  }
  const hp = /^(\[[0-9a-f:.]+\]|[^:/\s]+):(\d{1,5})$/i.exec(s);
  if (hp) {
    const host = hp[1]!.replace(/^\[|\]$/g, '');
    const port = Number(hp[2]);
    if (port < 1 || port > 65535) throw new UsageError(`"${s}": port must be 1-65535`);
    if (!net.isIP(host) && !HOST.test(host)) throw new UsageError(`"${s}" is not host:port`);
    return { input: s, kind: 'hostport', host, port, url: null, tls: (TLS_PORTS as readonly number[]).includes(port), domain: registrable(host) };
  }
  const host = s.replace(/\.$/, '').toLowerCase();
  if (!net.isIP(host) && (!HOST.test(host) || host.includes('/'))) throw new UsageError(`"${s}" is not a domain, URL or host:port`);
  const tls = true;
  const urlHost = net.isIPv6(host) ? `[${host}]` : host;
  return { input: s, kind: 'domain', host, port: 443, url: `https://${urlHost}/`, tls, domain: registrable(host) };
}

/** Targets from the command line and from --file (one per line, `#` comments). */
export function collectTargets(args: string[], fileText: string | null): Target[] {
  const fromFile = (fileText ?? '').split(/\r?\n/).map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
  const all = [...args, ...fromFile];
  if (!all.length) throw new UsageError('give at least one TARGET (domain, URL or host:port) or --file');
  return all.map(parseTarget);
}
