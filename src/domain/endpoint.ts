// Pure endpoint rules: the computed full_url and which endpoints get TLS inspection.
import type { EndpointType } from './types.js';

export interface UrlParts {
  endpoint_type: EndpointType;
  domain: string;
  subdomain: string | null;
  port: number | null;
  path: string | null;
}

const DEFAULT_PORT: Record<EndpointType, number | null> = { https: 443, http: 80, port: null };
/** Ports on which a `port` endpoint speaks TLS from the first byte. */
export const TLS_PORTS = [443, 8443, 993, 995, 465] as const;

export function hostOf(e: Pick<UrlParts, 'domain' | 'subdomain'>): string {
  return e.subdomain ? `${e.subdomain}.${e.domain}` : e.domain;
}

/** https://sub.example.com:8443/path; `port` endpoints are host:port. */
export function fullUrl(e: UrlParts): string {
  const host = hostOf(e);
  if (e.endpoint_type === 'port') return `${host}:${e.port ?? ''}`;
  const port = e.port && e.port !== DEFAULT_PORT[e.endpoint_type] ? `:${e.port}` : '';
  const path = e.path ? (e.path.startsWith('/') ? e.path : `/${e.path}`) : '/';
  return `${e.endpoint_type}://${host}${port}${path}`;
}

/** The TCP port a probe connects to. */
export function effectivePort(e: Pick<UrlParts, 'endpoint_type' | 'port'>): number {
  return e.port ?? DEFAULT_PORT[e.endpoint_type] ?? 0;
}

export function wantsTls(e: Pick<UrlParts, 'endpoint_type' | 'port'>): boolean {
  if (e.endpoint_type === 'https') return true;
  return e.endpoint_type === 'port' && (TLS_PORTS as readonly number[]).includes(e.port ?? -1);
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
/** A subdomain prefix like `www` or `api.eu`; `*` and empty labels are refused. */
export function validSubdomain(s: string): boolean {
  return s.length <= 200 && s.toLowerCase().split('.').every((l) => LABEL.test(l));
}

export type Health = 'healthy' | 'warning' | 'critical' | 'unknown';

/**
 * Endpoint health: critical when its liveness is down or its certificate is expired, invalid or
 * unreachable; warning when the certificate expires within 30 days or 24 h uptime is under 99 %;
 * unknown before anything was checked; healthy otherwise. healthSql (store/repos/endpoints.ts) is
 * this rule in SQL, for lists that filter and count by health; change both together (a test checks
 * they agree on every input).
 */
export function endpointHealth(ssl: string | null, liveness: 'up' | 'down' | 'unknown' | null, uptime24h: number | null): Health {
  if (liveness === 'down' || ssl === 'expired' || ssl === 'invalid' || ssl === 'error') return 'critical';
  if (ssl === 'expiring_soon' || (uptime24h !== null && uptime24h < 99)) return 'warning';
  if ((ssl === null || ssl === 'unknown') && (liveness === null || liveness === 'unknown')) return 'unknown';
  return 'healthy';
}

/** 0-100 score matching endpointHealth: healthy 100, warning 60, critical 10, unknown null. */
export function endpointScore(h: Health): number | null {
  return { healthy: 100, warning: 60, critical: 10, unknown: null }[h];
}
