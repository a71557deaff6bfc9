// Renewals: what must be renewed and when, for domain registrations and endpoint certificates.
import { daysUntil, isoDate, type Clock } from '../domain/clock.js';
import { fullUrl } from '../domain/endpoint.js';
import type { EndpointType, Page, RenewalStatus } from '../domain/types.js';
import type { Store } from '../store/index.js';

/** "Expiring soon" = within this many days (inclusive); later is "active", earlier than today "expired". */
const EXPIRING_SOON_DAYS = 30;

export interface RenewalQuery {
  type: 'domains' | 'certificates';
  from?: string;
  to?: string;
  status?: RenewalStatus;
}

interface RenewalRecord {
  id: string;
  kind: 'domain' | 'certificate';
  name: string;
  domain_id: string;
  domain: string;
  endpoint_id: string | null;
  expiry_date: string;
  days_until_expiry: number;
  status: RenewalStatus;
  registrar: string | null;
  issuer: string | null;
  source: string;
  /** Certificates only: which certificate of the chain the server sends expires at expiry_date. */
  expiring_certificate?: { role: 'leaf' | 'intermediate'; position: number; subject: string } | null;
}

function renewalStatus(days: number): RenewalStatus {
  if (days < 0) return 'expired';
  return days <= EXPIRING_SOON_DAYS ? 'expiring_soon' : 'active';
}

export function createRenewalService({ store, clock }: { store: Store; clock: Clock }) {
  return {
    async list(teamId: string, q: RenewalQuery, page: Page): Promise<{ items: RenewalRecord[]; total: number }> {
      const now = clock.now();
      const w = {
        from: q.from ? isoDate(new Date(q.from)) : undefined,
        to: q.to ? isoDate(new Date(q.to)) : undefined,
        status: q.status,
        today: isoDate(now),
        soon: isoDate(new Date(now.getTime() + EXPIRING_SOON_DAYS * 86_400_000)),
      };
      if (q.type === 'certificates') {
        const r = await store.renewals.certificates(teamId, w, page);
        return {
          total: r.total,
          items: r.items.map((c) => {
            const days = daysUntil(c.expiry, now);
            return {
              id: c.endpoint_id,
              kind: 'certificate',
              name: fullUrl({ ...c, endpoint_type: c.endpoint_type as EndpointType }),
              domain_id: c.domain_id,
              domain: c.domain,
              endpoint_id: c.endpoint_id,
              expiry_date: c.expiry,
              days_until_expiry: days,
              status: renewalStatus(days),
              registrar: null,
              issuer: c.issuer,
              source: 'certificate',
              expiring_certificate: c.expiring
                ? { role: c.expiring.role, position: c.expiring.position, subject: c.expiring.subject }
                : null,
            };
          }),
        };
      }
      const r = await store.renewals.domains(teamId, w, page);
      return {
        total: r.total,
        items: r.items.map((d) => {
          const days = daysUntil(d.expiry, now);
          return {
            id: d.domain_id,
            kind: 'domain',
            name: d.domain,
            domain_id: d.domain_id,
            domain: d.domain,
            endpoint_id: null,
            expiry_date: d.expiry,
            days_until_expiry: days,
            status: renewalStatus(days),
            registrar: d.registrar,
            issuer: null,
            source: d.manual ? 'manual' : 'registry',
          };
        }),
      };
    },
  };
}
