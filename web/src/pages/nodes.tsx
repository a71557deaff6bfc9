// Nodes (docs/scale-out.md): every `dommon serve` process on this database, from GET /api/v1/nodes:
// name, role, region, version, last heartbeat (stale after 30 s without one), the liveness work it
// claims, its checks per minute and the singleton jobs it runs.
import { get } from '../api.js';
import { usePoll } from '../hooks.js';
import { Badge, Section, Show, Table, fmtTime } from '../ui.js';

interface Node {
  name: string;
  role: string;
  region: string;
  version: string;
  host: string;
  pid: number;
  status: 'live' | 'stale';
  started_at: string;
  last_heartbeat: string;
  heartbeat_age_seconds: number;
  work_claimed: number;
  checks_total: number;
  checks_per_minute: number;
  singletons: string[];
}

interface RegionCount {
  region: string;
  nodes: number;
  live: number;
}

// An operator token reads every node (`data`); any other token reads counts and regions only.
const load = () => get<{ data?: Node[]; live: number; total: number; regions?: RegionCount[] }>('/api/v1/nodes');

export function Nodes() {
  const s = usePoll(load, 'nodes');
  return (
    <>
      <h1>Nodes</h1>
      <Show s={s}>
        {(d) => (
          <Section title={`${d.live} of ${d.total} live`}>
            {!d.data && (
              <>
                <Table testid="nodes-regions" head={['Region', 'Nodes', 'Live']}>
                  {(d.regions ?? []).map((r) => (
                    <tr key={r.region}>
                      <th scope="row">{r.region || '—'}</th>
                      <td>{r.nodes}</td>
                      <td>{r.live}</td>
                    </tr>
                  ))}
                </Table>
                <p class="muted">
                  Node details (names, hosts, versions) are the operator's: <code>dommon nodes</code>, or a token made
                  with <code>dommon token create --operator</code>.
                </p>
              </>
            )}
            {d.data && (
              <Table
                testid="nodes-table"
                head={[
                  'Name',
                  'Role',
                  'Region',
                  'Version',
                  'Last heartbeat',
                  'State',
                  'Work claimed',
                  'Checks / min',
                  'Singletons',
                ]}
              >
                {d.data.map((n) => (
                  <tr key={n.name}>
                    <th scope="row">
                      {n.name}
                      <div class="muted">
                        {n.host} · pid {n.pid}
                      </div>
                    </th>
                    <td>{n.role}</td>
                    <td>{n.region || '—'}</td>
                    <td>{n.version}</td>
                    <td>
                      {fmtTime(n.last_heartbeat)} <span class="muted">({n.heartbeat_age_seconds} s ago)</span>
                    </td>
                    <td>
                      <Badge value={n.status} />
                    </td>
                    <td>{n.work_claimed}</td>
                    <td>{Math.round(n.checks_per_minute * 10) / 10}</td>
                    <td>{n.singletons.join(', ') || '—'}</td>
                  </tr>
                ))}
              </Table>
            )}
            <p class="muted">
              A node is stale after 30 s without a heartbeat (it stopped, or cannot reach the database); its row goes
              after 24 h.
            </p>
          </Section>
        )}
      </Show>
    </>
  );
}
