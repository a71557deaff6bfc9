// What the dashboard shows, as plain data and pure functions (rows, filter, sort, sparkline, ages).
export type Liveness = 'up' | 'down' | 'unknown' | 'maintenance';

export interface EndpointRow {
  kind: 'endpoint';
  id: string;
  domainId: string;
  name: string;
  url: string;
  type: string;
  enabled: boolean;
  health: string;
  ssl: string | null;
  sslExpiry: string | null;
  sslDays: number | null;
  liveness: Liveness | null;
  uptime24h: number | null;
  avgMs: number | null;
  /** recent response times, oldest first; `ok` false marks a failed probe */
  recent: { ms: number; ok: boolean }[];
  lastCheck: string | null;
  livenessId: string | null;
}

export interface DomainRow {
  kind: 'domain';
  id: string;
  name: string;
  verified: boolean;
  grade: string | null;
  score: number | null;
  health: string;
  expiryDate: string | null;
  expiryDays: number | null;
  registrar: string | null;
  ssl: string | null;
  sslDays: number | null;
  lastCheck: string | null;
  endpoints: EndpointRow[];
}

export interface Snapshot {
  at: string;
  domains: DomainRow[];
}

/** Where the dashboard's data comes from: the local database or a daemon, both over the Public API. */
export interface StatusSource {
  load(): Promise<Snapshot>;
  /** The snapshot with the per-row extras (sparkline results, last check) of `rows`, the rows on screen. */
  details?(snapshot: Snapshot, rows: readonly Row[]): Promise<Snapshot>;
  close(): Promise<void>;
}

export type Row = DomainRow | EndpointRow;

export const SORTS = ['name', 'expiry', 'health', 'response'] as const;
export type SortKey = (typeof SORTS)[number];

const HEALTH_RANK: Record<string, number> = { critical: 0, warning: 1, unknown: 2, healthy: 3 };
const BIG = Number.MAX_SAFE_INTEGER;

function soonest(d: DomainRow): number {
  return Math.min(d.expiryDays ?? BIG, d.sslDays ?? BIG, ...d.endpoints.map((e) => e.sslDays ?? BIG));
}
function slowest(rows: EndpointRow[]): number {
  return -Math.max(-1, ...rows.map((e) => e.avgMs ?? e.recent[e.recent.length - 1]?.ms ?? -1));
}
function rank(h: string): number {
  return HEALTH_RANK[h] ?? 2;
}

function compare(key: SortKey) {
  return (a: Row, b: Row): number => {
    let d = 0;
    if (key === 'expiry')
      d =
        (a.kind === 'domain' ? soonest(a) : (a.sslDays ?? BIG)) -
        (b.kind === 'domain' ? soonest(b) : (b.sslDays ?? BIG));
    else if (key === 'health') d = rank(a.health) - rank(b.health);
    else if (key === 'response')
      d =
        (a.kind === 'domain' ? slowest(a.endpoints) : slowest([a])) -
        (b.kind === 'domain' ? slowest(b.endpoints) : slowest([b]));
    return d || a.name.localeCompare(b.name);
  };
}

const matches = (r: Row, f: string) =>
  r.name.toLowerCase().includes(f) || (r.kind === 'endpoint' && r.url.toLowerCase().includes(f));

/**
 * The visible rows: each domain followed by its endpoints, both sorted by `sort`; with a filter a
 * domain shows when it or one of its endpoints matches (all its endpoints when the domain matches).
 */
export function visibleRows(s: Snapshot, filter: string, sort: SortKey): Row[] {
  const f = filter.trim().toLowerCase();
  const out: Row[] = [];
  for (const d of [...s.domains].sort(compare(sort))) {
    const dm = !f || matches(d, f);
    const eps = d.endpoints.filter((e) => dm || matches(e, f));
    if (!dm && !eps.length) continue;
    out.push(d, ...[...eps].sort(compare(sort)));
  }
  return out;
}

const BARS = '▁▂▃▄▅▆▇█';
/** Response times as block characters scaled between their min and max; a failed probe is `×`. */
export function sparkline(recent: { ms: number; ok: boolean }[], width = 16): string {
  const xs = recent.slice(-width);
  const ok = xs.filter((x) => x.ok).map((x) => x.ms);
  if (!xs.length) return '';
  const lo = Math.min(...ok, Infinity);
  const hi = Math.max(...ok, -Infinity);
  return xs
    .map((x) => {
      if (!x.ok) return '×';
      const i = hi === lo ? 0 : Math.round(((x.ms - lo) / (hi - lo)) * (BARS.length - 1));
      return BARS[i];
    })
    .join('');
}

/** 45s, 12m, 3h, 2d ago. */
export function age(iso: string | null, now: Date): string {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export const days = (n: number | null): string => (n === null ? '-' : `${n}d`);

export function counts(s: Snapshot) {
  const eps = s.domains.flatMap((d) => d.endpoints);
  return {
    domains: s.domains.length,
    endpoints: eps.length,
    up: eps.filter((e) => e.liveness === 'up').length,
    down: eps.filter((e) => e.liveness === 'down').length,
    critical:
      s.domains.filter((d) => d.health === 'critical').length + eps.filter((e) => e.health === 'critical').length,
    warning: s.domains.filter((d) => d.health === 'warning').length + eps.filter((e) => e.health === 'warning').length,
  };
}
