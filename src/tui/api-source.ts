// A StatusSource over the Public API (the CLI hands it the local in-process API or a --remote daemon).
// Fields that other parts of dommon fill later (grade, registration, certificates) may be null: shown as `-`.
//
// What a refresh costs: the four lists (domains, endpoints, endpoint statuses, liveness configs) a page
// of 100 at a time, and nothing per row. A row's extras (the sparkline's recent results, the domain's
// last registration check) cost one request each, so they are read only for the rows on screen
// (`details`), and a config's results again only when its last check moved.
import type { DomainRow, EndpointRow, Liveness, Row, Snapshot, StatusSource } from './model.js';
import { mapLimit } from '../domain/concurrency.js';
import { certificateSummary } from '../domain/certificate.js';
import { alwaysCarriesCertificate, worstHealth, type Health } from '../domain/endpoint.js';
import type { EndpointType } from '../domain/types.js';

type Request = (method: string, path: string) => Promise<{ status: number; body: unknown }>;

// The fields of the API's answers read here (the OpenAPI document owns the full shapes); a field that
// another part of dommon has not filled yet may be null or missing.
interface Page<T> {
  data: T[];
  pagination?: { has_more?: boolean };
}
interface WireDomain {
  id: string;
  domain: string;
  is_verified: boolean;
  health_grade?: string | null;
  health_score?: number | null;
  overall_status?: string;
  expiry_date?: string | null;
  whois?: { registrar?: string | null; expiry_date?: string | null } | null;
}
interface WireEndpoint {
  id: string;
  domain_id: string;
  name: string;
  full_url: string;
  endpoint_type: string;
  is_enabled: boolean;
}
interface WireSsl {
  status?: unknown;
  expiry_date?: string | null;
  days_until_expiry?: number | null;
}
interface WireEndpointStatus {
  endpoint_id?: string;
  endpoint?: { id: string };
  overall_health?: string;
  ssl?: WireSsl | null;
  last_checked_at?: string | null;
  liveness?: {
    status?: string;
    uptime_24h?: number | null;
    avg_response_time_ms?: number | null;
    last_check?: string | null;
  } | null;
}
interface WireLivenessConfig {
  id: string;
  endpoint_id: string;
  is_enabled: boolean;
}
interface WireResult {
  response_time_ms?: number | null;
  is_successful: unknown;
}
interface WireDomainStatus {
  last_checked_at?: string | null;
}

interface ApiSourceOptions {
  /** probe results shown in the sparkline */
  recent?: number;
  /** parallel requests */
  concurrency?: number;
  /** `load()` reads every row's extras too when the fleet has at most this many rows (--once, --json) */
  detailAll?: number;
  now?: () => Date;
}

/** 'unknown' (nothing checked yet) is shown as `-` like a missing value. */
const known = (v: unknown): string | null => (typeof v === 'string' && v !== 'unknown' ? v : null);

const DAY = 86_400_000;

async function get<T>(request: Request, path: string): Promise<T> {
  const r = await request('GET', path);
  if (r.status >= 400)
    throw Object.assign(
      new Error(`${path}: ${(r.body as { error?: string } | undefined)?.error ?? `HTTP ${r.status}`}`),
      { status: r.status },
    );
  return r.body as T;
}

async function all<T>(request: Request, path: string): Promise<T[]> {
  const out: T[] = [];
  for (let offset = 0; ; offset += 100) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await get<Page<T>>(request, `${path}${sep}limit=100&offset=${offset}`);
    out.push(...r.data);
    if (!r.pagination?.has_more || !r.data.length) return out;
  }
}

const daysLeft = (iso: string | null, now: Date): number | null =>
  iso ? Math.floor((Date.parse(iso) - now.getTime()) / DAY) : null;

interface ApiStatusSource extends StatusSource {
  /** The snapshot with the extras of `rows` (recent results, last registration check) read or reused. */
  details(snapshot: Snapshot, rows: readonly Row[]): Promise<Snapshot>;
}

export function apiSource(
  request: Request,
  close: () => Promise<void> = async () => {},
  o: ApiSourceOptions = {},
): ApiStatusSource {
  const recentN = o.recent ?? 20;
  const n = o.concurrency ?? 8;
  const detailAll = o.detailAll ?? 200;
  const now = o.now ?? (() => new Date());
  /** config id -> the results read, and the last check they were read at */
  const recent = new Map<string, { at: string | null; points: EndpointRow['recent'] }>();
  /** domain id -> last registration check (read with the domain's status), and when it was read */
  const checked = new Map<string, { value: string | null; readAt: number }>();
  /** How long a domain's last registration check is reused (registration refreshes are hours apart). */
  const CHECKED_TTL = 60_000;

  function withExtras(s: Snapshot): Snapshot {
    return {
      ...s,
      domains: s.domains.map((d) => ({
        ...d,
        lastCheck: checked.get(d.id)?.value ?? d.lastCheck,
        endpoints: d.endpoints.map((e) =>
          e.livenessId && recent.has(e.livenessId) ? { ...e, recent: recent.get(e.livenessId)!.points } : e,
        ),
      })),
    };
  }

  async function details(s: Snapshot, rows: readonly Row[]): Promise<Snapshot> {
    const configs = rows.filter(
      (r): r is EndpointRow =>
        r.kind === 'endpoint' && r.livenessId !== null && recent.get(r.livenessId)?.at !== r.lastCheck,
    );
    const t = now().getTime();
    const domains = rows.filter(
      (r): r is DomainRow => r.kind === 'domain' && !((checked.get(r.id)?.readAt ?? -Infinity) > t - CHECKED_TTL),
    );
    await Promise.all([
      mapLimit(configs, n, async (e) => {
        const r = await get<Page<WireResult>>(
          request,
          `/api/v1/liveness/${e.livenessId}/results?hours=24&limit=${recentN}`,
        );
        const points = r.data.map((x) => ({ ms: x.response_time_ms ?? 0, ok: Boolean(x.is_successful) })).reverse();
        recent.set(e.livenessId!, { at: e.lastCheck, points });
      }),
      mapLimit(domains, n, async (d) => {
        const st = await get<WireDomainStatus | undefined>(request, `/api/v1/domains/${d.id}/status`);
        checked.set(d.id, { value: st?.last_checked_at ?? null, readAt: t });
      }),
    ]);
    return withExtras(s);
  }

  async function lists(): Promise<Snapshot> {
    const [domains, endpoints, statuses, configs] = await Promise.all([
      all<WireDomain>(request, '/api/v1/domains'),
      all<WireEndpoint>(request, '/api/v1/endpoints'),
      all<WireEndpointStatus>(request, '/api-endpoint-status'),
      all<WireLivenessConfig>(request, '/api/v1/liveness'),
    ]);
    const at = now();
    const statusOf = new Map(statuses.map((s) => [s.endpoint_id ?? s.endpoint?.id, s]));
    const cfgOf = new Map(configs.map((c) => [c.endpoint_id, c]));
    // Configs and domains gone since the last refresh leave the caches.
    const liveIds = new Set(configs.map((c) => c.id));
    for (const id of recent.keys()) if (!liveIds.has(id)) recent.delete(id);
    const domainIds = new Set(domains.map((d) => d.id));
    for (const id of checked.keys()) if (!domainIds.has(id)) checked.delete(id);

    const epRows = new Map<string, EndpointRow[]>();
    for (const e of endpoints) {
      const s = statusOf.get(e.id);
      const cfg = cfgOf.get(e.id);
      const live = s?.liveness;
      const row: EndpointRow = {
        kind: 'endpoint',
        id: e.id,
        domainId: e.domain_id,
        name: e.name,
        url: e.full_url,
        type: e.endpoint_type,
        enabled: e.is_enabled,
        health: s?.overall_health ?? 'unknown',
        ssl: known(s?.ssl?.status),
        sslExpiry: s?.ssl?.expiry_date ?? null,
        sslDays: s?.ssl?.days_until_expiry ?? null,
        liveness: cfg?.is_enabled ? ((live?.status as Liveness | undefined) ?? 'unknown') : null,
        uptime24h: live?.uptime_24h ?? null,
        avgMs: live?.avg_response_time_ms ?? null,
        recent: [],
        lastCheck: live?.last_check ?? s?.last_checked_at ?? null,
        livenessId: cfg?.id ?? null,
      };
      const list = epRows.get(e.domain_id);
      if (list) list.push(row);
      else epRows.set(e.domain_id, [row]);
    }
    const rows: DomainRow[] = domains.map((d) => {
      const eps = epRows.get(d.id) ?? [];
      // The same summary as the status route: worst certificate status, soonest expiry, worst health.
      const { status: worst, soonest } = certificateSummary(
        eps.map((e) => ({
          status: e.ssl ?? 'unknown',
          expiry: e.sslExpiry,
          carries: e.ssl !== null || alwaysCarriesCertificate(e.type as EndpointType),
        })),
      );
      const endpointWorst = worstHealth(eps.map((e) => e.health as Health));
      const expiry: string | null = d.whois?.expiry_date ?? d.expiry_date ?? null;
      return {
        kind: 'domain',
        id: d.id,
        name: d.domain,
        verified: d.is_verified,
        grade: d.health_grade ?? null,
        score: d.health_score ?? null,
        health: known(d.overall_status) ?? endpointWorst,
        expiryDate: expiry,
        expiryDays: daysLeft(expiry, at),
        registrar: d.whois?.registrar ?? null,
        ssl: known(worst),
        sslDays: daysLeft(soonest, at),
        lastCheck: null,
        endpoints: eps,
      };
    });
    return { at: at.toISOString(), domains: rows };
  }

  return {
    close,
    details,
    /** Every row; their extras too while the fleet is small (at most `detailAll` rows), else those read before. */
    async load(): Promise<Snapshot> {
      const s = await lists();
      const rows: Row[] = s.domains.flatMap((d) => [d, ...d.endpoints]);
      return rows.length <= detailAll ? details(s, rows) : withExtras(s);
    },
  };
}
