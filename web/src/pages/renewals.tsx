// Renewals calendar: domain and certificate expiries of the next 12 months, month by month.
import { all } from '../api.js';
import { usePoll } from '../hooks.js';
import type { Renewal } from '../types.js';
import { Badge, Days, Section, Show, addDays, isoDay } from '../ui.js';

async function load(): Promise<Renewal[]> {
  const q = `from=${isoDay(new Date())}&to=${isoDay(addDays(366))}`;
  const [d, c] = await Promise.all([
    all<Renewal>(`/api/v1/renewals?type=domains&${q}`, 1000),
    all<Renewal>(`/api/v1/renewals?type=certificates&${q}`, 1000),
  ]);
  return [...d, ...c].sort((a, b) => a.expiry_date.localeCompare(b.expiry_date));
}

export function Renewals() {
  const s = usePoll(load, 'renewals', 300_000);
  return (
    <Show s={s}>
      {(items) => {
        const months = new Map<string, Renewal[]>();
        for (const r of items) {
          const m = r.expiry_date.slice(0, 7);
          months.set(m, [...(months.get(m) ?? []), r]);
        }
        if (months.size === 0)
          return (
            <p class="muted">
              Nothing expires in the next 12 months, or no expiry date is known yet: <a href="#/domains">add domains</a>{' '}
              (their registration) and https endpoints (their certificates).
            </p>
          );
        return (
          <div class="grid">
            {[...months.entries()].map(([m, rs]) => (
              <Section
                key={m}
                title={new Date(`${m}-01T00:00:00Z`).toLocaleDateString(undefined, {
                  year: 'numeric',
                  month: 'long',
                  timeZone: 'UTC',
                })}
              >
                <ul>
                  {rs.map((r) => (
                    <li key={`${r.kind}:${r.id}`}>
                      <span class="muted">{r.expiry_date.slice(8)}</span>{' '}
                      <a href={r.endpoint_id ? `#/endpoints/${r.endpoint_id}` : `#/domains/${r.domain_id}`}>{r.name}</a>{' '}
                      <span class="muted">{r.kind}</span> <Badge value={r.status} /> <Days days={r.days_until_expiry} />{' '}
                      d
                    </li>
                  ))}
                </ul>
              </Section>
            ))}
          </div>
        );
      }}
    </Show>
  );
}
