// Why an endpoint is down: the last failure in words, response times with the failed checks over
// 1 h / 24 h / 7 d / 30 d, the incidents (down, recovered, how long, the notifications sent for
// each) and the check history (time, duration, status, error), each paged.
import { useEffect, useRef, useState } from 'preact/hooks';
import { all, get } from '../api.js';
import { usePoll } from '../hooks.js';
import type { DailyStat, LivenessResult } from '../types.js';
import { Badge, LoadError, Section, Table, fmtTime } from '../ui.js';

interface Result extends LivenessResult {
  status_code: number | null;
  error: string | null;
  region: string;
  /** The failure in words (null for a check that passed). */
  reason: string | null;
  /** icmp endpoints: what the echo requests saw. */
  icmp?: {
    packets_sent: number;
    packets_received: number;
    loss_percent: number;
    rtt_min_ms: number | null;
    rtt_avg_ms: number | null;
    rtt_max_ms: number | null;
  };
}

/** An icmp result's echo counts, loss and round trips, as the CLI writes them. */
function echo(s: NonNullable<Result['icmp']>): string {
  const counts = `${s.packets_received}/${s.packets_sent} replies, ${s.loss_percent} % lost`;
  return s.rtt_avg_ms === null ? counts : `${counts}, min/avg/max ${s.rtt_min_ms}/${s.rtt_avg_ms}/${s.rtt_max_ms} ms`;
}

interface Incident {
  id: string;
  started_at: string;
  recovered_at: string | null;
  duration_seconds: number;
  ongoing: boolean;
  reason: string | null;
  notifications: {
    for: 'down' | 'recovery';
    channel: string;
    recipient: string | null;
    status: string;
    sent_at: string | null;
    error: string | null;
  }[];
}

interface Page<T> {
  data: T[];
  pagination: { total: number; offset: number; has_more: boolean };
}

interface HourlyStat {
  hour: string;
  total_tests: number;
  successful_tests: number;
  avg_response_time_ms: number;
}

/** A span in words: 42 s, 3 min 5 s, 2 h 10 min, 1 d 4 h. */
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h${m % 60 ? ` ${m % 60} min` : ''}`;
  return `${Math.floor(h / 24)} d${h % 24 ? ` ${h % 24} h` : ''}`;
}

const RANGES = [
  ['1h', '1 h'],
  ['24h', '24 h'],
  ['7d', '7 d'],
  ['30d', '30 d'],
] as const;
type Range = (typeof RANGES)[number][0];

type Points = [number[], (number | null)[], number[]];

/** The chart's points of a range: each check (1 h), each hour (24 h, 7 d) or each day (30 d). */
async function rangePoints(live: string, range: Range): Promise<{ points: Points; checks: number; failed: number }> {
  const points: Points = [[], [], []];
  let checks = 0;
  let failed = 0;
  if (range === '1h') {
    const rs = await all<Result>(`/api/v1/liveness/${live}/results?hours=1`, 500);
    for (const r of [...rs].reverse()) {
      points[0].push(Date.parse(r.test_timestamp) / 1000);
      points[1].push(r.is_successful ? r.response_time_ms : null);
      points[2].push(r.is_successful ? 0 : 1);
      checks++;
      if (!r.is_successful) failed++;
    }
  } else if (range === '30d') {
    const { data } = await get<{ data: DailyStat[] }>(`/api/v1/liveness/${live}/stats?days=30`);
    for (const x of data) {
      points[0].push(Date.parse(`${x.date}T12:00:00Z`) / 1000);
      points[1].push(x.successful_tests ? x.avg_response_time_ms : null);
      points[2].push(x.total_tests - x.successful_tests);
      checks += x.total_tests;
      failed += x.total_tests - x.successful_tests;
    }
  } else {
    const { data } = await get<{ data: HourlyStat[] }>(
      `/api/v1/liveness/${live}/hourly?hours=${range === '24h' ? 24 : 168}`,
    );
    for (const x of data) {
      const at = Date.parse(x.hour) / 1000 + 1800;
      // Hours without checks are absent: a gap keeps the line from bridging them.
      const prev = points[0].at(-1);
      if (prev !== undefined && at - prev > 3600) {
        points[0].push(prev + 3600);
        points[1].push(null);
        points[2].push(0);
      }
      points[0].push(at);
      points[1].push(x.successful_tests ? x.avg_response_time_ms : null);
      points[2].push(x.total_tests - x.successful_tests);
      checks += x.total_tests;
      failed += x.total_tests - x.successful_tests;
    }
  }
  return { points, checks, failed };
}

const SPAN: Record<Range, number> = { '1h': 3600, '24h': 86_400, '7d': 7 * 86_400, '30d': 30 * 86_400 };

function RangeChart({ live }: { live: string }) {
  const [range, setRange] = useState<Range>('24h');
  const s = usePoll(() => rangePoints(live, range), `range:${live}:${range}`);
  const el = useRef<HTMLDivElement>(null);
  const d = s.data;
  useEffect(() => {
    let plot: { destroy(): void } | undefined;
    let gone = false;
    if (!d || !d.checks) return;
    void import('./chart.js').then(({ drawRangeChart }) => {
      const now = Date.now() / 1000;
      if (!gone && el.current)
        plot = drawRangeChart(el.current, 'response time (ms)', d.points, [
          now - SPAN[range],
          now + (range === '30d' ? 43_200 : 0),
        ]);
    });
    return () => {
      gone = true;
      plot?.destroy();
    };
  }, [d, range]);
  return (
    <Section title="Response time and failures">
      <p class="ranges" role="group" aria-label="Range">
        {RANGES.map(([k, label]) => (
          <button key={k} type="button" aria-pressed={range === k} onClick={() => setRange(k)}>
            {label}
          </button>
        ))}
      </p>
      {s.error && <LoadError error={s.error} retry={s.reload} />}
      {d && (
        <p class={d.failed ? 'bad' : 'muted'} data-testid="range-summary">
          {d.checks
            ? `${d.checks} checks, ${d.failed} failed (${Math.round((1000 * (d.checks - d.failed)) / d.checks) / 10} % up)`
            : 'No checks in this range.'}
        </p>
      )}
      {d && d.checks > 0 && (
        <div
          class="chart"
          ref={el}
          role="img"
          aria-label={`Response time and failed checks, ${range}`}
          data-testid="chart"
        />
      )}
    </Section>
  );
}

function Pager({ p, set }: { p: Page<unknown>['pagination'] & { limit: number }; set: (offset: number) => void }) {
  return (
    <p class="pager">
      {p.offset > 0 && (
        <button type="button" onClick={() => set(Math.max(0, p.offset - p.limit))}>
          Newer
        </button>
      )}{' '}
      {p.has_more && (
        <button type="button" onClick={() => set(p.offset + p.limit)}>
          Older
        </button>
      )}
    </p>
  );
}

function Incidents({ endpoint }: { endpoint: string }) {
  const [offset, setOffset] = useState(0);
  const s = usePoll(
    () => get<Page<Incident>>(`/api/v1/endpoints/${endpoint}/incidents?limit=10&offset=${offset}`),
    `incidents:${endpoint}:${offset}`,
  );
  const d = s.data;
  return (
    <Section title="Incidents">
      {s.error && <LoadError error={s.error} retry={s.reload} />}
      {d && !d.data.length && <p class="muted">No outage recorded: it has not been down since it is watched.</p>}
      {d && d.data.length > 0 && (
        <>
          <ol class="incidents" data-testid="incidents">
            {d.data.map((i) => (
              <li key={i.id} class={i.ongoing ? 'bad' : ''}>
                <strong>{i.ongoing ? 'Down now' : 'Down'}</strong> from {fmtTime(i.started_at)}
                {i.recovered_at ? ` to ${fmtTime(i.recovered_at)}` : ''} ({duration(i.duration_seconds)}
                {i.ongoing ? ' so far' : ''}){i.reason && <>: {i.reason}</>}
                <div class="muted">
                  {i.notifications.length
                    ? i.notifications
                        .map(
                          (n) =>
                            `${n.for === 'down' ? 'Alert' : 'Recovery'} via ${n.channel}${n.recipient ? ` to ${n.recipient}` : ''}: ${n.status}${n.error ? ` (${n.error})` : ''}`,
                        )
                        .join('; ')
                    : 'No notification was sent for it (no channel set up for outages).'}
                </div>
              </li>
            ))}
          </ol>
          <Pager p={{ ...d.pagination, limit: 10 }} set={setOffset} />
        </>
      )}
    </Section>
  );
}

function History({ live }: { live: string }) {
  const [offset, setOffset] = useState(0);
  const s = usePoll(
    () => get<Page<Result>>(`/api/v1/liveness/${live}/results?hours=720&limit=20&offset=${offset}`),
    `history:${live}:${offset}`,
  );
  const d = s.data;
  return (
    <Section title="Check history (30 days)">
      {s.error && <LoadError error={s.error} retry={s.reload} />}
      {d && !d.data.length && <p class="muted">No checks yet: the first one runs within its interval.</p>}
      {d && d.data.length > 0 && (
        <>
          <Table testid="check-history" head={['time', 'duration', 'status', 'error']}>
            {d.data.map((r) => (
              <tr key={r.test_timestamp + r.region}>
                <td>{fmtTime(r.test_timestamp)}</td>
                <td>{r.response_time_ms === null ? '—' : `${r.response_time_ms} ms`}</td>
                <td>
                  <Badge value={r.is_successful ? 'ok' : 'failed'} />
                  {r.status_code !== null && <span class="muted"> HTTP {r.status_code}</span>}
                  {r.icmp && (
                    <span class="muted" data-testid="echo">
                      {' '}
                      {echo(r.icmp)}
                    </span>
                  )}
                </td>
                <td class={r.error ? 'bad' : 'muted'} title={r.error ?? undefined}>
                  {r.reason ?? r.error ?? '—'}
                </td>
              </tr>
            ))}
          </Table>
          <p class="muted">
            {d.pagination.offset + 1}–{d.pagination.offset + d.data.length} of {d.pagination.total}
          </p>
          <Pager p={{ ...d.pagination, limit: 20 }} set={setOffset} />
        </>
      )}
    </Section>
  );
}

/** The endpoint page's part on failures: its checks' chart, incidents and history. */
export function WhyDown({ endpoint, live }: { endpoint: string; live: string | null }) {
  if (!live)
    return (
      <Section title="Liveness">
        <p class="muted">
          No liveness check on this endpoint: add one under Settings above (or with <code>dommon liveness add</code>) to
          see its uptime, failures and incidents here.
        </p>
      </Section>
    );
  return (
    <>
      <RangeChart live={live} />
      <Incidents endpoint={endpoint} />
      <History live={live} />
    </>
  );
}
