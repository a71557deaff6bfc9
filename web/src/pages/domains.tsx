// Domains: a sortable, filterable table of the team's domains (certificate state and security score
// read per domain from its status and security answers), with add and remove.
import { useState } from 'preact/hooks';
import { ApiError, all, api, get, pool } from '../api.js';
import { refreshAll, usePoll } from '../hooks.js';
import type { Domain, DomainStatus, Portfolio, Security } from '../types.js';
import { Badge, Days, Section, Show } from '../ui.js';

interface Row {
  id: string;
  name: string;
  portfolio: string;
  registrar: string;
  expiry: string;
  days: number | null;
  cert: string;
  security: number | null;
  health: number | null;
  grade: string | null;
}

/** Per-domain reads (status, security) for at most this many rows. */
const DETAIL_ROWS = 100;

async function load(): Promise<{ rows: Row[]; portfolios: Portfolio[] }> {
  const [domains, portfolios] = await Promise.all([
    all<Domain>('/api/v1/domains'),
    all<Portfolio>('/api/v1/portfolios'),
  ]);
  const names = new Map(portfolios.map((p) => [p.id, p.name]));
  const details = await pool(domains.slice(0, DETAIL_ROWS), 4, (d) =>
    Promise.all([
      get<DomainStatus>(`/api/v1/domains/${d.id}/status`).catch(() => undefined),
      get<Security>(`/api/v1/domains/${d.id}/security`).catch(() => undefined),
    ]),
  );
  const rows = domains.map((d, i): Row => {
    const [st, sec] = details[i] ?? [];
    return {
      id: d.id,
      name: d.domain,
      portfolio: (d.portfolio_id && names.get(d.portfolio_id)) || '',
      registrar: d.whois.registrar ?? '',
      expiry: st?.whois.expiry_date ?? d.expiry_date ?? d.whois.expiry_date ?? '',
      days: st?.whois.days_until_expiry ?? null,
      cert: st?.ssl.status ?? '',
      security: sec?.security_score ?? null,
      health: st?.health_score ?? d.health_score,
      grade: st?.health_grade ?? d.health_grade,
    };
  });
  return { rows, portfolios };
}

const COLUMNS: [keyof Row, string][] = [
  ['name', 'Domain'],
  ['portfolio', 'Portfolio'],
  ['registrar', 'Registrar'],
  ['expiry', 'Expiry'],
  ['days', 'Days left'],
  ['cert', 'Certificate'],
  ['security', 'Security'],
  ['health', 'Health'],
];

function compare(a: Row, b: Row, key: keyof Row): number {
  const x = a[key];
  const y = b[key];
  // Empty values last, whichever the direction.
  if (x === null || x === '') return y === null || y === '' ? 0 : 1;
  if (y === null || y === '') return -1;
  return typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
}

function AddDomain({ portfolios }: { portfolios: Portfolio[] }) {
  const [name, setName] = useState('');
  const [portfolio, setPortfolio] = useState('');
  const [msg, setMsg] = useState<{ error?: string; ok?: string }>({});
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const d = await api<Domain>('POST', '/api/v1/domains', {
        domain: name.trim(),
        ...(portfolio ? { portfolio_id: portfolio } : {}),
      });
      setMsg({ ok: `Added ${d.domain}.` });
      setName('');
      refreshAll();
    } catch (err) {
      setMsg({ error: err instanceof ApiError ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="inline" onSubmit={(e) => void submit(e)} aria-label="Add a domain">
      <label>
        Domain name
        <input
          name="domain"
          value={name}
          required
          placeholder="example.com"
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <label>
        Portfolio
        <select name="portfolio" value={portfolio} onChange={(e) => setPortfolio(e.currentTarget.value)}>
          <option value="">none</option>
          {portfolios.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={busy}>
        Add domain
      </button>
      {msg.error && (
        <p class="error" role="alert">
          {msg.error}
        </p>
      )}
      {msg.ok && <p role="status">{msg.ok}</p>}
    </form>
  );
}

export function Domains() {
  const s = usePoll(load, 'domains', 60_000);
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<{ key: keyof Row; dir: 1 | -1 }>({ key: 'name', dir: 1 });
  const remove = async (r: Row) => {
    if (!confirm(`Remove ${r.name} with its endpoints, checks and history?`)) return;
    try {
      await api('DELETE', `/api/v1/domains/${r.id}`);
      refreshAll();
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <>
      <Section title="Add a domain">
        <AddDomain portfolios={s.data?.portfolios ?? []} />
      </Section>
      <Section title="Domains">
        <label class="filter">
          Filter
          <input
            type="search"
            value={filter}
            placeholder="name, portfolio, registrar, state"
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
        </label>
        <Show s={s}>
          {({ rows }) => {
            const f = filter.trim().toLowerCase();
            const shown = rows
              .filter(
                (r) =>
                  !f ||
                  [r.name, r.portfolio, r.registrar, r.cert, r.grade ?? ''].some((v) => v.toLowerCase().includes(f)),
              )
              .sort((a, b) => compare(a, b, sort.key) * sort.dir);
            return (
              <div class="scroll">
                <table class="data" data-testid="domains-table">
                  <caption class="muted">
                    {shown.length} of {rows.length} domains
                  </caption>
                  <thead>
                    <tr>
                      {COLUMNS.map(([key, label]) => (
                        <th
                          key={key}
                          scope="col"
                          aria-sort={sort.key === key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}
                        >
                          <button
                            type="button"
                            class="sort"
                            onClick={() => setSort({ key, dir: sort.key === key ? (sort.dir === 1 ? -1 : 1) : 1 })}
                          >
                            {label}
                            <span aria-hidden="true">{sort.key === key ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}</span>
                          </button>
                        </th>
                      ))}
                      <th scope="col">
                        <span class="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((r) => (
                      <tr key={r.id}>
                        <th scope="row">
                          <a href={`#/domains/${r.id}`}>{r.name}</a>
                        </th>
                        <td>{r.portfolio}</td>
                        <td>{r.registrar}</td>
                        <td>{r.expiry}</td>
                        <td>
                          <Days days={r.days} />
                        </td>
                        <td>{r.cert && <Badge value={r.cert} />}</td>
                        <td>{r.security ?? '—'}</td>
                        <td>
                          {r.health ?? '—'} {r.grade && <Badge value={r.grade} />}
                        </td>
                        <td>
                          <button
                            type="button"
                            class="danger"
                            onClick={() => void remove(r)}
                            aria-label={`Remove ${r.name}`}
                          >
                            Remove
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            );
          }}
        </Show>
      </Section>
    </>
  );
}
