// Latest DNS-security check results per domain.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { CheckValue, SecurityRecord } from '../../domain/security.js';
import { fromBool, parseJson, toBool } from './util.js';

export function securityRepo(db: Kysely<DB>) {
  return {
    async get(domainId: string): Promise<SecurityRecord | undefined> {
      const r = await db.selectFrom('domain_security').selectAll().where('domain_id', '=', domainId).executeTakeFirst();
      if (!r || !r.checked_at) return undefined;
      return {
        domain_id: r.domain_id,
        spf: (r.spf ?? 'fail') as CheckValue,
        dmarc: (r.dmarc ?? 'fail') as CheckValue,
        dkim: (r.dkim ?? 'fail') as CheckValue,
        caa: (r.caa ?? 'fail') as CheckValue,
        dnssec_enabled: r.dnssec_enabled === null ? null : toBool(r.dnssec_enabled),
        security_score: r.security_score,
        details: parseJson<Record<string, unknown>>(r.details, {}),
        recommendations: parseJson<string[]>(r.recommendations, []),
        checked_at: r.checked_at,
        next_check_at: r.next_check_at,
      };
    },
    /** domain_id -> security score of every checked domain (health sweep). */
    async scores(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('domain_security')
        .select(['domain_id', 'security_score'])
        .where('security_score', 'is not', null)
        .execute();
      return new Map(rows.map((r) => [r.domain_id, r.security_score!]));
    },
    /** The score of each of these domains' stored check (health input; as `get` sees it), at most 500 ids. */
    async scoresOf(domainIds: readonly string[]): Promise<Map<string, number>> {
      if (!domainIds.length) return new Map();
      const rows = await db
        .selectFrom('domain_security')
        .select(['domain_id', 'security_score'])
        .where('domain_id', 'in', domainIds)
        .where('security_score', 'is not', null)
        .where('checked_at', 'is not', null)
        .execute();
      return new Map(rows.map((r) => [r.domain_id, r.security_score!]));
    },
    async remove(domainId: string): Promise<void> {
      await db.deleteFrom('domain_security').where('domain_id', '=', domainId).execute();
    },
    async save(s: SecurityRecord): Promise<void> {
      const row = {
        spf: s.spf,
        dmarc: s.dmarc,
        dkim: s.dkim,
        caa: s.caa,
        dnssec_enabled: s.dnssec_enabled === null ? null : fromBool(s.dnssec_enabled),
        security_score: s.security_score,
        details: JSON.stringify(s.details),
        recommendations: JSON.stringify(s.recommendations),
        checked_at: s.checked_at,
        next_check_at: s.next_check_at,
      };
      await db
        .insertInto('domain_security')
        .values({ domain_id: s.domain_id, ...row })
        .onConflict((oc) => oc.column('domain_id').doUpdateSet(row))
        .execute();
    },
  };
}
