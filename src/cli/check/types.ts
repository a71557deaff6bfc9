// The shapes of `dommon check`: a parsed target, one check's result, and a check function.
import type { UrlParts } from '../../domain/endpoint.js';
import type { CheckKind, Severity, Thresholds } from '../../domain/check.js';
import type { CheckService, NameCheck } from '../../services/check.js';

export type { CheckKind, Severity } from '../../domain/check.js';

export interface Target {
  /** what the user typed */
  input: string;
  kind: 'domain' | 'url' | 'hostport';
  host: string;
  port: number;
  /** the URL a liveness GET asks for; null for a plain TCP host:port */
  url: string | null;
  /** what the liveness probe registry is given (https/http GET or a port connect) */
  endpoint: UrlParts;
  /** whether the port speaks TLS (https URLs, bare domains, host:443/8443/993/995/465) */
  tls: boolean;
  /** registrable domain (tldts) whose registration and DNS security are checked; null for host:port, IPs and local names */
  domain: string | null;
}

export interface CheckResult {
  check: CheckKind;
  status: Severity;
  summary: string;
  details: Record<string, unknown>;
}

export interface CheckOptions extends Thresholds {
  /** Bound of each network step (handshake, GET, connect). */
  timeoutMs: number;
  /** Expected HTTP status for liveness; null: any 2xx/3xx. */
  expectedStatus: number | null;
}

/** What one target's checks share: the engine, the options and one name check (registration + DNS security) run at most once. */
export interface TargetRun {
  engine: CheckService;
  opts: CheckOptions;
  name(): Promise<NameCheck>;
  signal: AbortSignal;
}

/** Returns null when the check does not apply to the target (e.g. TLS on a plain HTTP URL). */
export type CheckFn = (target: Target, run: TargetRun) => Promise<CheckResult | null>;
