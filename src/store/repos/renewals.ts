// Renewal queries: domain registrations and endpoint certificates ordered by expiry date, filtered
// by date range and by status (expired / expiring soon / active) in SQL so pagination stays exact.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../schema.js';
import type { Page, RenewalStatus } from '../../domain/types.js';
import { earliestExpiry, type ChainCertificate, type EarliestExpiry } from '../../domain/certificate.js';
import { parseJson } from './util.js';

interface RenewalWindow {
  /** YYYY-MM-DD bounds on the expiry date (inclusive). */
  from?: string;
  to?: string;
  status?: RenewalStatus;
  /** Today and today + the "expiring soon" horizon, YYYY-MM-DD. */
  today: string;
  soon: string;
}

interface DomainRenewalRow {
  domain_id: string;
  domain: string;
  expiry: string;
  manual: number;
  registrar: string | null;
}

interface CertificateRenewalRow {
  endpoint_id: string;
  endpoint_name: string;
  endpoint_type: string;
  subdomain: string | null;
  path: string | null;
  port: number | null;
  domain_id: string;
  domain: string;
  expiry: string;
  issuer: string | null;
  ssl_status: string;
  /** The certificate of the stored chain whose notAfter `expiry` is (null before the chain was recorded). */
  expiring: EarliestExpiry | null;
}

function conditions(expr: RawBuilder<string>, w: RenewalWindow): RawBuilder<unknown>[] {
  const out: RawBuilder<unknown>[] = [sql`${expr} is not null`];
  if (w.from) out.push(sql`${expr} >= ${w.from}`);
  if (w.to) out.push(sql`${expr} <= ${w.to}`);
  if (w.status === 'expired') out.push(sql`${expr} < ${w.today}`);
  if (w.status === 'expiring_soon') out.push(sql`${expr} >= ${w.today} and ${expr} <= ${w.soon}`);
  if (w.status === 'active') out.push(sql`${expr} > ${w.soon}`);
  return out;
}

const and = (parts: RawBuilder<unknown>[]) => sql.join(parts, sql` and `);

export function renewalsRepo(db: Kysely<DB>) {
  return {
    async domains(teamId: string, w: RenewalWindow, page: Page): Promise<{ items: DomainRenewalRow[]; total: number }> {
      const expiry = sql<string>`coalesce(d.expiry_override, r.expiry_date)`;
      const where = and([sql`d.team_id = ${teamId}`, ...conditions(expiry, w)]);
      const from = sql`domains d left join domain_registrations r on r.domain_id = d.id`;
      const total = await sql<{ n: number }>`select count(*) as n from ${from} where ${where}`.execute(db);
      const rows = await sql<DomainRenewalRow>`select d.id as domain_id, d.domain as domain, ${expiry} as expiry,
          (d.expiry_override is not null) as manual, r.registrar as registrar
        from ${from} where ${where} order by ${expiry}, d.domain limit ${page.limit} offset ${page.offset}`.execute(db);
      return { items: rows.rows, total: Number(total.rows[0]?.n ?? 0) };
    },
    async certificates(
      teamId: string,
      w: RenewalWindow,
      page: Page,
    ): Promise<{ items: CertificateRenewalRow[]; total: number }> {
      const expiry = sql<string>`substr(c.not_after, 1, 10)`;
      const where = and([sql`e.team_id = ${teamId}`, ...conditions(expiry, w)]);
      const from = sql`endpoint_certificates c join endpoints e on e.id = c.endpoint_id join domains d on d.id = e.domain_id`;
      const total = await sql<{ n: number }>`select count(*) as n from ${from} where ${where}`.execute(db);
      const rows = await sql<
        Omit<CertificateRenewalRow, 'expiring'> & { chain: string | null }
      >`select e.id as endpoint_id, e.name as endpoint_name, e.endpoint_type as endpoint_type,
          e.subdomain as subdomain, e.path as path, e.port as port, d.id as domain_id, d.domain as domain, ${expiry} as expiry,
          c.issuer as issuer, c.ssl_status as ssl_status, c.chain as chain
        from ${from} where ${where} order by ${expiry}, d.domain, e.name limit ${page.limit} offset ${page.offset}`.execute(
        db,
      );
      const items = rows.rows.map(({ chain, ...r }) => ({
        ...r,
        expiring: earliestExpiry(parseJson<ChainCertificate[]>(chain, [])),
      }));
      return { items, total: Number(total.rows[0]?.n ?? 0) };
    },
    /** Certificate status of every enabled endpoint, by domain (health sweep). */
    async allCertificates(): Promise<Map<string, string[]>> {
      const rows = await db
        .selectFrom('endpoint_certificates as c')
        .innerJoin('endpoints as e', 'e.id', 'c.endpoint_id')
        .select(['e.domain_id', 'c.ssl_status'])
        .where('e.is_enabled', '=', 1)
        .execute();
      const out = new Map<string, string[]>();
      for (const r of rows) out.set(r.domain_id, [...(out.get(r.domain_id) ?? []), r.ssl_status]);
      return out;
    },
    /** Certificate status of every enabled endpoint of each of these domains (health input), at most 500 ids. */
    async certificatesOf(domainIds: readonly string[]): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>();
      if (!domainIds.length) return out;
      const rows = await db
        .selectFrom('endpoint_certificates as c')
        .innerJoin('endpoints as e', 'e.id', 'c.endpoint_id')
        .select(['e.domain_id', 'c.ssl_status'])
        .where('e.domain_id', 'in', domainIds)
        .where('e.is_enabled', '=', 1)
        .execute();
      for (const r of rows) {
        const list = out.get(r.domain_id);
        if (list) list.push(r.ssl_status);
        else out.set(r.domain_id, [r.ssl_status]);
      }
      return out;
    },
    /** Certificate status of every endpoint of a domain (health input). */
    async domainCertificates(
      domainId: string,
    ): Promise<{ endpoint_id: string; ssl_status: string; not_after: string | null }[]> {
      return db
        .selectFrom('endpoint_certificates as c')
        .innerJoin('endpoints as e', 'e.id', 'c.endpoint_id')
        .select(['c.endpoint_id', 'c.ssl_status', 'c.not_after'])
        .where('e.domain_id', '=', domainId)
        .where('e.is_enabled', '=', 1)
        .execute();
    },
  };
}
