// The registry of `dommon check` checks, one function per kind (the compiler checks every kind has
// one), and the run over every target. The checks themselves are the daemon's: they call the one-shot
// engine (services/check.ts) and grade its answers with the rules of domain/check.ts.
import { setMaxListeners } from 'node:events';
import { computeHealth, type HealthResult } from '../../domain/health.js';
import { mapLimit } from '../../domain/concurrency.js';
import type { SecurityPart } from '../../domain/security.js';
import {
  exitCode,
  livenessUp,
  registrationSeverity,
  securitySeverity,
  tlsSeverity,
  worst,
} from '../../domain/check.js';
import type { CheckService, NameCheck } from '../../services/check.js';
import { endpointShape } from '../../domain/endpoint.js';
import { pluginOf } from '../../probes/registry.js';
import { expiringWhat } from '../../domain/certificate.js';
import type { CheckFn, CheckKind, CheckOptions, CheckResult, Severity, Target, TargetRun } from './types.js';

const onOff = (b: boolean | null) => (b === null ? 'unknown' : b ? 'on' : 'off');

const registration: CheckFn = async (target, run) => {
  if (target.kind === 'hostport' || !target.domain) return null;
  const r = (await run.name()).registration;
  const kind = r.outcome;
  const status = registrationSeverity(kind, r.days_until_expiry, run.opts);
  const { state, outcome, ...rest } = r;
  const details = { domain: target.domain, state, outcome, ...rest };
  const via = r.source ? ` via ${r.source.toUpperCase()}` : '';
  if (kind === 'ok') {
    const who = r.registrar ? `, registrar ${r.registrar}` : '';
    if (r.expiry_date === null || r.days_until_expiry === null)
      return {
        check: 'registration',
        status,
        summary: `registered${who}${via}; ${r.reason ?? 'the registry publishes no expiry date'}`,
        details,
      };
    const when =
      r.days_until_expiry < 0
        ? `EXPIRED ${-r.days_until_expiry} day(s) ago`
        : `expires in ${r.days_until_expiry} day(s)`;
    return {
      check: 'registration',
      status,
      summary: `${target.domain} ${when} (${r.expiry_date})${who}${via}`,
      details,
    };
  }
  const what =
    kind === 'not_found'
      ? `${target.domain} is not registered`
      : kind === 'unsupported'
        ? 'no registration service to ask'
        : 'look-up failed';
  return { check: 'registration', status, summary: `${what}: ${r.reason ?? kind}`, details };
};

const dnsSecurity: CheckFn = async (target, run) => {
  if (target.kind === 'hostport' || !target.domain) return null;
  const s = (await run.name()).security;
  const status = securitySeverity(s.security_score, run.opts);
  const c = s.checks;
  const below = status === 'warning' ? ` (below ${run.opts.minSecurity})` : '';
  const failed = Object.keys(s.lookup_errors);
  const score = s.security_score === null ? 'score unknown' : `score ${s.security_score}/100${below}`;
  const summary =
    `${score}: spf ${c.spf}, dmarc ${c.dmarc}, dkim ${c.dkim}, caa ${c.caa}, dnssec ${onOff(s.dnssec_enabled)}, transfer lock ${onOff(s.transfer_lock)}` +
    (failed.length ? `; look-ups failed (unknown, not failed): ${failed.join(', ')}` : '');
  return { check: 'dns-security', status, summary, details: { domain: target.domain, ...s } };
};

const tls: CheckFn = async (target, run) => {
  if (!target.tls) return null;
  const r = await run.engine.tls(
    {
      endpoint_type: target.endpoint.endpoint_type,
      host: target.host,
      port: target.port,
      timeoutMs: run.opts.timeoutMs,
    },
    run.signal,
  );
  const status = tlsSeverity(r.ssl_status, r.days_until_expiry, run.opts);
  const base = { host: target.host, port: target.port, ssl_status: r.ssl_status };
  if (!r.result.ok)
    return {
      check: 'tls',
      status,
      summary: `TLS handshake failed: ${r.result.error}`,
      details: { ...base, error: r.result.error, reason: r.result.reason },
    };
  const { leaf, chain, ok: _ok, ...rest } = r.result;
  const earliest = r.earliest_expiry!;
  const details = {
    ...base,
    days_until_expiry: r.days_until_expiry,
    ...leaf,
    chain_length: chain.length,
    earliest_expiry: earliest,
    invalid_reason: r.invalid_reason,
    ...rest,
  };
  const days = r.days_until_expiry!;
  const when = earliest.not_after.slice(0, 10);
  const what = expiringWhat(earliest);
  const summary =
    r.ssl_status === 'expired'
      ? `${what} EXPIRED on ${when}`
      : r.ssl_status === 'invalid'
        ? `certificate invalid: ${r.invalid_reason ?? 'not yet valid'}`
        : `${what} expires in ${days} day(s) (${when}), ${r.ssl_status}`;
  return { check: 'tls', status, summary, details };
};

const liveness: CheckFn = async (target, run) => {
  const { expectedStatus, timeoutMs } = run.opts;
  const o = await run.engine.liveness(
    target.endpoint,
    { timeoutMs, expectedStatus: expectedStatus ?? 200 },
    run.signal,
  );
  // Expected HTTP statuses are for URLs with a path (http, https); other types succeed or fail on their own terms.
  const form = endpointShape(target.endpoint.endpoint_type).url;
  const up = form === 'web' ? livenessUp(o, expectedStatus) : o.ok;
  const where = target.url ? { url: target.url } : { host: target.host, port: target.port };
  // The probe asked for 200 when no status was expected; its error then says what this check accepts.
  const error = up
    ? null
    : form === 'web' && o.reason === 'status' && expectedStatus === null
      ? `HTTP ${o.statusCode} (expected 2xx or 3xx)`
      : o.error;
  const details = {
    ...where,
    probe: target.endpoint.endpoint_type,
    up,
    status_code: o.statusCode,
    response_time_ms: o.responseTimeMs,
    reason: up ? null : o.reason,
    error,
  };
  const summary = up ? pluginOf(target.endpoint.endpoint_type).upSummary(o, target.endpoint) : `down: ${error}`;
  return { check: 'liveness', status: up ? 'ok' : 'critical', summary, details };
};

const CHECKS = { registration, tls, 'dns-security': dnsSecurity, liveness } satisfies Record<CheckKind, CheckFn>;

export interface TargetReport {
  target: string;
  kind: Target['kind'];
  host: string;
  port: number;
  url: string | null;
  domain: string | null;
  status: Exclude<Severity, 'skipped'>;
  /** The daemon's health score, grade and overall status from what this run saw (null when nothing was checked), with the grade's reasons. */
  health: Pick<HealthResult, 'score' | 'grade' | 'overall_status' | 'reasons'>;
  checks: CheckResult[];
}

export interface CheckReport {
  status: 'healthy' | 'warning' | 'critical';
  exit_code: 0 | 1 | 2;
  checked_at: string;
  warn_days: number;
  crit_days: number;
  min_security: number;
  summary: Record<'ok' | 'warning' | 'critical', number>;
  targets: TargetReport[];
}

/** Health inputs from the checks' details: registration expiry, certificate status, security score, liveness. */
function health(checks: CheckResult[], now: Date): TargetReport['health'] {
  const d = (k: CheckKind) => checks.find((c) => c.check === k)?.details;
  const reg = d('registration');
  const cert = d('tls');
  const sec = d('dns-security');
  const live = d('liveness');
  const h = computeHealth(
    {
      expiry_date: (reg?.expiry_date as string | null | undefined) ?? null,
      certificates: cert ? [cert.ssl_status as string] : [],
      security_score: (sec?.security_score as number | undefined) ?? null,
      // One probe now is the whole sample: up counts as 100 % uptime.
      liveness: live ? [{ status: live.up ? 'up' : 'down', uptime_24h: live.up ? 100 : 0 }] : [],
      registration_cause: (reg?.reason as string | null | undefined) ?? (reg ? null : 'not checked in this run'),
      security_parts: (sec?.parts as SecurityPart[] | null | undefined) ?? null,
    },
    now,
  );
  return { score: h.score, grade: h.grade, overall_status: h.overall_status, reasons: h.reasons };
}

/** Rejects after ms; the timer never holds the process open. */
function within<T>(p: Promise<T>, ms: number, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not finish within ${Math.round(ms / 1000)} s`)), ms);
    timer.unref();
    const stop = () => clearTimeout(timer);
    signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
    p.then(
      (v) => {
        stop();
        resolve(v);
      },
      (e) => {
        stop();
        reject(e);
      },
    );
  });
}

interface RunOptions extends CheckOptions {
  now: () => Date;
  /** Targets checked at the same time. */
  concurrency?: number;
}

/**
 * Every kind over every target (a few targets at a time). Each check is bounded: TLS and liveness by
 * the step timeout, the registration look-up by its budget, and every check by 4 x the step timeout.
 */
export async function runChecks(
  targets: Target[],
  engine: CheckService,
  kinds: CheckKind[],
  o: RunOptions,
  signal: AbortSignal = new AbortController().signal,
): Promise<CheckReport> {
  const bound = 4 * o.timeoutMs;
  // Every check of every target in flight listens on this one signal (and its probes on their own ones).
  setMaxListeners((o.concurrency ?? 8) * (kinds.length + 1) * 4 + 16, signal);
  const reports = await mapLimit(targets, o.concurrency ?? 8, async (t): Promise<TargetReport> => {
    let name: Promise<NameCheck> | undefined;
    const run: TargetRun = { engine, opts: o, signal, name: () => (name ??= engine.checkName(t.domain!)) };
    const results = await Promise.all(
      kinds.map(async (k) => {
        try {
          return await within(CHECKS[k](t, run), bound, signal);
        } catch (err) {
          // A check that throws or overruns is reported, never a crash of the run: a name look-up that
          // did not finish says nothing is known (warning); a probe that did not is down (critical).
          const status = k === 'registration' || k === 'dns-security' ? 'warning' : 'critical';
          return {
            check: k,
            status,
            summary: `check failed: ${(err as Error).message}`,
            details: {},
          } satisfies CheckResult;
        }
      }),
    );
    const checks = results.filter((r): r is CheckResult => r !== null);
    const s = worst(checks.map((c) => c.status));
    return {
      target: t.input,
      kind: t.kind,
      host: t.host,
      port: t.port,
      url: t.url,
      domain: t.domain,
      status: s === 'skipped' ? 'ok' : s,
      health: health(checks, o.now()),
      checks,
    };
  });
  const overall = worst(reports.map((r) => r.status));
  const summary = { ok: 0, warning: 0, critical: 0 };
  for (const r of reports) summary[r.status]++;
  return {
    status: overall === 'critical' ? 'critical' : overall === 'warning' ? 'warning' : 'healthy',
    exit_code: exitCode(overall),
    checked_at: o.now().toISOString(),
    warn_days: o.warnDays,
    crit_days: o.critDays,
    min_security: o.minSecurity,
    summary,
    targets: reports,
  };
}

export * from './types.js';
