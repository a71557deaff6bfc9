// Each domain's delegation as the nameserver watch last saw it at the parent zone's servers.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type { DelegationState } from '../../domain/delegation.js';
import { parseJson } from './util.js';

export function delegationsRepo(db: Kysely<DB>) {
  return {
    async get(domainId: string): Promise<DelegationState | undefined> {
      const r = await db
        .selectFrom('domain_delegations')
        .selectAll()
        .where('domain_id', '=', domainId)
        .executeTakeFirst();
      if (!r) return undefined;
      return {
        ...r,
        nameservers: r.nameservers === null ? null : parseJson<string[]>(r.nameservers, []),
        ds: r.ds === null ? null : parseJson<string[]>(r.ds, []),
      };
    },
    async save(s: DelegationState): Promise<void> {
      const row = {
        zone: s.zone,
        parent_zone: s.parent_zone,
        nameservers: s.nameservers === null ? null : JSON.stringify(s.nameservers),
        ds: s.ds === null ? null : JSON.stringify(s.ds),
        checked_at: s.checked_at,
        changed_at: s.changed_at,
        error: s.error,
        error_at: s.error_at,
      };
      await db
        .insertInto('domain_delegations')
        .values({ domain_id: s.domain_id, ...row })
        .onConflict((oc) => oc.column('domain_id').doUpdateSet(row))
        .execute();
    },
    /** A renamed domain's delegation belongs to the old name. */
    async remove(domainId: string): Promise<void> {
      await db.deleteFrom('domain_delegations').where('domain_id', '=', domainId).execute();
    },
  };
}
