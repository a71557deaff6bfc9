// GET /metrics: Prometheus text format; with DOMMON_METRICS_TOKEN set it needs `Authorization: Bearer <token>`;
// without it, only a daemon listening on loopback serves it (403 otherwise).
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { Forbidden, Unauthorized } from '../../domain/errors.js';
import type { ApiDeps, ApiRouter } from '../context.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when `host` (the listen address) is reachable only from this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (isIPv6(h) && h.startsWith('::ffff:')) return h.slice(7).startsWith('127.');
  return false;
}

/**
 * /metrics names every team's domains and endpoints: without DOMMON_METRICS_TOKEN it is served only
 * when the daemon listens on a loopback address.
 */
export function metricsExposed(config: { host: string; metricsToken: string | null }): boolean {
  return !config.metricsToken && !isLoopbackHost(config.host);
}

export function metricsRoutes(router: ApiRouter, deps: ApiDeps): void {
  const metrics = deps.metrics;
  if (!metrics) return;
  const token = deps.config.metricsToken;
  const refuse = metricsExposed(deps.config);
  const hosts = new Set(['localhost', deps.config.host.toLowerCase(), ...deps.config.publicHosts]);
  router.get('/metrics', async (ctx) => {
    if (refuse) {
      throw new Forbidden(
        `/metrics is off: the daemon listens on ${deps.config.host}, not a loopback address, and DOMMON_METRICS_TOKEN is not set`,
        'METRICS_TOKEN_REQUIRED',
      );
    }
    // Served without a token, /metrics could be read by a web page through DNS rebinding (its own name
    // resolving to 127.0.0.1): only an address, localhost or a configured public name is answered.
    if (!token && !hostAllowed(ctx.get('host'), hosts)) {
      throw new Forbidden(
        `/metrics is not served under the name "${hostName(ctx.get('host')).slice(0, 100)}" (add it to DOMMON_PUBLIC_HOSTS, or set DOMMON_METRICS_TOKEN)`,
        'HOST_NOT_ALLOWED',
      );
    }
    if (token) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
      // Compare digests so the comparison takes the same time whatever the length.
      if (!m || !timingSafeEqual(digest(m[1]!), digest(token))) {
        ctx.set('WWW-Authenticate', 'Bearer realm="dommon metrics"');
        throw new Unauthorized('Missing or invalid metrics token (DOMMON_METRICS_TOKEN)');
      }
    }
    const { contentType, body } = await metrics.render();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  });
}

/** The Host header without its port (and IPv6 brackets), lower case, without a trailing dot. */
function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  const v6 = /^\[([^\]]+)\]/.exec(h);
  return v6 ? v6[1]! : h.replace(/:\d*$/, '').replace(/\.$/, '');
}

function hostAllowed(header: string, names: Set<string>): boolean {
  const h = hostName(header);
  return isIPv4(h) || isIPv6(h) || names.has(h);
}
