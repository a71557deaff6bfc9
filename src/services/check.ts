// One-shot checks without a database (what `dommon check` runs): the daemon's registration look-up,
// DNS-security evaluation, TLS inspection with its ssl_status rules, and the liveness probe registry,
// with the results returned instead of stored.
import { daysUntil, type Clock } from '../domain/clock.js';
import { expiryOf, invalidReason, sslStatus } from '../domain/certificate.js';
import { computeHealth } from '../domain/health.js';
import { registrableDomain } from '../domain/domain-name.js';
import { securityParts } from '../domain/security.js';
import type { UrlParts } from '../domain/endpoint.js';
import type { EndpointType } from '../domain/types.js';
import { inspectTls, pluginOf, type ProbeDeps, type ProbeOutcome } from '../probes/index.js';
import type { RegistrationLookup } from './registration.js';
import type { SecurityEvaluator } from './security.js';

interface NameCheckDeps {
  clock: Clock;
  lookup: RegistrationLookup['lookup'];
  evaluate: SecurityEvaluator;
}

/**
 * Registration look-up and DNS security of a name's registrable domain, and the health they give
 * (the caller adds certificate statuses it knows of). Used by the daemon's services and by `dommon check`.
 */
export function createNameCheck(deps: NameCheckDeps) {
  return async function checkName(input: string, certificates: string[] = []) {
    const { clock } = deps;
    const name = registrableDomain(input) ?? input;
    const reg = await deps.lookup(name);
    const data = reg.kind === 'ok' ? reg.data : null;
    const sec = await deps.evaluate(
      name,
      [],
      data ? { ...data, source: reg.kind === 'ok' ? reg.source : null } : undefined,
      {},
      clock.now().toISOString(),
    );
    const now = clock.now();
    const parts = securityParts(sec.details);
    const health = computeHealth(
      {
        expiry_date: data?.expiry_date ?? null,
        certificates,
        security_score: sec.security_score,
        liveness: [],
        registration_cause: reg.reason ?? null,
        security_parts: parts,
      },
      now,
    );
    return {
      domain: name,
      registration: {
        state: reg.kind === 'ok' ? 'ok' : reg.kind === 'unsupported' ? 'unsupported' : 'error',
        /** The look-up's own outcome (ok, not_found, rate_limited, error, unsupported). */
        outcome: reg.kind,
        reason: reg.kind === 'ok' ? (reg.reason ?? null) : reg.reason,
        source: reg.kind === 'unsupported' ? null : reg.source,
        ...(data ?? {}),
        days_until_expiry: data?.expiry_date ? daysUntil(data.expiry_date, now) : null,
        attempts: reg.attempts,
      },
      security: {
        transfer_lock: sec.transfer_lock,
        dnssec_enabled: sec.dnssec.enabled,
        security_score: sec.security_score,
        checks: { spf: sec.spf.status, dmarc: sec.dmarc.status, dkim: sec.dkim.status, caa: sec.caa.status },
        recommendations: sec.recommendations,
        dnssec: sec.dnssec.status,
        lookup_errors: (sec.details as { lookup_errors?: Record<string, string> }).lookup_errors ?? {},
        /** Each check's result, what the score counted and why (the grade's reasons read them). */
        parts,
      },
      health_score: health.score,
      health_grade: health.grade,
      overall_status: health.overall_status,
      health_reasons: health.reasons,
    };
  };
}

export type NameCheck = Awaited<ReturnType<ReturnType<typeof createNameCheck>>>;

/** The whole one-shot engine: name checks plus TLS inspection and liveness probes of network targets. */
export function createCheckService(deps: NameCheckDeps & { probes: ProbeDeps }) {
  const { clock, probes } = deps;
  return {
    checkName: createNameCheck(deps),

    /** One inspection (the endpoint type's, after STARTTLS where it has one), classified as the daemon classifies endpoint certificates (ssl_status). */
    async tls(
      target: { endpoint_type?: EndpointType; host: string; port: number; timeoutMs: number },
      signal: AbortSignal,
    ) {
      const inspect = (target.endpoint_type && pluginOf(target.endpoint_type).inspect) || inspectTls;
      const result = await inspect(
        { host: target.host, port: target.port, timeoutMs: target.timeoutMs },
        probes,
        signal,
      );
      const now = clock.now();
      const earliest = result.ok ? expiryOf(result) : null;
      return {
        result,
        ssl_status: sslStatus(result, now),
        /** The chain's earliest-expiring certificate, whose date the status and the days follow. */
        earliest_expiry: earliest,
        days_until_expiry: earliest ? daysUntil(earliest.not_after, now) : null,
        invalid_reason: result.ok ? invalidReason(result) : null,
      };
    },

    /** The liveness probe of the target's endpoint type (its plug-in in src/probes/), as the scheduler runs it. */
    liveness(
      target: UrlParts,
      o: { timeoutMs: number; expectedStatus: number },
      signal: AbortSignal,
    ): Promise<ProbeOutcome> {
      return pluginOf(target.endpoint_type).liveness(
        target,
        { timeout_seconds: o.timeoutMs / 1000, expected_status_code: o.expectedStatus },
        probes,
        signal,
      );
    },
  };
}

export type CheckService = ReturnType<typeof createCheckService>;
