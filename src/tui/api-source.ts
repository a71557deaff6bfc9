// A StatusSource over the Public API (the CLI hands it the local in-process API or a --remote daemon).
// Fields that other parts of dommon fill later (grade, registration, certificates) may be null: shown as `-`.
import type { DomainRow, EndpointRow, Liveness, Snapshot, StatusSource } from './model.js';
import { mapLimit } from '../domain/concurrency.js';

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
  expiry_date?: string | null;
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
  liveness?: { status?: string; uptime_24h?: number | null; avg_response_time_ms?: number | null; last_check?: string | null } | null;
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
  overall_status?: string;
  whois?: { expiry_date?: string | null; days_until_expiry?: number | null; registrar?: string | null } | null;
  ssl?: WireSsl | null;
  last_checked_at?: string | null;
}

interface ApiSourceOptions {
  /** probe results shown in the sparkline */
  recent?: number;
  /** parallel requests */
  concurrency?: number;
  now?: () => Date;
}

/** 'unknown' (nothing checked yet) is shown as `-` like a missing value. */
const known = (v: unknown): string | null => (typeof v === 'string' && v !== 'unknown' ? v : null);

async function get<T>(request: Request, path: string): Promise<T> {
  const r = await request('GET', path);
  if (r.status >= 400) throw Object.assign(new Error(`${path}: ${(r.body as { error?: string } | undefined)?.error ?? `HTTP ${r.status}`}`), { status: r.status });
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

export function apiSource(request: Request, close: () => Promise<void> = async () => {}, o: ApiSourceOptions = {}): StatusSource {
  const recent = o.recent ?? 20;
  const n = o.concurrency ?? 8;
  const now = o.now ?? (() => new Date());
  return {
    close,
    async load(): Promise<Snapshot> {
      const [domains, endpoints, statuses, configs] = await Promise.all([
        all<WireDomain>(request, '/api/v1/domains'),
        all<WireEndpoint>(request, '/api/v1/endpoints'),
        all<WireEndpointStatus>(request, '/api-endpoint-status'),
        all<WireLivenessConfig>(request, '/api/v1/liveness'),
      ]);
      const statusOf = new Map<string | undefined, WireEndpointStatus>(statuses.map((s) => [s.endpoint_id ?? s.endpoint?.id, s]));
      const cfgOf = new Map<string, WireLivenessConfig>(configs.map((c) => [c.endpoint_id, c]));
      const results = new Map<string, { ms: number; ok: boolean }[]>();
      await mapLimit(configs, n, async (c) => {
        const r = await get<Page<WireResult>>(request, `/api/v1/liveness/${c.id}/results?hours=24&limit=${recent}`);
        results.set(c.id, r.data.map((x) => ({ ms: x.response_time_ms ?? 0, ok: Boolean(x.is_successful) })).reverse());
      });
      const domainStatus = new Map<string, WireDomainStatus>();
      await mapLimit(domains, n, async (d) => {
        domainStatus.set(d.id, await get<WireDomainStatus>(request, `/api/v1/domains/${d.id}/status`));
      });

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
          liveness: cfg?.is_enabled ? ((live?.status as Liveness) ?? 'unknown') : null,
          uptime24h: live?.uptime_24h ?? null,
          avgMs: live?.avg_response_time_ms ?? null,
          recent: cfg ? (results.get(cfg.id) ?? []) : [],
          lastCheck: live?.last_check ?? s?.last_checked_at ?? null,
          livenessId: cfg?.id ?? null,
        };
        epRows.set(e.domain_id, [...(epRows.get(e.domain_id) ?? []), row]);
      }
      const rows: DomainRow[] = domains.map((d) => {
        const st = domainStatus.get(d.id);
        const eps = epRows.get(d.id) ?? [];
        return {
          kind: 'domain',
          id: d.id,
          name: d.domain,
          verified: d.is_verified,
          grade: d.health_grade ?? null,
          score: d.health_score ?? null,
          health: st?.overall_status ?? 'unknown',
          expiryDate: st?.whois?.expiry_date ?? d.expiry_date ?? null,
          expiryDays: st?.whois?.days_until_expiry ?? null,
          registrar: st?.whois?.registrar ?? null,
          ssl: known(st?.ssl?.status),
          sslDays: st?.ssl?.days_until_expiry ?? null,
          lastCheck: st?.last_checked_at ?? null,
          endpoints: eps,
        };
      });
      return { at: now().toISOString(), domains: rows };
    },
  };
}
