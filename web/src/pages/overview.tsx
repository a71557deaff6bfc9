// Overview: domains by health grade and status, what expires in 7/30/90 days, endpoints down now,
// each with why in words (the Home's rows), the latest events (GET /api/v1/events) and the latest
// notifications sent.
import { all, get } from '../api.js';
import { usePoll } from '../hooks.js';
import type { Domain, EndpointStatus, LogEntry, Renewal } from '../types.js';
import { Badge, Breakable, Section, Show, addDays, fmtTime, isoDay } from '../ui.js';
import { readStates, type RowState } from './home.js';

/** One item of GET /api/v1/events. */
interface EventItem {
  id: string;
  event_type: string;
  category: string | null;
  severity: string;
  message: string;
  domain_id: string | null;
  endpoint_id: string | null;
  created_at: string;
}

interface Data {
  domains: Domain[];
  renewals: Renewal[];
  down: { data: EndpointStatus[]; summary: Record<string, number> };
  /** Why each endpoint listed as down is down, in words. */
  why: Map<string, RowState>;
  log: LogEntry[];
  events: EventItem[];
}

const SEVERITY_TONE: Record<string, string> = {
  critical: 'bad',
  high: 'bad',
  medium: 'warn',
  low: 'none',
  info: 'none',
};

async function load(): Promise<Data> {
  const from = isoDay(new Date());
  const to = isoDay(addDays(90));
  const [domains, doms, certs, down, log, events] = await Promise.all([
    all<Domain>('/api/v1/domains'),
    all<Renewal>(`/api/v1/renewals?type=domains&from=${from}&to=${to}`),
    all<Renewal>(`/api/v1/renewals?type=certificates&from=${from}&to=${to}`),
    get<Data['down']>('/api-endpoint-status?health=critical&limit=20'),
    get<LogEntry[]>('/api/v1/notifications/log?limit=8'),
    get<{ data: EventItem[] }>('/api/v1/events?limit=10'),
  ]);
  const why = await readStates(down.data.map((e) => e.endpoint_id));
  return { domains, renewals: [...doms, ...certs], down, log, events: events.data, why };
}

function countBy<T>(xs: T[], key: (x: T) => string): [string, number][] {
  const m = new Map<string, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

export function Overview() {
  const s = usePoll(load, 'overview');
  return (
    <Show s={s}>
      {(d) => (
        <div class="grid">
          <Section title="Domains by health grade">
            <h3>Grade</h3>
            <ul class="counts">
              {countBy(d.domains, (x) => x.health_grade ?? 'not graded').map(([k, n]) => (
                <li key={k}>
                  <Badge value={k} /> <strong>{n}</strong>
                </li>
              ))}
              {d.domains.length === 0 && (
                <li>
                  No domains yet: <a href="#/domains">add one</a>.
                </li>
              )}
            </ul>
            <h3>Status</h3>
            <ul class="counts">
              {countBy(d.domains, (x) => x.overall_status).map(([k, n]) => (
                <li key={k}>
                  <Badge value={k} /> <strong>{n}</strong>
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Expiring">
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">within</th>
                    <th scope="col">domains</th>
                    <th scope="col">
                      <abbr title="certificates">certs</abbr>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {[7, 30, 90].map((n) => (
                    <tr key={n}>
                      <th scope="row">{n} days</th>
                      {(['domain', 'certificate'] as const).map((k) => (
                        <td key={k} data-testid={`expiring-${k}-${n}`}>
                          {d.renewals.filter((r) => r.kind === k && r.days_until_expiry <= n).length}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p>
              <a href="#/renewals">Renewals calendar</a>
            </p>
          </Section>
          <Section title="Endpoints down now">
            <p>
              {d.down.summary.critical ?? 0} critical of {d.down.summary.total ?? 0} endpoints (
              {d.down.summary.warning ?? 0} warning)
            </p>
            {d.down.data.length === 0 && (
              <p class="muted">
                {(d.down.summary.total ?? 0) === 0
                  ? 'No endpoints yet: open a domain and add its site, API or mail server.'
                  : 'None: every endpoint answers.'}
              </p>
            )}
            <ul>
              {d.down.data.map((e) => (
                <li key={e.endpoint_id}>
                  <a href={`#/endpoints/${e.endpoint_id}`}>
                    <Breakable text={e.endpoint.full_url} />
                  </a>{' '}
                  <Badge value={e.liveness.status} />
                  {d.why.get(e.endpoint_id)?.reason && (
                    <div class="bad reason" data-testid="reason">
                      {d.why.get(e.endpoint_id)!.reason}
                    </div>
                  )}
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Latest events">
            {d.events.length === 0 ? (
              <p class="muted" data-testid="events-empty">
                No events yet: outages, recoveries, certificate and expiry alerts show here once a domain or an endpoint
                is watched (<a href="#/domains">add a domain</a>, then its endpoints).
              </p>
            ) : (
              <ul data-testid="events">
                {d.events.map((e) => (
                  <li key={e.id}>
                    <span class={`badge ${SEVERITY_TONE[e.severity] ?? 'none'}`}>{e.severity}</span>{' '}
                    {e.endpoint_id ? (
                      <a href={`#/endpoints/${e.endpoint_id}`}>
                        <Breakable text={e.message} />
                      </a>
                    ) : e.domain_id ? (
                      <a href={`#/domains/${e.domain_id}`}>
                        <Breakable text={e.message} />
                      </a>
                    ) : (
                      <Breakable text={e.message} />
                    )}{' '}
                    <span class="muted">{fmtTime(e.created_at)}</span>
                  </li>
                ))}
              </ul>
            )}
          </Section>
          <Section title="Latest notifications">
            {d.log.length === 0 ? (
              <p class="muted" data-testid="notifications-empty">
                Nothing sent yet: set up a channel on <a href="#/notifications">Notifications</a> and send it a test.
              </p>
            ) : (
              <ul>
                {d.log.map((l) => (
                  <li key={l.id}>
                    <Badge value={l.status} /> {l.message_preview ?? l.channels.join(', ')}{' '}
                    <span class="muted">{fmtTime(l.created_at)}</span>
                  </li>
                ))}
              </ul>
            )}
            <p>
              <a href="#/notifications">Notifications</a>
            </p>
          </Section>
        </div>
      )}
    </Show>
  );
}
