// What the rest of the program takes from probes: the endpoint-type registry (registry.ts, one
// plug-in file per type), the TLS inspection, the resolver and the guarded agent.
export { ENDPOINT_PLUGINS, endpointInspector, livenessProbe, pluginOf } from './registry.js';
export type { EndpointPlugin, LivenessProbeFn, ProbeSettings, TlsInspectFn } from './plugin.js';
export { inspectTls } from './tls.js';
export { createResolver, OutboundDenied, type Resolver } from './resolve.js';
export { guardedAgent } from './guarded-agent.js';
export type { ProbeDeps, ProbeOutcome, ProbeReason } from './types.js';
