// The endpoint-type registry: one plug-in per type, one line each. The compiler refuses a type of
// ENDPOINT_SHAPES (domain/endpoint.ts) without its plug-in here, and a plug-in whose name or shape
// differs from its entry; the JSON schemas' enums are checked against this list by a test.
import type { EndpointType, Endpoint, LivenessConfig } from '../domain/types.js';
import type { TlsResult } from '../domain/certificate.js';
import { http, https } from './http.js';
import { imap } from './imap.js';
import type { EndpointPlugin, TlsInspectFn } from './plugin.js';
import { smtp } from './smtp.js';
import { port } from './tcp.js';
import type { ProbeDeps, ProbeOutcome } from './types.js';

export const ENDPOINT_PLUGINS: { readonly [K in EndpointType]: EndpointPlugin<K> } = {
  https,
  http,
  port,
  smtp,
  imap,
};

export function pluginOf(type: EndpointType): EndpointPlugin {
  return ENDPOINT_PLUGINS[type];
}

/** The liveness probe for an endpoint, bound to its dependencies: what the liveness scheduler calls. */
export function livenessProbe(deps: ProbeDeps) {
  return (endpoint: Endpoint, config: LivenessConfig, signal: AbortSignal): Promise<ProbeOutcome> =>
    pluginOf(endpoint.endpoint_type).liveness(endpoint, config, deps, signal);
}

const noCertificate: TlsInspectFn = async () => ({
  ok: false,
  reason: 'error',
  error: 'error: this endpoint type carries no certificate',
});

/** The TLS inspection of an endpoint's type (STARTTLS where its protocol has one), bound to its dependencies. */
export function endpointInspector(deps: ProbeDeps) {
  return (
    target: { endpoint_type: EndpointType; host: string; port: number; timeoutMs: number },
    signal: AbortSignal,
  ): Promise<TlsResult> =>
    (pluginOf(target.endpoint_type).inspect ?? noCertificate)(
      { host: target.host, port: target.port, timeoutMs: target.timeoutMs },
      deps,
      signal,
    );
}
