// Status pages (docs/status-pages.md): the team's public pages with a link to each, and a form to
// create or edit one (its own fields made from the status-page-create schema; the portfolio and the
// endpoints it shows under their display names) and delete it, all through /api/v1/status-pages.
import { useState } from 'preact/hooks';
import { all, api } from '../api.js';
import { usePoll } from '../hooks.js';
import type { Domain, Endpoint, Portfolio, StatusPage } from '../types.js';
import {
  ActionsHead,
  Badge,
  EditDelete,
  Check,
  Choice,
  Field,
  ManagedBadge,
  Message,
  Section,
  Show,
  Table,
  removeAfterConfirm,
} from '../ui.js';
import { Write } from '../scope.js';
import { type Defs, Fields, useSchemaSubmit, useSchemas } from '../schema-form.js';

interface Data {
  pages: StatusPage[];
  portfolios: Portfolio[];
  /** The endpoints of each portfolio's domains, with their domain's name. */
  endpoints: Map<string, (Endpoint & { domain: string })[]>;
}

async function load(): Promise<Data> {
  const [pages, portfolios, domains, endpoints] = await Promise.all([
    all<StatusPage>('/api/v1/status-pages'),
    all<Portfolio>('/api/v1/portfolios'),
    all<Domain>('/api/v1/domains', 1000),
    all<Endpoint>('/api/v1/endpoints', 2000),
  ]);
  const byDomain = new Map(domains.map((d) => [d.id, d]));
  const map = new Map<string, (Endpoint & { domain: string })[]>();
  for (const e of endpoints) {
    const d = byDomain.get(e.domain_id);
    if (!d?.portfolio_id) continue;
    const list = map.get(d.portfolio_id) ?? [];
    list.push({ ...e, domain: d.domain });
    map.set(d.portfolio_id, list);
  }
  return { pages, portfolios, endpoints: map };
}

/** The page's own fields, as the form holds them (made from status-page-create). */
type Values = Record<string, unknown>;

const fromPage = (p: StatusPage): Values => ({
  title: p.title,
  slug: p.slug,
  description: p.description,
  show_certificates: p.show_certificates,
  enabled: p.enabled,
});

/** A slug suggested from the title: lowercase letters, digits and hyphens. */
const slugOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);

/** An error the API named a field for that this form draws itself (the portfolio, the endpoints). */
const errorFor = (errors: Record<string, string>, path: string) =>
  errors[path] ?? Object.entries(errors).find(([k]) => k.startsWith(`${path}.`))?.[1];

/**
 * Create or edit a status page: its own fields come from the schema (status-page-create), the
 * portfolio is a choice of the team's, and the endpoints are picked from the portfolio's, each with
 * its public display name, in the order ticked.
 */
function PageForm({ data, defs, editing, done }: { data: Data; defs: Defs; editing?: StatusPage; done: () => void }) {
  const [values, setValues] = useState<Values>(() => (editing ? fromPage(editing) : {}));
  const [portfolio, setPortfolio] = useState(editing?.portfolio_id ?? data.portfolios[0]?.id ?? '');
  /** Chosen endpoints in page order: id -> display name ('' for the public default, "Service N"). */
  const [picked, setPicked] = useState<[string, string][]>(
    editing ? editing.endpoints.map((e) => [e.endpoint_id, e.display_name ?? '']) : [],
  );
  const [slugTouched, setSlugTouched] = useState(!!editing);
  const candidates = data.endpoints.get(portfolio) ?? [];
  const chosen = new Map(picked);
  const toggle = (id: string, on: boolean) => setPicked(on ? [...picked, [id, '']] : picked.filter(([x]) => x !== id));
  const rename = (id: string, name: string) => setPicked(picked.map(([x, n]) => (x === id ? [x, name] : [x, n])));
  const onValues = (next: Values) => {
    if (next.slug !== values.slug) setSlugTouched(true);
    else if (!slugTouched && next.title !== values.title) {
      const slug = slugOf(String(next.title ?? ''));
      next = slug ? { ...next, slug } : Object.fromEntries(Object.entries(next).filter(([k]) => k !== 'slug'));
    }
    setValues(next);
  };
  const { errors, msg, busy, onSubmit, form } = useSchemaSubmit(async () => {
    const body = {
      ...values,
      portfolio_id: portfolio,
      endpoints: picked.map(([endpoint_id, name]) => ({ endpoint_id, display_name: name.trim() || null })),
    };
    const p = editing
      ? await api<StatusPage>('PUT', `/api/v1/status-pages/${editing.id}`, body)
      : await api<StatusPage>('POST', '/api/v1/status-pages', body);
    if (editing) {
      done();
      return `Saved ${p.title}.`;
    }
    setValues({});
    setPicked([]);
    setSlugTouched(false);
    return `Created ${p.title} at /status/${p.slug}.`;
  });
  if (data.portfolios.length === 0)
    return (
      <p class="muted">
        A status page shows endpoints of one portfolio: <a href="#/portfolios">add a portfolio</a> first, then put
        domains in it (on each domain's page) and add their endpoints.
      </p>
    );
  const portfolioError = errorFor(errors, 'portfolio_id');
  const endpointsError = errorFor(errors, 'endpoints');
  return (
    <form
      ref={form}
      class="stack schema"
      noValidate
      onSubmit={onSubmit}
      aria-label={editing ? `Edit the status page ${editing.title}` : 'Create a status page'}
    >
      <Fields
        key={msg.ok}
        schema={defs['status-page-create']!}
        defs={defs}
        value={values}
        onChange={onValues}
        errors={errors}
        omit={['portfolio_id', 'endpoints']}
      />
      <div class={`field${portfolioError ? ' invalid' : ''}`} data-field="portfolio_id">
        <Choice
          label="Portfolio"
          name="portfolio_id"
          value={portfolio}
          set={(id) => {
            setPortfolio(id);
            setPicked([]);
          }}
          options={data.portfolios.map((p) => [p.id, p.name] as const)}
        />
        {portfolioError && (
          <small class="field-error" role="alert">
            {portfolioError}
          </small>
        )}
      </div>
      <fieldset class={`field nested${endpointsError ? ' invalid' : ''}`} data-field="endpoints">
        <legend>Endpoints shown (in this order)</legend>
        {candidates.length === 0 && (
          <p class="muted">
            No endpoint in this portfolio's domains: pick another portfolio, or open one of its domains on{' '}
            <a href="#/domains">Domains</a> and add an endpoint.
          </p>
        )}
        {[
          ...picked.map(([id]) => candidates.find((c) => c.id === id)).filter((c) => c !== undefined),
          ...candidates.filter((c) => !chosen.has(c.id)),
        ].map((c) => (
          <div key={c.id} class="inline">
            <Check label={`${c.domain} · ${c.name}`} checked={chosen.has(c.id)} set={(on) => toggle(c.id, on)} />
            {chosen.has(c.id) && (
              <Field
                label={`Display name of ${c.name}`}
                value={chosen.get(c.id) ?? ''}
                maxLength={200}
                placeholder={`Service ${picked.findIndex(([x]) => x === c.id) + 1} (the public default)`}
                set={(name) => rename(c.id, name)}
              />
            )}
          </div>
        ))}
        {endpointsError && (
          <small class="field-error" role="alert">
            {endpointsError}
          </small>
        )}
      </fieldset>
      <div class="inline">
        <button type="submit" disabled={busy}>
          {editing ? 'Save status page' : 'Create status page'}
        </button>
        {editing && (
          <button type="button" class="danger" onClick={done}>
            Cancel
          </button>
        )}
      </div>
      <Message msg={msg} />
    </form>
  );
}

export function StatusPages() {
  const s = usePoll(load, 'status-pages');
  const defs = useSchemas();
  const [editing, setEditing] = useState<string | null>(null);
  const remove = async (p: StatusPage) => {
    const gone = await removeAfterConfirm(
      `Delete the status page ${p.title} (/status/${p.slug})?`,
      `/api/v1/status-pages/${p.id}`,
    );
    if (gone && editing === p.id) setEditing(null);
  };
  return (
    <>
      <h1>Status pages</h1>
      <Show s={s}>
        {(d) => {
          const names = new Map(d.portfolios.map((p) => [p.id, p.name]));
          const current = d.pages.find((p) => p.id === editing);
          return (
            <>
              <Section title="Public pages">
                {d.pages.length === 0 ? (
                  <p class="muted" data-testid="empty">
                    No status page yet: create one below to show a portfolio's endpoints to the public.
                  </p>
                ) : (
                  <Table
                    testid="status-pages-table"
                    head={['Title', 'Public page', 'Portfolio', 'Endpoints', 'State', <ActionsHead key="actions" />]}
                  >
                    {d.pages.map((p) => (
                      <tr key={p.id}>
                        <th scope="row">
                          {p.title} <ManagedBadge of={p} />
                        </th>
                        <td>
                          <a href={p.url} target="_blank" rel="noopener">
                            {p.url}
                          </a>
                        </td>
                        <td>{names.get(p.portfolio_id) ?? ''}</td>
                        <td>{p.endpoints.map((e) => e.name).join(', ') || '—'}</td>
                        <td>
                          <Badge value={p.enabled ? 'active' : 'disabled'} />
                          {p.show_certificates ? '' : ' no certificates'}
                        </td>
                        <td>
                          <EditDelete
                            of={p}
                            name={p.title}
                            onEdit={() => setEditing(p.id)}
                            onDelete={() => void remove(p)}
                          />
                        </td>
                      </tr>
                    ))}
                  </Table>
                )}
              </Section>
              <Write>
                {!defs ? (
                  <p class="muted">Loading the form…</p>
                ) : current ? (
                  <Section title={`Edit ${current.title}`}>
                    <PageForm key={current.id} data={d} defs={defs} editing={current} done={() => setEditing(null)} />
                  </Section>
                ) : (
                  <Section title="New status page">
                    <PageForm key="new" data={d} defs={defs} done={() => undefined} />
                  </Section>
                )}
              </Write>
            </>
          );
        }}
      </Show>
    </>
  );
}
