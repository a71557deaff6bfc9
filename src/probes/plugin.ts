// The one shape of an endpoint-type plug-in (after blackbox_exporter's ProbeFn): its name, its pure
// shape (the data domain/endpoint.ts's rules read, with the fields its endpoints add), its row of
// docs/endpoint-types.md, its liveness probe and, when it carries a certificate, its TLS inspection.
import type { TlsResult } from '../domain/certificate.js';
import type { EndpointSettings, EndpointShape, UrlParts } from '../domain/endpoint.js';
import type { Placeholder } from '../domain/conditions.js';
import type { EndpointType, LivenessConfig } from '../domain/types.js';
import type { TlsTarget } from './tls.js';
import type { ProbeDeps, ProbeOutcome } from './types.js';

/**
 * What a probe reads: where (a stored endpoint, or a `dommon check` target), how long, which status,
 * and (a stored configuration) the request to send and the conditions to judge the answer by.
 */
export type ProbeSettings = Pick<LivenessConfig, 'timeout_seconds' | 'expected_status_code'> &
  Partial<Pick<LivenessConfig, 'id' | 'method' | 'headers' | 'body' | 'follow_redirects' | 'conditions' | 'auth'>>;

/**
 * What a probe checks: where, and the type's own fields (a stored endpoint has them all; a
 * `dommon check` target has none, and the probe takes its fields' defaults). A stored endpoint has
 * its id too (a push endpoint's check reads its pings by it) and its domain's (`[DOMAIN_EXPIRATION]`
 * reads the domain's stored registration by it).
 */
export type ProbeTarget = UrlParts & { settings?: EndpointSettings; id?: string; domain_id?: string };

/** Liveness: one check of the endpoint; never throws for a failing target. */
export type LivenessProbeFn = (
  endpoint: ProbeTarget,
  config: ProbeSettings,
  deps: ProbeDeps,
  signal: AbortSignal,
) => Promise<ProbeOutcome>;

/** TLS inspection: the certificate the endpoint presents (after STARTTLS where the protocol has one); never throws. */
export type TlsInspectFn = (target: TlsTarget, deps: ProbeDeps, signal: AbortSignal) => Promise<TlsResult>;

export interface EndpointPlugin<K extends EndpointType = EndpointType> extends EndpointShape {
  name: K;
  /** Its row of the table in docs/endpoint-types.md (Markdown; npm run build writes the table). */
  docs: {
    /** When liveness succeeds. */
    liveness: string;
    /** Which certificate is inspected, if any. */
    certificate: string;
  };
  liveness: LivenessProbeFn;
  /**
   * What a check that passed did, in words (`dommon check` prints them): `HTTP 200 in 12 ms`,
   * `ICMP echo: 3 of 3 replies, mean round trip 1 ms`. Each type says it in its own terms.
   */
  upSummary: (o: ProbeOutcome, e: ProbeTarget) => string;
  /**
   * The condition placeholders its probe supplies (domain/conditions.ts): a configuration's
   * `conditions` may name these only. Absent: the type takes no conditions.
   */
  placeholders?: readonly Placeholder[];
  /** Its probe sends an HTTP request: `method`, `headers`, `body`, `follow_redirects` and `auth` apply. */
  httpRequest?: true;
  /** Present when the type carries a certificate (`certificate` is not `never`). */
  inspect?: TlsInspectFn;
}
