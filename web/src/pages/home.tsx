// The home: every domain and endpoint of the team in one list (GET /api/v1/home, one request per
// page), grouped by domain or portfolio, with state, why it is down, the last checks as heartbeat
// bars, uptime, response time and days left; filters, sort and "N up / M down / K expiring" on top.
// When the live feed names the rows that changed (live.ts), the page reads only those of them it
// shows, in one request, and puts them in place; it reads its whole page again only when it cannot
// tell where a changed row belongs (rows added or removed, a filter or an order by anything but the
// name that a change may move a row across).
import { useContext, useEffect, useState } from 'preact/hooks';
import { all, get } from '../api.js';
import { usePoll, type OnLive } from '../hooks.js';
import type { Portfolio } from '../types.js';
import { CanWrite } from '../scope.js';
import {
  Badge,
  Breakable,
  Choice,
  Days,
  EndpointBulkActions,
  LoadError,
  ManagedBadge,
  Table,
  fmtTime,
  pct,
  type Managed,
} from '../ui.js';
import { endpointTypes, useSchemas } from '../schema-form.js';
import './home.css';

interface Check {
  at: string;
  ok: boolean;
  response_time_ms: number;
  status_code: number | null;
  error: string | null;
}

interface Row extends Managed {
  kind: 'domain' | 'endpoint';
  id: string;
  group: string;
  domain_id: string;
  domain: string;
  portfolio: string | null;
  name: string;
  url: string | null;
  type: string;
  state: 'up' | 'down' | 'paused' | 'unknown' | 'maintenance';
  reason: string | null;
  expiring: boolean;
  days_left: number | null;
  certificate_status: string | null;
  uptime_24h: number | null;
  avg_response_time_ms: number | null;
  last_check: string | null;
  checks: Check[];
  health_grade: string | null;
  dns_score: number | null;
}

interface HomeAnswer {
  data: Row[];
  pagination: { total: number; limit: number; offset: number; has_more: boolean };
  summary: {
    up: number;
    down: number;
    paused: number;
    unknown: number;
    maintenance: number;
    expiring: number;
    domains: number;
    endpoints: number;
  };
}

const PAGE = 100;
/** Rows one live read asks for at most (the API's `ids` limit). */
const MAX_IDS = 200;
const FILTERS = { state: '', type: '', portfolio_id: '', q: '', group: 'domain', sort: 'name', order: 'asc' };
type Filters = typeof FILTERS;

/** A row's state and why, in words (null while it is fine). */
export interface RowState {
  state: Row['state'];
  reason: string | null;
}

/**
 * The states of some endpoints or domains (at most MAX_IDS, the first ones), in one read of the
 * Home's rows: what another page shows beside its own list, in the Home's words.
 */
export async function readStates(ids: readonly string[]): Promise<Map<string, RowState>> {
  if (!ids.length) return new Map();
  const a = await get<HomeAnswer>(`/api/v1/home?checks=1&ids=${ids.slice(0, MAX_IDS).join(',')}`);
  return new Map(a.data.map((r) => [r.id, { state: r.state, reason: r.reason }]));
}

function Beats({ checks }: { checks: Check[] }) {
  if (!checks.length) return <span class="muted">—</span>;
  const failed = checks.filter((c) => !c.ok).length;
  return (
    <span class="beats" role="img" aria-label={`last ${checks.length} checks: ${failed} failed`} data-testid="beats">
      {checks.map((c) => (
        <i
          key={c.at}
          class={c.ok ? 'ok' : 'fail'}
          title={`${fmtTime(c.at)}: ${c.ok ? `${c.response_time_ms} ms` : (c.error ?? 'failed')}`}
        />
      ))}
    </span>
  );
}

/** A domain's state in words: registered while its registration holds, expired once it ended. */
const DOMAIN_WORD: Record<Row['state'], string> = {
  up: 'registered',
  down: 'expired',
  paused: 'paused',
  unknown: 'unknown',
  maintenance: 'maintenance',
};

/** An endpoint row's tick for the bulk actions (none on a domain row, none for a read-only session). */
interface Tick {
  checked: boolean;
  set: (on: boolean) => void;
}

function HomeRow({ r, tick }: { r: Row; tick: Tick | undefined }) {
  const href = r.kind === 'domain' ? `#/domains/${r.domain_id}` : `#/endpoints/${r.id}`;
  return (
    <tr class={`home-${r.kind}`} data-testid="home-row" data-state={r.state} data-name={r.name}>
      {tick !== undefined && (
        <td>
          {r.kind === 'endpoint' && (
            <input
              type="checkbox"
              aria-label={`Select ${r.name}`}
              checked={tick.checked}
              onChange={(e) => tick.set(e.currentTarget.checked)}
            />
          )}
        </td>
      )}
      <td>
        <Badge value={r.kind === 'domain' ? DOMAIN_WORD[r.state] : r.state} />
      </td>
      <td class="home-name">
        <a href={href}>{r.name}</a> <span class="muted">{r.kind === 'domain' ? 'domain' : r.type}</span>{' '}
        <ManagedBadge of={r} />
        {r.url && (
          <div class="muted url">
            <Breakable text={r.url} />
          </div>
        )}
        {r.reason && (
          <div class={r.state === 'down' ? 'bad reason' : 'warn reason'} data-testid="reason">
            {r.reason}
          </div>
        )}
      </td>
      <td class="minor">{r.kind === 'endpoint' ? <Beats checks={r.checks} /> : null}</td>
      <td>{r.kind === 'endpoint' ? pct(r.uptime_24h) : ''}</td>
      <td class="minor">
        {r.avg_response_time_ms === null ? (r.kind === 'endpoint' ? '—' : '') : `${r.avg_response_time_ms} ms`}
      </td>
      <td>
        {r.kind === 'domain' || r.certificate_status !== null ? (
          <Days days={r.days_left} />
        ) : r.url?.startsWith('https://') ? (
          <span class="muted" title="no certificate seen yet">
            —
          </span>
        ) : (
          <span class="muted">no TLS</span>
        )}
      </td>
      <td class="minor">
        {r.kind === 'domain' ? (
          <>
            {r.health_grade ?? '—'}
            {r.dns_score !== null && <span class="muted"> · DNS {r.dns_score}</span>}
          </>
        ) : (
          <span class="muted">{r.last_check ? fmtTime(r.last_check) : 'not checked'}</span>
        )}
      </td>
    </tr>
  );
}

export function Home() {
  const [f, setF] = useState<Filters>(FILTERS);
  const [text, setText] = useState('');
  const [offset, setOffset] = useState(0);
  const [portfolios, setPortfolios] = useState<Portfolio[]>([]);
  useEffect(() => {
    all<Portfolio>('/api/v1/portfolios').then(setPortfolios, () => undefined);
  }, []);
  // The text filter applies once typing pauses.
  useEffect(() => {
    const t = setTimeout(() => setF((x) => (x.q === text.trim() ? x : { ...x, q: text.trim() })), 250);
    return () => clearTimeout(t);
  }, [text]);
  useEffect(() => setOffset(0), [f]);
  const canWrite = useContext(CanWrite);
  // The endpoint types to filter by: the probe registry's, as the API's schema lists them.
  const defs = useSchemas();
  const types = defs ? endpointTypes(defs) : [];
  // The ticked endpoints of the page shown: another page or other filters start with none ticked.
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => setChosen(new Set()), [f, offset]);
  const params = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  for (const [k, v] of Object.entries(f)) if (v) params.set(k, v);
  const qs = params.toString();
  const onLive: OnLive<HomeAnswer> = async (ids, shown) => {
    if (!ids.length) return (now) => now;
    const onPage = new Set(shown.data.map((r) => r.id));
    const mine = ids.filter((id) => onPage.has(id));
    const filtered = Boolean(f.state || f.type || f.portfolio_id || f.q);
    // A row off this page may now match the filters, or belong on it in another order.
    if ((filtered || f.sort !== 'name') && mine.length < ids.length) return null;
    if (f.sort !== 'name' && mine.length) return null;
    if (mine.length > MAX_IDS) return null;
    const only = new URLSearchParams(params);
    only.delete('limit');
    only.delete('offset');
    only.set('ids', mine.join(','));
    // Read even when none of the changed rows is shown: the summary counts them.
    const a = await get<HomeAnswer>(`/api/v1/home?${only.toString()}`);
    const got = new Map(a.data.map((r) => [r.id, r]));
    // A row that left the filters or its group: the page is read again.
    if (got.size !== mine.length || shown.data.some((r) => got.has(r.id) && got.get(r.id)!.group !== r.group))
      return null;
    return (now) => ({ ...now, summary: a.summary, data: now.data.map((r) => got.get(r.id) ?? r) });
  };
  const s = usePoll(() => get<HomeAnswer>(`/api/v1/home?${qs}`), `home:${qs}`, undefined, onLive);
  const set = (k: keyof Filters) => (v: string) => setF((x) => ({ ...x, [k]: v }));
  const d = s.data;
  const endpoints = (d?.data ?? []).filter((r) => r.kind === 'endpoint');
  const picked = endpoints.filter((r) => chosen.has(r.id)).map((r) => r.id);
  const tick = (id: string): Tick | undefined =>
    canWrite
      ? {
          checked: chosen.has(id),
          set: (on) =>
            setChosen((x) => {
              const next = new Set(x);
              if (on) next.add(id);
              else next.delete(id);
              return next;
            }),
        }
      : undefined;
  const columns = canWrite ? 8 : 7;
  let lastGroup = '';
  return (
    <>
      <h1>Home</h1>
      {d && (
        <p class="home-summary" data-testid="home-summary" aria-live="polite">
          {/* Nothing up or down but something paused: "N paused" leads, not "0 up / 0 down". */}
          {d.summary.up + d.summary.down === 0 && d.summary.paused > 0 ? (
            <strong data-testid="summary-paused">{d.summary.paused} paused</strong>
          ) : (
            <>
              <strong class="good">{d.summary.up} up</strong> /{' '}
              <strong class={d.summary.down ? 'bad' : ''}>{d.summary.down} down</strong>
            </>
          )}{' '}
          / <strong class={d.summary.expiring ? 'warn' : ''}>{d.summary.expiring} expiring</strong>
          <span class="muted">
            {' '}
            {d.summary.up + d.summary.down > 0 && `· ${d.summary.paused} paused `}
            {d.summary.maintenance > 0 && (
              <span data-testid="summary-maintenance">· {d.summary.maintenance} in maintenance </span>
            )}
            · {d.summary.unknown} not checked yet · {d.summary.domains} domains, {d.summary.endpoints} endpoints
          </span>
        </p>
      )}
      <form class="filters home-filters" aria-label="Filter" onSubmit={(e) => e.preventDefault()}>
        <Choice
          label="State"
          name="state"
          value={f.state}
          set={set('state')}
          options={[
            ['', 'any'],
            ['down', 'down'],
            ['up', 'up'],
            ['expiring', 'expiring'],
            ['paused', 'paused'],
            ['maintenance', 'in maintenance'],
            ['unknown', 'not checked'],
          ]}
        />
        <Choice
          label="Type"
          name="type"
          value={f.type}
          set={set('type')}
          options={[['', 'any'], ['domain', 'domains'], ['endpoint', 'endpoints'], ...types]}
        />
        <Choice
          label="Portfolio"
          name="portfolio"
          value={f.portfolio_id}
          set={set('portfolio_id')}
          options={[['', 'any'], ...portfolios.map((p) => [p.id, p.name] as const)]}
        />
        <label>
          Search
          <input
            type="search"
            name="q"
            value={text}
            placeholder="name, URL, reason…"
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </label>
        <Choice
          label="Group by"
          name="group"
          value={f.group}
          set={set('group')}
          options={[
            ['domain', 'domain'],
            ['portfolio', 'portfolio'],
          ]}
        />
        <Choice
          label="Sort"
          name="sort"
          value={`${f.sort}:${f.order}`}
          set={(v) => {
            const [sort = 'name', order = 'asc'] = v.split(':');
            setF((x) => ({ ...x, sort, order }));
          }}
          options={[
            ['name:asc', 'name'],
            ['state:asc', 'down first'],
            ['uptime:asc', 'lowest uptime'],
            ['response:desc', 'slowest'],
            ['days_left:asc', 'fewest days left'],
          ]}
        />
      </form>
      {s.error && <LoadError error={s.error} retry={s.reload} />}
      {!d && !s.error && <p class="muted">Loading…</p>}
      {d && d.summary.domains === 0 && (
        <p class="empty" data-testid="home-empty">
          Nothing is monitored yet. Add a domain on the <a href="#/domains">Domains</a> page (or run{' '}
          <code>dommon domains add example.com</code>), then open it to add an endpoint with a liveness check.
        </p>
      )}
      {d && d.summary.domains > 0 && d.data.length === 0 && (
        <p class="empty" data-testid="home-empty">
          Nothing matches these filters.{' '}
          <button
            type="button"
            onClick={() => {
              setText('');
              setF(FILTERS);
            }}
          >
            Clear the filters
          </button>
        </p>
      )}
      {d && d.data.length > 0 && (
        <>
          <EndpointBulkActions
            picked={picked}
            names={new Map(endpoints.map((r) => [r.id, r.name]))}
            done={() => setChosen(new Set())}
          />
          <Table
            testid="home"
            head={[
              ...(canWrite
                ? [
                    <th key="tick" scope="col">
                      <input
                        type="checkbox"
                        aria-label="Select every endpoint on this page"
                        disabled={!endpoints.length}
                        checked={endpoints.length > 0 && picked.length === endpoints.length}
                        onChange={(e) => setChosen(new Set(e.currentTarget.checked ? endpoints.map((r) => r.id) : []))}
                      />
                    </th>,
                  ]
                : []),
              'state',
              'name',
              <th key="beats" scope="col" class="minor">
                last checks
              </th>,
              'uptime 24 h',
              <th key="response" scope="col" class="minor">
                response
              </th>,
              'days left',
              <th key="grade" scope="col" class="minor">
                grade / last check
              </th>,
            ]}
          >
            {d.data.flatMap((r) => {
              const out = [];
              if (r.group !== lastGroup) {
                lastGroup = r.group;
                out.push(
                  <tr key={`g:${r.group}:${r.id}`} class="home-group">
                    <th colSpan={columns} scope="rowgroup">
                      {r.group}
                    </th>
                  </tr>,
                );
              }
              out.push(<HomeRow key={r.id} r={r} tick={tick(r.id)} />);
              return out;
            })}
          </Table>
          <p class="pager">
            <span class="muted">
              {d.pagination.offset + 1}–{d.pagination.offset + d.data.length} of {d.pagination.total}
            </span>{' '}
            {offset > 0 && (
              <button type="button" onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                Previous
              </button>
            )}{' '}
            {d.pagination.has_more && (
              <button type="button" onClick={() => setOffset(offset + PAGE)}>
                Next
              </button>
            )}
          </p>
        </>
      )}
    </>
  );
}
