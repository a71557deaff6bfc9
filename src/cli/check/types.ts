// The shapes of `dommon check`: a parsed target, one check's result, and a check function.
export const CHECK_KINDS = ['registration', 'tls', 'dns-security', 'liveness'] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/** Ordered from best to worst; `skipped` never changes the exit code. */
export const SEVERITIES = ['skipped', 'ok', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Target {
  /** what the user typed */
  input: string;
  kind: 'domain' | 'url' | 'hostport';
  host: string;
  port: number;
  /** http(s) URL to GET for liveness; null for a plain TCP host:port */
  url: string | null;
  /** whether the port speaks TLS (https URLs, bare domains, host:443/8443/993/995/465) */
  tls: boolean;
  /** registrable domain for registration and DNS checks; null for IPs and local names */
  domain: string | null;
}

export interface CheckResult {
  check: CheckKind;
  status: Severity;
  summary: string;
  details: Record<string, unknown>;
}

export interface CheckOptions {
  warnDays: number;
  critDays: number;
  timeoutMs: number;
  /** extra trusted CA certificates (PEM), added to Node's roots */
  ca: string[];
  now: () => Date;
}

/** Returns null when the check does not apply to the target (e.g. TLS on a plain HTTP URL). */
export type CheckFn = (target: Target, opts: CheckOptions) => Promise<CheckResult | null>;
