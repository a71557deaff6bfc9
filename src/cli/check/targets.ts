// TARGET strings -> Target: a domain (example.com), a URL (https://host:port/path, smtp://host:port,
// imap://host:port, icmp://host) or host:port.
import net from 'node:net';
import { normalizeDomainName, registrableDomain } from '../../domain/domain-name.js';
import { endpointShape, fullUrl, TLS_PORTS, wantsTls } from '../../domain/endpoint.js';
import type { EndpointType } from '../../domain/types.js';
import { ENDPOINT_TYPES } from '../../probes/registry.js';
import { UsageError } from '../output.js';
import type { Target } from './types.js';

const HOST = /^(?!-)[a-z0-9_.-]{1,253}$/i;

/** The name as probes use it (lowercase, punycode) and its registrable domain, for names that have one. */
function names(host: string): { host: string; domain: string | null } {
  if (net.isIP(host)) return { host, domain: null };
  const n = normalizeDomainName(host);
  return n.ok ? { host: n.name, domain: registrableDomain(n.name) } : { host: host.toLowerCase(), domain: null };
}

/** IPv6 literals keep their brackets where a URL or an endpoint host needs them. */
const urlHost = (host: string) => (net.isIPv6(host) ? `[${host}]` : host);

/** Endpoint types written scheme://host:port (smtp, imap): `dommon check smtp://mail.example.com:587`. */
const SERVICE_TYPES = ENDPOINT_TYPES.filter((x) => endpointShape(x).url === 'service');

function serviceTarget(input: string, type: EndpointType, u: URL): Target {
  const { host, domain } = names(u.hostname.replace(/^\[|\]$/g, ''));
  if (!host) throw new UsageError(`"${input}": no host`);
  const port = Number(u.port || endpointShape(type).defaultPort);
  const endpoint = { endpoint_type: type, domain: urlHost(host), subdomain: null, port, path: null };
  return { input, kind: 'url', host, port, url: fullUrl(endpoint), endpoint, tls: wantsTls(endpoint), domain };
}

/** Endpoint types written scheme://host, dialled with their fields' defaults: `dommon check icmp://gw.example.com`. */
const HOST_TYPES = ['icmp'] as const;

function hostTarget(input: string, type: (typeof HOST_TYPES)[number], u: URL): Target {
  const { host, domain } = names(u.hostname.replace(/^\[|\]$/g, ''));
  if (!host) throw new UsageError(`"${input}": no host`);
  if (u.port || (u.pathname && u.pathname !== '/') || u.search)
    throw new UsageError(`"${input}": ${type}:// takes a host only (no port, no path)`);
  const endpoint = { endpoint_type: type, domain: urlHost(host), subdomain: null, port: null, path: null };
  return { input, kind: 'url', host, port: 0, url: fullUrl(endpoint), endpoint, tls: false, domain };
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
    const scheme = u.protocol.slice(0, -1);
    const service = SERVICE_TYPES.find((x) => x === scheme);
    if (service) return serviceTarget(s, service, u);
    const byHost = HOST_TYPES.find((x) => x === scheme);
    if (byHost) return hostTarget(s, byHost, u);
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new UsageError(
        `"${s}": only ${['http', 'https', ...SERVICE_TYPES, ...HOST_TYPES].join(', ')} URLs can be checked`,
      );
    const { host, domain } = names(u.hostname.replace(/^\[|\]$/g, ''));
    const tls = u.protocol === 'https:';
    const port = Number(u.port || (tls ? 443 : 80));
    const endpoint = {
      endpoint_type: tls ? 'https' : 'http',
      domain: urlHost(host),
      subdomain: null,
      port,
      path: `${u.pathname}${u.search}`,
    } as const;
    return { input: s, kind: 'url', host, port, url: u.toString(), endpoint, tls, domain };
  }
  const hp = /^(\[[0-9a-f:.]+\]|[^:/\s]+):(\d{1,5})$/i.exec(s);
  if (hp) {
    const raw = hp[1]!.replace(/^\[|\]$/g, '');
    const port = Number(hp[2]);
    if (port < 1 || port > 65535) throw new UsageError(`"${s}": port must be 1-65535`);
    if (!net.isIP(raw) && !HOST.test(raw)) throw new UsageError(`"${s}" is not host:port`);
    const { host } = names(raw);
    const endpoint = { endpoint_type: 'port', domain: urlHost(host), subdomain: null, port, path: null } as const;
    // Registration and DNS security are for domains and URLs; a host:port is a service check.
    return {
      input: s,
      kind: 'hostport',
      host,
      port,
      url: null,
      endpoint,
      tls: (TLS_PORTS as readonly number[]).includes(port),
      domain: null,
    };
  }
  const raw = s.replace(/\.$/, '');
  if (!net.isIP(raw) && (!HOST.test(raw) || raw.includes('/')))
    throw new UsageError(`"${s}" is not a domain, URL or host:port`);
  const { host, domain } = names(raw);
  const endpoint = { endpoint_type: 'https', domain: urlHost(host), subdomain: null, port: 443, path: '/' } as const;
  return { input: s, kind: 'domain', host, port: 443, url: `https://${urlHost(host)}/`, endpoint, tls: true, domain };
}

/** Targets from the command line and from --file (one per line, `#` comments). */
export function collectTargets(args: string[], fileText: string | null): Target[] {
  const fromFile = (fileText ?? '')
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);
  const all = [...args, ...fromFile];
  if (!all.length)
    throw new UsageError(
      'give at least one TARGET (domain, URL, smtp://, imap:// or icmp:// URL, or host:port) or --file',
    );
  return all.map(parseTarget);
}
