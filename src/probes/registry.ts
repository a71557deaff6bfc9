// The endpoint-type registry, the only list of endpoint types: one plug-in file per type, one line
// each here. Loading it hands the types' shapes to the domain rules (defineEndpointTypes), and the
// JSON-Schema enums, the OpenAPI document, the CLI's --type choices and completion and the table of
// docs/endpoint-types.md come from it (npm run build, scripts/endpoint-types.mjs). The compiler refuses
// a type named by a plug-in file (EndpointTypeNames) without its line here, and a line whose name differs.
import type { EndpointType, Endpoint, LivenessConfig } from '../domain/types.js';
import type { TlsResult } from '../domain/certificate.js';
import { defineEndpointTypes } from '../domain/endpoint.js';
import { dnsType } from './dns-check.js';
import { http, https } from './http.js';
import { icmp } from './icmp.js';
import { imap } from './imap.js';
import type { EndpointPlugin, TlsInspectFn } from './plugin.js';
import { push } from './push.js';
import { smtp } from './smtp.js';
import { port } from './tcp.js';
import type { ProbeDeps, ProbeOutcome } from './types.js';

export const ENDPOINT_PLUGINS: { readonly [K in EndpointType]: EndpointPlugin<K> } = {
  https,
  http,
  port,
  smtp,
  imap,
  icmp,
  push,
  dns: dnsType,
};

/** The type names, in the registry's order (the docs' and the enums' order). */
export const ENDPOINT_TYPES = Object.keys(ENDPOINT_PLUGINS) as readonly EndpointType[];

defineEndpointTypes(ENDPOINT_PLUGINS);

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
