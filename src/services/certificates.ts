// TLS inspection of endpoints: inspect (probes/tls), store the latest state and the certificate
// history, and raise `ssl_expiry` events in the same transaction: expiry windows 30/14/7/1 (once
// per window per certificate), expired, became invalid, renewed or issuer changed.
import { isoNow, daysUntil, type Clock } from '../domain/clock.js';
import {
  chainOf,
  earliestExpiry,
  expiringWhat,
  expiryOf,
  expiryWindow,
  invalidReason,
  sslStatus,
  windowSeverity,
  type CertificateState,
  type TlsResult,
} from '../domain/certificate.js';
import { effectivePort, fullUrl, hostOf, wantsTls } from '../domain/endpoint.js';
import { NotFound } from '../domain/errors.js';
import type { Endpoint, EndpointType, NewEvent } from '../domain/types.js';
import type { Store } from '../store/index.js';
import type { Logger } from 'pino';
import type { HealthHook } from './deps.js';
import { eachLimit } from '../domain/concurrency.js';

/** One TLS inspection of an endpoint type's host:port (its plug-in's, with STARTTLS where it has one; probes/registry.ts). */
type TlsInspector = (
  target: { endpoint_type: EndpointType; host: string; port: number; timeoutMs: number },
  signal: AbortSignal,
) => Promise<TlsResult>;

interface CertificateServiceDeps {
  store: Store;
  clock: Clock;
  inspect: TlsInspector;
  /** Seconds between two inspections of one endpoint (DOMMON_CHECK_INTERVAL). */
  checkInterval: number;
  /** Parallel handshakes in one cycle. */
  concurrency?: number;
  log?: Pick<Logger, 'warn'>;
  /** Counts inspections by resulting ssl_status (dommon_checks_total{kind="tls"}). */
  metrics?: { check(kind: string, outcome: string): void };
  /** Stores the domain's new health in the inspection's transaction. */
  recomputeHealth?: HealthHook;
}

/**
 * How long a cycle's lease on an endpoint's inspection lasts (ms): longer than any handshake (the
 * endpoint's timeout, at most 300 s), so a node that died mid-inspection hands it on after that.
 */
const TLS_LEASE_MS = 330_000;

export function createCertificateService(deps: CertificateServiceDeps) {
  const { store, clock, inspect } = deps;
  const concurrency = deps.concurrency ?? 8;
  // Endpoints never inspected are looked for only when the endpoints table changed (a scan); due ones by index.
  let endpointsStamp: string | null = null;

  /** Stores one inspection result and its events in one transaction; returns the new state. */
  async function record(e: Endpoint, r: TlsResult): Promise<CertificateState> {
    const now = clock.now();
    const nowIso = now.toISOString();
    const next = new Date(now.getTime() + deps.checkInterval * 1000).toISOString();
    const status = sslStatus(r, now);
    return store.transaction(async (tx) => {
      // The endpoint may have been deleted (or stopped speaking TLS) while its handshake ran.
      const current = await tx.endpoints.byId(e.id);
      if (!current || !wantsTls(current)) return emptyState(e.id);
      const prev = await tx.certificates.get(e.id);
      const events: NewEvent[] = [];
      const url = fullUrl(e);
      const base = { team_id: e.team_id, event_type: 'ssl_expiry', domain_id: e.domain_id, endpoint_id: e.id };
      let state: CertificateState;
      if (!r.ok) {
        // A failed handshake keeps the last certificate's details (dates, issuer) for the views.
        state = {
          ...(prev ?? emptyState(e.id)),
          endpoint_id: e.id,
          ssl_status: 'error',
          error: r.error,
          checked_at: nowIso,
          next_check_at: next,
        };
      } else {
        const leaf = r.leaf;
        const fp = leaf.fingerprint256;
        // Expiry follows the chain's earliest notAfter: an intermediate may expire before the leaf.
        const earliest = expiryOf(r);
        const what = expiringWhat(earliest);
        const details = {
          url,
          subject: leaf.subject,
          issuer: leaf.issuer,
          not_after: earliest.not_after,
          fingerprint256: fp,
          serial: leaf.serial,
          days_until_expiry: daysUntil(earliest.not_after, now),
          ssl_status: status,
          earliest_expiry: earliest,
        };
        // Windows and expiry are raised once per certificate that expires (the leaf, or the intermediate).
        const efp = earliest.fingerprint256;
        const chain = chainOf(r);
        const isNew = await tx.certificates.seen(e.id, leaf, nowIso, chain);
        if (prev?.fingerprint256 && prev.fingerprint256 !== fp && isNew) {
          const issuerChanged = prev.issuer !== leaf.issuer;
          events.push({
            ...base,
            severity: issuerChanged ? 'medium' : 'info',
            category: issuerChanged ? 'issuer_changed' : 'certificate_renewed',
            message: issuerChanged
              ? `${e.name} (${url}) now serves a certificate from a different issuer: ${leaf.issuer} (was ${prev.issuer})`
              : `${e.name} (${url}) certificate was renewed; it now expires ${leaf.not_after.slice(0, 10)}`,
            details: {
              ...details,
              previous_fingerprint256: prev.fingerprint256,
              previous_issuer: prev.issuer,
              previous_not_after: prev.not_after,
            },
            dedupe_key: `ssl:${e.id}:${fp}:new`,
          });
        }
        const window = status === 'expired' ? null : expiryWindow(earliest.not_after, now);
        if (status === 'expired') {
          events.push({
            ...base,
            severity: 'critical',
            category: 'certificate_expired',
            message: `${e.name} (${url}) ${what} EXPIRED on ${earliest.not_after.slice(0, 10)}`,
            details,
            dedupe_key: `ssl:${e.id}:${efp}:expired`,
          });
        } else if (window !== null) {
          events.push({
            ...base,
            severity: windowSeverity(window),
            category: 'certificate_expiring',
            message: `${e.name} (${url}) ${what} expires in ${details.days_until_expiry} day(s) (${earliest.not_after.slice(0, 10)})`,
            details: { ...details, window_days: window },
            dedupe_key: `ssl:${e.id}:${efp}:w${window}`,
          });
        }
        if (status === 'invalid' && prev?.ssl_status !== 'invalid') {
          const why = invalidReason(r) ?? 'certificate not yet valid';
          events.push({
            ...base,
            severity: 'high',
            category: 'certificate_invalid',
            message: `${e.name} (${url}) certificate is INVALID: ${why}`,
            details: {
              ...details,
              reason: why,
              trusted: r.trusted,
              self_signed: r.self_signed,
              hostname_match: r.hostname_match,
              authorization_error: r.authorization_error,
            },
            dedupe_key: null,
          });
        }
        state = {
          endpoint_id: e.id,
          ssl_status: status,
          subject: leaf.subject,
          issuer: leaf.issuer,
          sans: leaf.sans,
          not_before: leaf.not_before,
          not_after: earliest.not_after,
          serial: leaf.serial,
          fingerprint256: fp,
          protocol: r.protocol,
          trusted: r.trusted,
          hostname_match: r.hostname_match,
          error: status === 'invalid' ? invalidReason(r) : null,
          alerted_window: window ?? (status === 'expired' ? 0 : null),
          checked_at: nowIso,
          next_check_at: next,
          chain,
        };
      }
      await tx.certificates.save(state);
      await tx.certificates.schedule(e.id, next, nowIso, state.ssl_status);
      for (const ev of events) await tx.events.add(ev, nowIso);
      // Health reads only the ssl_status: a re-inspection that keeps it costs nothing more.
      if (prev?.ssl_status !== state.ssl_status) await deps.recomputeHealth?.(tx, current.domain_id);
      return state;
    });
  }

  async function check(e: Endpoint, signal: AbortSignal = new AbortController().signal): Promise<CertificateState> {
    const r = await inspect(
      { endpoint_type: e.endpoint_type, host: hostOf(e), port: effectivePort(e), timeoutMs: e.timeout_seconds * 1000 },
      signal,
    );
    // Cancelled by shutdown: nothing was learnt, nothing is written.
    if (!r.ok && r.reason === 'cancelled') return (await store.certificates.get(e.id)) ?? emptyState(e.id);
    const state = await record(e, r);
    deps.metrics?.check('tls', state.ssl_status);
    return state;
  }

  return {
    record,
    check,

    /** Inspects one endpoint of the team now (extension: check-now). */
    async checkNow(teamId: string, endpointId: string): Promise<CertificateState> {
      const e = await store.endpoints.get(teamId, endpointId);
      if (!e) throw new NotFound('Endpoint');
      if (!wantsTls(e)) return { ...emptyState(e.id), ssl_status: 'unknown' };
      return check(e);
    },

    /**
     * The endpoint's current certificate (null before the first inspection, or when it speaks no TLS)
     * with the chain the server sent (leaf first), and every certificate seen on it, newest first, each
     * with the chain it was last seen with; `change` says how each one differs from the
     * one seen before it: `first`, `renewed` (same issuer) or `issuer_changed`.
     */
    async history(teamId: string, endpointId: string) {
      const e = await store.endpoints.get(teamId, endpointId);
      if (!e) throw new NotFound('Endpoint');
      const cur = wantsTls(e) ? await store.certificates.get(e.id) : undefined;
      const seen = await store.certificates.history(e.id);
      const current = cur && {
        ssl_status: cur.ssl_status,
        subject: cur.subject,
        issuer: cur.issuer,
        sans: cur.sans,
        not_before: cur.not_before,
        not_after: cur.not_after,
        days_until_expiry: cur.not_after ? daysUntil(cur.not_after, clock.now()) : null,
        earliest_expiry: earliestExpiry(cur.chain),
        serial: cur.serial,
        fingerprint256: cur.fingerprint256,
        protocol: cur.protocol,
        trusted: cur.trusted,
        hostname_match: cur.hostname_match,
        error: cur.error,
        checked_at: cur.checked_at,
        next_check_at: cur.next_check_at,
        chain: cur.chain,
      };
      const history = seen.map((h, i) => {
        const before = seen[i + 1];
        const change = !before ? 'first' : before.issuer === h.issuer ? 'renewed' : 'issuer_changed';
        return { ...h, change };
      });
      return { endpoint_id: e.id, current: current ?? null, history };
    },

    /** One worker cycle: every eligible endpoint never inspected or due, a few handshakes at a time. */
    async cycle(signal: AbortSignal = new AbortController().signal, limit = 200): Promise<number> {
      const stamp = store.readStamp('endpointSet');
      const includeNew = stamp !== endpointsStamp;
      const now = clock.now();
      const due = await store.certificates.due(now.toISOString(), limit, { includeNew });
      // Look for new ones again next cycle if this one may not have taken them all.
      if (includeNew && due.length < limit) endpointsStamp = stamp;
      // Several nodes on one database: each inspects only the endpoints it leased (the others skip them).
      const until = new Date(now.getTime() + TLS_LEASE_MS).toISOString();
      const ids = await store.schedule.lease('tls', due, now.toISOString(), until);
      let done = 0;
      await eachLimit(
        ids,
        concurrency,
        async (id) => {
          const e = await store.endpoints.byId(id);
          if (!e || !wantsTls(e)) return;
          try {
            await check(e, signal);
            done++;
          } catch (err) {
            // One endpoint's failure (a write conflict, a bug) never stops the others' inspection.
            deps.log?.warn({ endpoint_id: id, err: { message: (err as Error).message } }, 'tls inspection failed');
            await store.certificates
              .schedule(
                id,
                new Date(clock.now().getTime() + deps.checkInterval * 1000).toISOString(),
                isoNow(clock),
                'error',
              )
              .catch(() => undefined);
          }
        },
        () => signal.aborted,
      );
      return done;
    },

    forgetIneligible: () => store.certificates.forgetIneligible(),
  };
}

function emptyState(endpointId: string): CertificateState {
  return {
    endpoint_id: endpointId,
    ssl_status: 'unknown',
    subject: null,
    issuer: null,
    sans: [],
    not_before: null,
    not_after: null,
    serial: null,
    fingerprint256: null,
    protocol: null,
    trusted: null,
    hostname_match: null,
    error: null,
    alerted_window: null,
    checked_at: null,
    next_check_at: null,
    chain: [],
  };
}

export type CertificateService = ReturnType<typeof createCertificateService>;
