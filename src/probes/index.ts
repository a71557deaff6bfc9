// What the rest of the program takes from probes: the endpoint-type registry (registry.ts, one
// plug-in file per type), the TLS inspection, the resolver and the guarded agent.
export { endpointInspector, livenessProbe, pluginOf } from './registry.js';

export { inspectTls } from './tls.js';
export { createResolver } from '../net/resolve.js';
export { guardedAgent } from '../net/guarded-agent.js';
export type { ProbeDeps, ProbeOutcome } from './types.js';
