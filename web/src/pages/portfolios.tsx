// Portfolios: the team's groups of domains, with a form to add one and, per row, to edit or delete
// it. The forms are made from the API's schemas (portfolio-create, portfolio-update).
import { useState } from 'preact/hooks';
import { all, api } from '../api.js';
import { usePoll } from '../hooks.js';
import type { Domain, Portfolio } from '../types.js';
import { ActionsHead, ChangeButton, ManagedBadge, Message, Section, Show, Table, removeAfterConfirm } from '../ui.js';
import { Write } from '../scope.js';
import { type Defs, Fields, useSchemaSubmit, useSchemas } from '../schema-form.js';
import { naturalCompare } from '../sort.js';

interface Row extends Portfolio {
  description: string | null;
}

async function load() {
  const [portfolios, domains] = await Promise.all([
    all<Row>('/api/v1/portfolios'),
    all<Domain>('/api/v1/domains', 1000),
  ]);
  const count = new Map<string, number>();
  for (const d of domains) if (d.portfolio_id) count.set(d.portfolio_id, (count.get(d.portfolio_id) ?? 0) + 1);
  return { portfolios: portfolios.sort((a, b) => naturalCompare(a.name, b.name)), count };
}

/** Add (no `row`) or edit a portfolio. */
function PortfolioForm({ defs, row, done }: { defs: Defs; row?: Row; done?: () => void }) {
  const [value, setValue] = useState<Record<string, unknown>>(
    row ? { name: row.name, description: row.description } : {},
  );
  const { errors, msg, onSubmit, form, busy } = useSchemaSubmit(async () => {
    if (row) {
      await api('PUT', `/api/v1/portfolios/${row.id}`, value);
      done?.();
      return `Saved ${String(value.name ?? row.name)}.`;
    }
    await api('POST', '/api/v1/portfolios', value);
    setValue({});
    return `Added ${String(value.name)}.`;
  });
  return (
    <form
      ref={form}
      class="stack schema"
      noValidate
      onSubmit={onSubmit}
      aria-label={row ? `Edit the portfolio ${row.name}` : 'Add a portfolio'}
    >
      <Fields
        key={msg.ok}
        schema={defs[row ? 'portfolio-update' : 'portfolio-create']!}
        defs={defs}
        value={value}
        onChange={setValue}
        errors={errors}
      />
      <p>
        <button type="submit" disabled={busy}>
          {row ? 'Save' : 'Add portfolio'}
        </button>{' '}
        {row && (
          <button type="button" onClick={done}>
            Cancel
          </button>
        )}
      </p>
      <Message msg={msg} />
    </form>
  );
}

export function Portfolios() {
  const s = usePoll(load, 'portfolios');
  const defs = useSchemas();
  const [editing, setEditing] = useState<string>();
  return (
    <>
      <h1>Portfolios</h1>
      <Show s={s}>
        {(d) => (
          <Section title="Your portfolios">
            {d.portfolios.length === 0 ? (
              <p class="muted" data-testid="empty">
                No portfolio yet. A portfolio groups domains (for a status page, a filter, a report): add one below,
                then pick it when you add or edit a domain.
              </p>
            ) : (
              <Table testid="portfolios-table" head={['Name', 'Description', 'Domains', <ActionsHead key="a" />]}>
                {d.portfolios.map((p) => (
                  <tr key={p.id}>
                    <td>
                      <strong>{p.name}</strong> <ManagedBadge of={p} />
                    </td>
                    <td>{p.description ?? <span class="muted">—</span>}</td>
                    <td>{d.count.get(p.id) ?? 0}</td>
                    <td>
                      <Write>
                        <ChangeButton of={p} class="small" onClick={() => setEditing(p.id)}>
                          Edit
                        </ChangeButton>{' '}
                        <ChangeButton
                          of={p}
                          class="small danger"
                          aria-label={`Delete ${p.name}`}
                          onClick={() =>
                            void removeAfterConfirm(
                              `Delete the portfolio ${p.name}? (Only an empty one can be: move its domains first.)`,
                              `/api/v1/portfolios/${p.id}`,
                            )
                          }
                        >
                          Delete
                        </ChangeButton>
                      </Write>
                    </td>
                  </tr>
                ))}
              </Table>
            )}
            {defs && editing && d.portfolios.some((p) => p.id === editing) && (
              <Write>
                <h3>Edit</h3>
                <PortfolioForm
                  key={editing}
                  defs={defs}
                  row={d.portfolios.find((p) => p.id === editing)}
                  done={() => setEditing(undefined)}
                />
              </Write>
            )}
          </Section>
        )}
      </Show>
      <Write>
        <Section title="Add a portfolio">
          {defs ? <PortfolioForm defs={defs} /> : <p class="muted">Loading…</p>}
        </Section>
      </Write>
    </>
  );
}
