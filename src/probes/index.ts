// The probe registry: one liveness probe per endpoint type, checked by the compiler
// (a new endpoint type is a new file plus one entry here). TLS inspection is separate (tls.ts).
import { effectivePort, fullUrl, hostOf, type UrlParts } from '../domain/endpoint.js';
import type { Endpoint, EndpointType, LivenessConfig } from '../domain/types.js';
import { probeHttp } from './http.js';
import { probeTcp } from './tcp.js';
import type { ProbeDeps, ProbeOutcome } from './types.js';

/** What a probe reads: where (a stored endpoint, or a `dommon check` target) and how long / which status. */
type ProbeSettings = Pick<LivenessConfig, 'timeout_seconds' | 'expected_status_code'>;
type LivenessProbeFn = (endpoint: UrlParts, config: ProbeSettings, deps: ProbeDeps, signal: AbortSignal) => Promise<ProbeOutcome>;

const web: LivenessProbeFn = (e, c, deps, signal) =>
  probeHttp({ url: fullUrl(e), timeoutMs: c.timeout_seconds * 1000, expectedStatus: c.expected_status_code }, deps, signal);

export const PROBES = {
  http: web,
  https: web,
  port: (e, c, deps, signal) => probeTcp({ host: hostOf(e), port: effectivePort(e), timeoutMs: c.timeout_seconds * 1000 }, deps, signal),
} satisfies Record<EndpointType, LivenessProbeFn>;

/** The probe for an endpoint, bound to its dependencies: what the liveness scheduler calls. */
export function livenessProbe(deps: ProbeDeps) {
  return (endpoint: Endpoint, config: LivenessConfig, signal: AbortSignal): Promise<ProbeOutcome> =>
    PROBES[endpoint.endpoint_type](endpoint, config, deps, signal);
}

export { inspectTls } from './tls.js';
export { createResolver } from './resolve.js';
export { guardedAgent } from './guarded-agent.js';
export type { ProbeDeps, ProbeOutcome } from './types.js';
