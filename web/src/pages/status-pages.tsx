// Status pages (docs/status-pages.md): the team's public pages with a link to each, and a form to
// create or edit one (title, slug, description, portfolio, the endpoints it shows under their
// display names, certificates shown or not, enabled) and delete it, all through /api/v1/status-pages.
import { useState } from 'preact/hooks';
import { all, api } from '../api.js';
import { usePoll } from '../hooks.js';
import type { Domain, Endpoint, Portfolio, StatusPage } from '../types.js';
import {
  ActionsHead,
  Badge,
  Check,
  Choice,
  Field,
  Message,
  Section,
  Show,
  Table,
  removeAfterConfirm,
  useSubmit,
} from '../ui.js';
import { Write } from '../scope.js';

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

interface Form {
  title: string;
  slug: string;
  description: string;
  portfolio: string;
  show_certificates: boolean;
  enabled: boolean;
  /** Chosen endpoints in page order: id -> display name ('' for the public default, "Service N"). */
  chosen: [string, string][];
}

const blank = (portfolio: string): Form => ({
  title: '',
  slug: '',
  description: '',
  portfolio,
  show_certificates: true,
  enabled: true,
  chosen: [],
});

const fromPage = (p: StatusPage): Form => ({
  title: p.title,
  slug: p.slug,
  description: p.description ?? '',
  portfolio: p.portfolio_id,
  show_certificates: p.show_certificates,
  enabled: p.enabled,
  chosen: p.endpoints.map((e) => [e.endpoint_id, e.display_name ?? '']),
});

/** A slug suggested from the title: lowercase letters, digits and hyphens. */
const slugOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);

function PageForm({ data, editing, done }: { data: Data; editing?: StatusPage; done: () => void }) {
  const [f, setF] = useState<Form>(() => (editing ? fromPage(editing) : blank(data.portfolios[0]?.id ?? '')));
  const [slugTouched, setSlugTouched] = useState(!!editing);
  const candidates = data.endpoints.get(f.portfolio) ?? [];
  const chosen = new Map(f.chosen);
  const toggle = (id: string, on: boolean) =>
    setF({ ...f, chosen: on ? [...f.chosen, [id, '']] : f.chosen.filter(([x]) => x !== id) });
  const rename = (id: string, name: string) =>
    setF({ ...f, chosen: f.chosen.map(([x, n]) => (x === id ? [x, name] : [x, n])) });
  const { msg, busy, onSubmit } = useSubmit(async () => {
    const body = {
      title: f.title.trim(),
      slug: f.slug.trim(),
      description: f.description.trim() || null,
      portfolio_id: f.portfolio,
      show_certificates: f.show_certificates,
      enabled: f.enabled,
      endpoints: f.chosen.map(([endpoint_id, name]) => ({ endpoint_id, display_name: name.trim() || null })),
    };
    const p = editing
      ? await api<StatusPage>('PUT', `/api/v1/status-pages/${editing.id}`, body)
      : await api<StatusPage>('POST', '/api/v1/status-pages', body);
    if (editing) {
      done();
      return `Saved ${p.title}.`;
    }
    setF(blank(f.portfolio));
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
  return (
    <form
      class="stack"
      onSubmit={onSubmit}
      aria-label={editing ? `Edit the status page ${editing.title}` : 'Create a status page'}
    >
      <div class="inline">
        <Field
          label="Title"
          name="title"
          required
          maxLength={200}
          value={f.title}
          set={(title) => setF({ ...f, title, slug: slugTouched ? f.slug : slugOf(title) })}
        />
        <Field
          label="Slug"
          name="slug"
          required
          pattern="[a-z0-9][a-z0-9\-]*[a-z0-9]"
          minLength={3}
          maxLength={64}
          value={f.slug}
          placeholder="acme"
          set={(slug) => {
            setSlugTouched(true);
            setF({ ...f, slug });
          }}
        />
        <Choice
          label="Portfolio"
          name="portfolio"
          value={f.portfolio}
          set={(portfolio) => setF({ ...f, portfolio, chosen: [] })}
          options={data.portfolios.map((p) => [p.id, p.name] as const)}
        />
      </div>
      <label>
        Description
        <textarea
          name="description"
          rows={2}
          maxLength={2000}
          value={f.description}
          onInput={(e) => setF({ ...f, description: e.currentTarget.value })}
        />
      </label>
      <div class="inline">
        <Check
          label="Show certificates"
          checked={f.show_certificates}
          set={(show_certificates) => setF({ ...f, show_certificates })}
        />
        <Check label="Enabled (public)" checked={f.enabled} set={(enabled) => setF({ ...f, enabled })} />
      </div>
      <fieldset>
        <legend>Endpoints shown (in this order)</legend>
        {candidates.length === 0 && <p class="muted">No endpoint in this portfolio's domains.</p>}
        {[
          ...f.chosen.map(([id]) => candidates.find((c) => c.id === id)).filter((c) => c !== undefined),
          ...candidates.filter((c) => !chosen.has(c.id)),
        ].map((c) => (
          <div key={c.id} class="inline">
            <Check label={`${c.domain} · ${c.name}`} checked={chosen.has(c.id)} set={(on) => toggle(c.id, on)} />
            {chosen.has(c.id) && (
              <Field
                label={`Display name of ${c.name}`}
                value={chosen.get(c.id) ?? ''}
                maxLength={200}
                placeholder={`Service ${f.chosen.findIndex(([x]) => x === c.id) + 1} (the public default)`}
                set={(name) => rename(c.id, name)}
              />
            )}
          </div>
        ))}
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
                        <th scope="row">{p.title}</th>
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
                          <Write>
                            <button
                              type="button"
                              class="small"
                              onClick={() => setEditing(p.id)}
                              aria-label={`Edit ${p.title}`}
                            >
                              Edit
                            </button>{' '}
                            <button
                              type="button"
                              class="danger small"
                              onClick={() => void remove(p)}
                              aria-label={`Delete ${p.title}`}
                            >
                              Delete
                            </button>
                          </Write>
                        </td>
                      </tr>
                    ))}
                  </Table>
                )}
              </Section>
              <Write>
                {current ? (
                  <Section title={`Edit ${current.title}`}>
                    <PageForm key={current.id} data={d} editing={current} done={() => setEditing(null)} />
                  </Section>
                ) : (
                  <Section title="New status page">
                    <PageForm key="new" data={d} done={() => undefined} />
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
