// TLS inspection state per endpoint, every certificate seen on it, and the `tls` rows of check_schedule.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { CertificateInfo, CertificateState, ChainCertificate, SslStatus } from '../../domain/certificate.js';
import { certificateTypes, TLS_PORTS } from '../../domain/endpoint.js';
import { fromBool, newId, parseJson, toBool } from './util.js';

interface HistoryEntry {
  fingerprint256: string;
  subject: string | null;
  issuer: string | null;
  not_before: string | null;
  not_after: string | null;
  first_seen: string;
  last_seen: string;
  /** The chain this certificate was last seen with, leaf first (empty when seen before migration 012 only). */
  chain: ChainCertificate[];
}

const KIND = 'tls';

/** The endpoint types' certificate rule (domain/endpoint.ts) as SQL: types always inspected, or on a TLS port. */
const speaksTls = (w: ExpressionBuilder<DB & { e: DB['endpoints'] }, 'e'>) => {
  const { always, onTlsPorts } = certificateTypes();
  return w.or([
    ...(always.length ? [w('e.endpoint_type', 'in', always)] : []),
    ...(onTlsPorts.length ? [w.and([w('e.endpoint_type', 'in', onTlsPorts), w('e.port', 'in', [...TLS_PORTS])])] : []),
  ]);
};

export function certificatesRepo(db: Kysely<DB>) {
  /** Endpoints that get TLS inspection: enabled ones whose type always carries a certificate, or on a TLS port. */
  const eligible = () => db.selectFrom('endpoints as e').where('e.is_enabled', '=', 1).where(speaksTls);
  return {
    async get(endpointId: string): Promise<CertificateState | undefined> {
      const r = await db
        .selectFrom('endpoint_certificates')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .executeTakeFirst();
      if (!r) return undefined;
      return {
        ...r,
        ssl_status: r.ssl_status as SslStatus,
        sans: parseJson<string[]>(r.sans, []),
        trusted: r.trusted === null ? null : toBool(r.trusted),
        hostname_match: r.hostname_match === null ? null : toBool(r.hostname_match),
        chain: parseJson<ChainCertificate[]>(r.chain, []),
      };
    },
    async save(s: CertificateState): Promise<void> {
      const row = {
        ssl_status: s.ssl_status,
        subject: s.subject,
        issuer: s.issuer,
        sans: JSON.stringify(s.sans),
        not_before: s.not_before,
        not_after: s.not_after,
        serial: s.serial,
        fingerprint256: s.fingerprint256,
        protocol: s.protocol,
        trusted: s.trusted === null ? null : fromBool(s.trusted),
        hostname_match: s.hostname_match === null ? null : fromBool(s.hostname_match),
        error: s.error,
        alerted_window: s.alerted_window,
        checked_at: s.checked_at,
        next_check_at: s.next_check_at,
        chain: JSON.stringify(s.chain),
      };
      await db
        .insertInto('endpoint_certificates')
        .values({ endpoint_id: s.endpoint_id, ...row })
        .onConflict((oc) => oc.column('endpoint_id').doUpdateSet(row))
        .execute();
    },
    /** Records a sighting with the chain it came with; true when this certificate was never seen on the endpoint before. */
    async seen(endpointId: string, c: CertificateInfo, now: string, chain: ChainCertificate[] = []): Promise<boolean> {
      const json = JSON.stringify(chain);
      const r = await db
        .updateTable('certificate_history')
        .set({ last_seen: now, chain: json })
        .where('endpoint_id', '=', endpointId)
        .where('fingerprint256', '=', c.fingerprint256)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) > 0) return false;
      await db
        .insertInto('certificate_history')
        .values({
          id: newId(),
          endpoint_id: endpointId,
          fingerprint256: c.fingerprint256,
          subject: c.subject,
          issuer: c.issuer,
          not_before: c.not_before,
          not_after: c.not_after,
          first_seen: now,
          last_seen: now,
          chain: json,
        })
        .execute();
      return true;
    },
    async history(endpointId: string): Promise<HistoryEntry[]> {
      const rows = await db
        .selectFrom('certificate_history')
        .select(['fingerprint256', 'subject', 'issuer', 'not_before', 'not_after', 'first_seen', 'last_seen', 'chain'])
        .where('endpoint_id', '=', endpointId)
        .orderBy('first_seen', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map((r) => ({ ...r, chain: parseJson<ChainCertificate[]>(r.chain, []) }));
    },
    /** Eligible endpoints due for inspection: never inspected (new) first, then by next_run_at. */
    async due(nowIso: string, limit: number, opts: { includeNew?: boolean } = {}): Promise<string[]> {
      const fresh =
        opts.includeNew === false
          ? []
          : await eligible()
              .select('e.id')
              .where(({ not, exists, selectFrom }) =>
                not(
                  exists(
                    selectFrom('check_schedule as s')
                      .select('s.target_id')
                      .where('s.kind', '=', KIND)
                      .whereRef('s.target_id', '=', 'e.id'),
                  ),
                ),
              )
              .limit(limit)
              .execute();
      if (fresh.length >= limit) return fresh.map((r) => r.id);
      const due = await db
        .selectFrom('check_schedule as s')
        .innerJoin('endpoints as e', 'e.id', 's.target_id')
        .select('s.target_id as id')
        .where('s.kind', '=', KIND)
        .where('s.next_run_at', '<=', nowIso)
        // Not leased by a run in progress (another node's: services/certificates.ts cycle).
        .where((w) => w.or([w('s.lease_until', 'is', null), w('s.lease_until', '<', nowIso)]))
        .where('e.is_enabled', '=', 1)
        .orderBy('s.next_run_at')
        .limit(limit - fresh.length)
        .execute();
      return [...fresh.map((r) => r.id), ...due.map((r) => r.id)];
    },
    async schedule(endpointId: string, nextIso: string, lastIso: string, outcome: string): Promise<void> {
      const row = { next_run_at: nextIso, last_run_at: lastIso, last_outcome: outcome, lease_until: null };
      await db
        .insertInto('check_schedule')
        .values({ kind: KIND, target_id: endpointId, ...row })
        .onConflict((oc) => oc.columns(['kind', 'target_id']).doUpdateSet(row))
        .execute();
    },
    /** Drops schedule rows and certificate state of endpoints that are gone or no longer speak TLS. */
    async forgetIneligible(): Promise<number> {
      const keep = eligible().select('e.id');
      const r = await db
        .deleteFrom('check_schedule')
        .where('kind', '=', KIND)
        .where('target_id', 'not in', keep)
        .executeTakeFirst();
      await db
        .deleteFrom('endpoint_certificates')
        .where('endpoint_id', 'not in', db.selectFrom('endpoints as e').select('e.id').where(speaksTls))
        .execute();
      return Number(r.numDeletedRows);
    },
    /** For tests and benches: pretend every endpoint is due now. */
    async makeAllDue(nowIso: string): Promise<void> {
      await db.updateTable('check_schedule').set({ next_run_at: nowIso }).where('kind', '=', KIND).execute();
    },
  };
}
