// The dashboard's home (every monitored thing of a team in one list, one request per view) and an
// endpoint's incidents (each outage with its recovery, how long it lasted and the notifications sent
// for it). The home reads every domain and endpoint of the team in a fixed number of queries, then
// filters, sorts and pages in memory; only the page's configurations have their last checks read.
// `digests` is the live feed's view of the same rows: one short hash per row, so the feed can tell
// a page which rows changed and the page reads only those.
import { createHash } from 'node:crypto';
import { daysUntil, type Clock } from '../domain/clock.js';
import { NotFound } from '../domain/errors.js';
import { fullUrl } from '../domain/endpoint.js';
import { explainCheckError } from '../domain/check-error.js';
import { first24hBucket } from '../domain/liveness.js';
import type { Store } from '../store/index.js';
import type { MonitorService } from './monitor.js';

/** Days left at or under which a registration or certificate counts as expiring. */
const EXPIRING_DAYS = 30;

/** `maintenance`: a maintenance window covers the endpoint now. */
export type HomeState = 'up' | 'down' | 'paused' | 'unknown' | 'maintenance';
export type HomeSort = 'name' | 'state' | 'uptime' | 'response' | 'days_left';

export interface HomeQuery {
  limit: number;
  offset: number;
  state?: HomeState | 'expiring';
  type?: string;
  portfolio_id?: string;
  q?: string;
  group: 'domain' | 'portfolio';
  sort: HomeSort;
  order: 'asc' | 'desc';
  checks: number;
  /** Only these rows (the live feed's changed ids on the page shown); paging does not apply then. */
  ids?: string[];
}

interface HomeCheck {
  at: string;
  ok: boolean;
  response_time_ms: number;
  status_code: number | null;
  error: string | null;
}

interface HomeRow {
  kind: 'domain' | 'endpoint';
  id: string;
  /** The group's label (the domain, or the portfolio: `No portfolio` for none). */
  group: string;
  domain_id: string;
  domain: string;
  portfolio_id: string | null;
  portfolio: string | null;
  name: string;
  url: string | null;
  /** `domain`, or the endpoint's type. */
  type: string;
  state: HomeState;
  /** Why it is down or expiring, in words (null when nothing is wrong). */
  reason: string | null;
  expiring: boolean;
  /** Registration (domain) or certificate (endpoint) days left; null when unknown or none. */
  days_left: number | null;
  expiry_date: string | null;
  /** Endpoints: the certificate's renewal state, or null for one that carries none (plain http, tcp). */
  certificate_status: string | null;
  uptime_24h: number | null;
  avg_response_time_ms: number | null;
  last_check: string | null;
  checks: HomeCheck[];
  health_grade: string | null;
  dns_score: number | null;
  created_at: string;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const STATE_ORDER: Record<HomeState, number> = { down: 0, unknown: 1, maintenance: 2, paused: 3, up: 4 };
const NO_PORTFOLIO = 'No portfolio';

function matches(r: HomeRow, q: HomeQuery): boolean {
  if (q.state === 'expiring' ? !r.expiring : q.state !== undefined && r.state !== q.state) return false;
  if (q.type !== undefined && !(q.type === r.type || (q.type === 'endpoint' && r.kind === 'endpoint'))) return false;
  if (q.portfolio_id !== undefined && r.portfolio_id !== q.portfolio_id) return false;
  if (q.q) {
    const needle = q.q.toLowerCase();
    const hay = [r.name, r.domain, r.url ?? '', r.portfolio ?? '', r.reason ?? ''].join(' ').toLowerCase();
    if (!hay.includes(needle)) return false;
  }
  return true;
}

/** A numeric sort key's value (null: unknown, sorted last whatever the order); undefined: sorted by state or name. */
const KEYS: Record<HomeSort, ((r: HomeRow) => number | null) | undefined> = {
  name: undefined,
  state: (r) => STATE_ORDER[r.state],
  uptime: (r) => r.uptime_24h,
  response: (r) => r.avg_response_time_ms,
  days_left: (r) => r.days_left,
};

export function createHomeService({ store, clock, monitor }: { store: Store; clock: Clock; monitor: MonitorService }) {
  async function rows(teamId: string): Promise<{ out: HomeRow[]; seqs: Map<string, number> }> {
    const now = clock.now();
    const ms = now.getTime();
    const [domains, endpoints] = await Promise.all([
      store.dashboard.domainRows(teamId),
      store.endpoints.statusRows(teamId, {}, first24hBucket(ms)),
    ]);
    const live = await monitor.statusesOf(
      endpoints.flatMap((r) => (r.liveness ? [{ ...r.liveness, endpoint_id: r.endpoint.id }] : [])),
      ms,
    );
    const byDomain = new Map(domains.map((d) => [d.id, d]));
    const seqs = new Map<string, number>();
    const out: HomeRow[] = [];
    for (const d of domains) {
      const expiry = d.expiry_override ?? d.registry_expiry_date;
      const days = expiry ? daysUntil(expiry, now) : null;
      const expired = days !== null && days < 0;
      out.push({
        kind: 'domain',
        id: d.id,
        group: d.domain,
        domain_id: d.id,
        domain: d.domain,
        portfolio_id: d.portfolio_id,
        portfolio: d.portfolio,
        name: d.domain,
        url: null,
        type: 'domain',
        state: expired ? 'down' : days === null ? 'unknown' : 'up',
        reason: expired
          ? `Registration expired ${-days} day(s) ago`
          : days !== null && days <= EXPIRING_DAYS
            ? `Registration expires in ${days} day(s)`
            : days === null
              ? d.registration_state === 'error'
                ? 'Registration data could not be read yet'
                : null
              : null,
        expiring: days !== null && days <= EXPIRING_DAYS,
        days_left: days,
        expiry_date: expiry,
        certificate_status: null,
        uptime_24h: null,
        avg_response_time_ms: null,
        last_check: null,
        checks: [],
        health_grade: d.health_grade,
        dns_score: d.security_score,
        created_at: d.created_at,
      });
    }
    for (const r of endpoints) {
      const e = r.endpoint;
      const d = byDomain.get(e.domain_id);
      if (!d) continue;
      if (r.liveness) seqs.set(e.id, r.liveness.seq);
      const s = r.liveness ? live.get(r.liveness.id) : undefined;
      const paused = !e.is_enabled || (r.liveness !== undefined && !r.liveness.is_enabled);
      const state: HomeState = paused ? 'paused' : !s || s.status === 'unknown' ? 'unknown' : s.status;
      const cert = r.certificate;
      const notAfter = cert?.not_after ?? null;
      const days = notAfter ? daysUntil(notAfter, now) : null;
      const certReason =
        days !== null && days < 0
          ? `Certificate expired ${-days} day(s) ago`
          : days !== null && days <= EXPIRING_DAYS
            ? `Certificate expires in ${days} day(s)`
            : null;
      const checkError = s && !paused && s.last_check_successful === false ? explainCheckError(s.last_error) : null;
      out.push({
        kind: 'endpoint',
        id: e.id,
        group: d.domain,
        domain_id: d.id,
        domain: d.domain,
        portfolio_id: d.portfolio_id,
        portfolio: d.portfolio,
        name: e.name,
        url: fullUrl(e),
        type: e.endpoint_type,
        state,
        reason: checkError ?? certReason,
        expiring: days !== null && days <= EXPIRING_DAYS,
        days_left: days,
        expiry_date: notAfter ? notAfter.slice(0, 10) : null,
        certificate_status: cert ? cert.ssl_status : null,
        uptime_24h: s?.uptime_24h ?? null,
        // An average of checks that all failed says nothing about the service: none is shown.
        avg_response_time_ms: s && s.uptime_24h !== null && s.uptime_24h > 0 ? s.avg_response_time_ms : null,
        last_check: s?.last_check ?? null,
        checks: [],
        health_grade: null,
        dns_score: null,
        created_at: e.created_at,
      });
    }
    return { out, seqs };
  }

  return {
    /**
     * One page of the team's home: domains and endpoints grouped (by domain, or by portfolio then
     * domain), each group's rows sorted (a domain's own row first), with `summary` counts of every row
     * before the filters, and the last `checks` checks of each endpoint on the page.
     */
    async list(teamId: string, q: HomeQuery) {
      const { out: all, seqs } = await rows(teamId);
      const summary = { up: 0, down: 0, paused: 0, unknown: 0, maintenance: 0, expiring: 0, domains: 0, endpoints: 0 };
      for (const r of all) {
        summary[r.state]++;
        if (r.expiring) summary.expiring++;
        if (r.kind === 'domain') summary.domains++;
        else summary.endpoints++;
      }
      const only = q.ids ? new Set(q.ids) : undefined;
      const picked = all.filter((r) => (!only || only.has(r.id)) && matches(r, q));
      if (q.group === 'portfolio') for (const r of picked) r.group = r.portfolio ?? NO_PORTFOLIO;
      const key = KEYS[q.sort];
      const dir = q.order === 'desc' ? -1 : 1;
      picked.sort((a, b) => {
        // Groups by name (the no-portfolio group last), then a domain's rows together, its own row first.
        if (a.group !== b.group) {
          if (q.group === 'portfolio' && (a.portfolio === null) !== (b.portfolio === null))
            return a.portfolio === null ? 1 : -1;
          return collator.compare(a.group, b.group) || (a.group < b.group ? -1 : 1);
        }
        if (q.group === 'portfolio' && a.domain_id !== b.domain_id)
          return collator.compare(a.domain, b.domain) || (a.domain_id < b.domain_id ? -1 : 1);
        if (a.kind !== b.kind) return a.kind === 'domain' ? -1 : 1;
        if (key) {
          const x = key(a);
          const y = key(b);
          if (x !== y) {
            if (x === null || y === null) return x === null ? 1 : -1;
            return (x - y) * dir;
          }
        }
        return (key ? 1 : dir) * collator.compare(a.name, b.name) || (a.id < b.id ? -1 : 1);
      });
      const page = only ? picked : picked.slice(q.offset, q.offset + q.limit);
      const wanted = page.flatMap((r) => (r.kind === 'endpoint' && seqs.has(r.id) ? [seqs.get(r.id)!] : []));
      const recent = await store.dashboard.recentChecks(wanted, q.checks);
      for (const r of page) {
        const seq = seqs.get(r.id);
        if (r.kind !== 'endpoint' || seq === undefined) continue;
        r.checks = (recent.get(seq) ?? []).map((c) => ({
          at: new Date(c.ts).toISOString(),
          ok: c.ok,
          response_time_ms: c.ms,
          status_code: c.status,
          error: explainCheckError(c.error),
        }));
      }
      return { items: page, total: picked.length, summary };
    },

    /**
     * An endpoint's outages, newest first: when it went down and why, when it recovered (null: still
     * down) and how long it lasted, and the notifications made for the outage and its recovery.
     */
    async incidents(teamId: string, endpointId: string, page: { limit: number; offset: number }) {
      const e = await store.endpoints.get(teamId, endpointId);
      if (!e) throw new NotFound('Endpoint');
      const downs = await store.dashboard.outages(teamId, endpointId, page.limit, page.offset);
      if (!downs.items.length) return { items: [], total: downs.total };
      const oldest = downs.items.at(-1)!.created_at;
      const seq = await store.dashboard.transitionsSince(teamId, endpointId, oldest);
      // Each outage's recovery: the first recovered event after it and before the next outage.
      const recoveryOf = new Map<string, (typeof seq)[number]>();
      for (let i = 0; i < seq.length; i++) {
        if (seq[i]!.category !== 'endpoint_down') continue;
        const next = seq[i + 1];
        if (next?.category === 'endpoint_recovered') recoveryOf.set(seq[i]!.id, next);
      }
      const eventIds = downs.items.flatMap((d) => {
        const r = recoveryOf.get(d.id);
        return r ? [d.id, r.id] : [d.id];
      });
      const deliveries = await store.dashboard.deliveriesFor(teamId, eventIds);
      const now = clock.now().getTime();
      const detail = (text: string) => {
        try {
          return JSON.parse(text) as { error?: string | null; status_code?: number | null };
        } catch {
          return {};
        }
      };
      return {
        total: downs.total,
        items: downs.items.map((d) => {
          const r = recoveryOf.get(d.id);
          const start = Date.parse(d.created_at);
          const end = r ? Date.parse(r.created_at) : now;
          const info = detail(d.details);
          return {
            id: d.id,
            started_at: d.created_at,
            recovered_at: r?.created_at ?? null,
            duration_seconds: Math.max(0, Math.round((end - start) / 1000)),
            ongoing: !r,
            reason: explainCheckError(info.error ?? null),
            error: info.error ?? null,
            status_code: info.status_code ?? null,
            message: d.message,
            notifications: deliveries
              .filter((x) => x.event_id === d.id || x.event_id === r?.id)
              .map((x) => ({
                for: x.event_id === d.id ? ('down' as const) : ('recovery' as const),
                channel: x.channel,
                recipient: x.recipient,
                status: x.status,
                sent_at: x.sent_at,
                error: x.error_message,
              })),
          };
        }),
      };
    },

    /**
     * Each row of the team's home (domains and endpoints, by id) with a short hash of what it shows:
     * two calls' hashes differ for exactly the rows whose state, reason, figures or last check moved.
     */
    async digests(teamId: string): Promise<Map<string, string>> {
      const { out } = await rows(teamId);
      return new Map(
        out.map((r) => [r.id, createHash('sha256').update(JSON.stringify(r)).digest('base64url').slice(0, 16)]),
      );
    },

    /** Changes whenever something the team's home shows may have changed. */
    fingerprint: (teamId: string) => store.dashboard.fingerprint(teamId),
  };
}
