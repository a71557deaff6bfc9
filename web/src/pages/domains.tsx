// Domains: a sortable, filterable table of the team's domains (the certificate that expires first from
// the renewals list, the DNS security score from the Home's domain rows), with add and remove.
import { useState } from 'preact/hooks';
import { all, api } from '../api.js';
import { usePoll } from '../hooks.js';
import type { Domain, Portfolio, Renewal } from '../types.js';
import {
  Badge,
  ChangeButton,
  Days,
  Field,
  ManagedBadge,
  Message,
  PortfolioChoice,
  Section,
  Show,
  Table,
  fmtDay,
  isoDay,
  removeAfterConfirm,
  type Managed,
  useSubmit,
} from '../ui.js';
import { Write } from '../scope.js';
import { naturalCompare } from '../sort.js';

interface Row {
  id: string;
  name: string;
  portfolio: string;
  registrar: string;
  expiry: string;
  days: number | null;
  /** Days left of the domain's certificate that expires first. */
  cert: number | null;
  certStatus: string | null;
  security: number | null;
  health: number | null;
  grade: string | null;
  managed: Managed;
}

const daysUntil = (date: string) =>
  Math.round((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${isoDay(new Date())}T00:00:00Z`)) / 86_400_000);

async function load(): Promise<{ rows: Row[]; portfolios: Portfolio[] }> {
  // The DNS security scores come with the Home's domain rows: paged lists, never a read per domain.
  const [domains, portfolios, certs, scored] = await Promise.all([
    all<Domain>('/api/v1/domains', 1000),
    all<Portfolio>('/api/v1/portfolios'),
    all<Renewal>('/api/v1/renewals?type=certificates', 2000),
    all<{ id: string; dns_score: number | null }>('/api/v1/home?type=domain&checks=1', 1000),
  ]);
  const security = new Map(scored.map((r) => [r.id, r.dns_score]));
  const names = new Map(portfolios.map((p) => [p.id, p.name]));
  // The domain's certificate that expires first (renewals come soonest first).
  const cert = new Map<string, Renewal>();
  for (const c of certs) if (!cert.has(c.domain_id)) cert.set(c.domain_id, c);
  const rows = domains.map((d): Row => {
    const expiry = d.expiry_date ?? d.whois.expiry_date ?? '';
    const c = cert.get(d.id);
    return {
      id: d.id,
      name: d.domain,
      portfolio: (d.portfolio_id && names.get(d.portfolio_id)) || '',
      registrar: d.whois.registrar ?? '',
      expiry,
      days: expiry ? daysUntil(expiry) : null,
      cert: c ? c.days_until_expiry : null,
      certStatus: c?.status ?? null,
      security: security.get(d.id) ?? null,
      health: d.health_score,
      grade: d.health_grade,
      managed: { managed_by: d.managed_by, editable: d.editable },
    };
  });
  return { rows, portfolios };
}

/** Columns; the `minor` ones give way on a narrow screen, so days left and health stay in view. */
const COLUMNS: [keyof Row, string, minor?: boolean][] = [
  ['name', 'Domain'],
  ['portfolio', 'Portfolio', true],
  ['registrar', 'Registrar', true],
  ['expiry', 'Expiry', true],
  ['days', 'Days left'],
  ['cert', 'Certificate'],
  ['security', 'Security', true],
  ['health', 'Health'],
];
const minor = 'minor';

function compare(a: Row, b: Row, key: keyof Row): number {
  const x = a[key];
  const y = b[key];
  // Empty values last, whichever the direction.
  if (x === null || x === '') return y === null || y === '' ? 0 : 1;
  if (y === null || y === '') return -1;
  return typeof x === 'number' && typeof y === 'number' ? x - y : naturalCompare(String(x), String(y));
}

function AddDomain({ portfolios }: { portfolios: Portfolio[] }) {
  const [name, setName] = useState('');
  const [portfolio, setPortfolio] = useState('');
  const { msg, errors, busy, onSubmit } = useSubmit(async () => {
    const d = await api<Domain>('POST', '/api/v1/domains', {
      domain: name.trim(),
      ...(portfolio ? { portfolio_id: portfolio } : {}),
    });
    setName('');
    return `Added ${d.domain}.`;
  }, ['domain', 'portfolio_id']);
  return (
    <form class="inline" onSubmit={onSubmit} aria-label="Add a domain">
      <Field
        label="Domain name"
        name="domain"
        value={name}
        set={setName}
        required
        placeholder="example.com"
        error={errors.domain}
      />
      <PortfolioChoice
        name="portfolio"
        value={portfolio}
        set={setPortfolio}
        portfolios={portfolios}
        error={errors.portfolio_id}
      />
      <button type="submit" disabled={busy}>
        Add domain
      </button>
      <Message msg={msg} />
    </form>
  );
}

export function Domains() {
  const s = usePoll(load, 'domains');
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<{ key: keyof Row; dir: 1 | -1 }>({ key: 'name', dir: 1 });
  const remove = (r: Row) =>
    removeAfterConfirm(`Remove ${r.name} with its endpoints, checks and history?`, `/api/v1/domains/${r.id}`);
  return (
    <>
      <Write>
        <Section title="Add a domain">
          <AddDomain portfolios={s.data?.portfolios ?? []} />
        </Section>
      </Write>
      <Section title="Domains">
        <div class="filter">
          <Field
            label="Filter"
            type="search"
            value={filter}
            set={setFilter}
            placeholder="name, portfolio, registrar, state"
          />
        </div>
        <Show s={s}>
          {({ rows }) => {
            const f = filter.trim().toLowerCase();
            const shown = rows
              .filter(
                (r) =>
                  !f ||
                  [r.name, r.portfolio, r.registrar, r.certStatus ?? '', r.grade ?? ''].some((v) =>
                    v.toLowerCase().includes(f),
                  ),
              )
              .sort((a, b) => compare(a, b, sort.key) * sort.dir);
            if (!rows.length)
              return (
                <p class="muted" data-testid="empty">
                  No domains yet. Add one above (its registration, certificates and DNS are checked at once), or import
                  many with <code>dommon domains import FILE</code>.
                </p>
              );
            if (!shown.length)
              return (
                <p class="muted" data-testid="empty">
                  No domain of {rows.length} matches “{filter.trim()}”.{' '}
                  <button type="button" onClick={() => setFilter('')}>
                    Clear the filter
                  </button>
                </p>
              );
            return (
              <Table
                testid="domains-table"
                caption={`${shown.length} of ${rows.length} domains`}
                head={[
                  ...COLUMNS.map(([key, label, narrow]) => (
                    <th
                      key={key}
                      scope="col"
                      class={narrow ? minor : undefined}
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
                  )),
                  <th key="actions" scope="col" class={minor}>
                    <span class="sr-only">Actions</span>
                  </th>,
                ]}
              >
                {shown.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      <a href={`#/domains/${r.id}`}>{r.name}</a> <ManagedBadge of={r.managed} />
                    </th>
                    <td class={minor}>{r.portfolio}</td>
                    <td class={minor}>{r.registrar}</td>
                    <td class={minor}>{fmtDay(r.expiry)}</td>
                    <td>
                      <Days days={r.days} />
                    </td>
                    <td>
                      {r.certStatus && <Badge value={r.certStatus} />} {r.cert === null ? '' : `${r.cert} d`}
                    </td>
                    <td class={minor}>{r.security ?? '—'}</td>
                    <td>
                      {r.health ?? '—'} {r.grade && <Badge value={r.grade} />}
                    </td>
                    <td class={minor}>
                      <Write>
                        <ChangeButton
                          of={r.managed}
                          class="danger small"
                          onClick={() => void remove(r)}
                          aria-label={`Remove ${r.name}`}
                        >
                          Remove
                        </ChangeButton>
                      </Write>
                    </td>
                  </tr>
                ))}
              </Table>
            );
          }}
        </Show>
      </Section>
    </>
  );
}
