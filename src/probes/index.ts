// What the rest of the program takes from probes: the endpoint-type registry (registry.ts, one
// plug-in file per type), the TLS inspection and the resolver. (The guarded HTTP agent is
// net/guarded-agent.ts, loaded where a request is made: it brings undici.)
export { endpointInspector, livenessProbe, pluginOf } from './registry.js';

export { inspectTls } from './tls.js';
export { createResolver } from '../net/resolve.js';
export type { ProbeDeps, ProbeOutcome } from './types.js';
