// Latest registration (RDAP/WHOIS) state per domain and the history of what changed.
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import type {
  Registration,
  RegistrationChange,
  RegistrationSource,
  RegistrationState,
} from '../../domain/registration.js';
import { fromBool, newId, parseJson, toBool } from './util.js';

interface HistoryEntry {
  id: string;
  field: string;
  old_value: string | null;
  new_value: string | null;
  observed_at: string;
}

export function registrationsRepo(db: Kysely<DB>) {
  return {
    async get(domainId: string): Promise<Registration | undefined> {
      const r = await db
        .selectFrom('domain_registrations')
        .selectAll()
        .where('domain_id', '=', domainId)
        .executeTakeFirst();
      if (!r) return undefined;
      return {
        domain_id: r.domain_id,
        source: r.source as RegistrationSource | null,
        state: r.state as RegistrationState,
        reason: r.reason,
        registrar: r.registrar,
        expiry_date: r.expiry_date,
        creation_date: r.creation_date,
        updated_date: r.updated_date,
        nameservers: parseJson<string[]>(r.nameservers, []),
        statuses: parseJson<string[]>(r.statuses, []),
        transfer_lock: r.transfer_lock === null ? null : toBool(r.transfer_lock),
        dnssec_signed: r.dnssec_signed === null ? null : toBool(r.dnssec_signed),
        checked_at: r.checked_at,
        next_check_at: r.next_check_at,
      };
    },
    /** The stored expiry date alone (what a `[DOMAIN_EXPIRATION]` condition reads: one read by the key). */
    async expiryDate(domainId: string): Promise<string | null> {
      const r = await db
        .selectFrom('domain_registrations')
        .select('expiry_date')
        .where('domain_id', '=', domainId)
        .executeTakeFirst();
      return r?.expiry_date ?? null;
    },
    async save(reg: Registration): Promise<void> {
      const row = {
        source: reg.source,
        state: reg.state,
        reason: reg.reason,
        registrar: reg.registrar,
        expiry_date: reg.expiry_date,
        creation_date: reg.creation_date,
        updated_date: reg.updated_date,
        nameservers: JSON.stringify(reg.nameservers),
        statuses: JSON.stringify(reg.statuses),
        transfer_lock: reg.transfer_lock === null ? null : fromBool(reg.transfer_lock),
        dnssec_signed: reg.dnssec_signed === null ? null : fromBool(reg.dnssec_signed),
        checked_at: reg.checked_at,
        next_check_at: reg.next_check_at,
      };
      await db
        .insertInto('domain_registrations')
        .values({ domain_id: reg.domain_id, ...row })
        .onConflict((oc) => oc.column('domain_id').doUpdateSet(row))
        .execute();
    },
    /** Forgets the registration data (the domain was renamed); history stays. */
    async remove(domainId: string): Promise<void> {
      await db.deleteFrom('domain_registrations').where('domain_id', '=', domainId).execute();
    },
    async addHistory(domainId: string, changes: RegistrationChange[], at: string): Promise<void> {
      if (!changes.length) return;
      await db
        .insertInto('registration_history')
        .values(
          changes.map((c) => ({
            id: newId(),
            domain_id: domainId,
            field: c.field,
            old_value: c.old_value,
            new_value: c.new_value,
            observed_at: at,
          })),
        )
        .execute();
    },
    async history(domainId: string, limit = 50): Promise<HistoryEntry[]> {
      return db
        .selectFrom('registration_history')
        .select(['id', 'field', 'old_value', 'new_value', 'observed_at'])
        .where('domain_id', '=', domainId)
        .orderBy('observed_at', 'desc')
        .limit(limit)
        .execute();
    },
  };
}
