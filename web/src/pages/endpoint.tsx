// One endpoint: status, uptime 24 h / 7 d, the certificate, and response-time charts (the last 24 h
// of checks and the daily averages of 30 days; uPlot, loaded with this page only).
import { useContext, useEffect, useRef } from 'preact/hooks';
import { all, api, get } from '../api.js';
import { refreshAll, usePoll } from '../hooks.js';
import type { DailyStat, EndpointStatus, Liveness, LivenessResult } from '../types.js';
import { Badge, Days, Section, Show, fmtTime, pct } from '../ui.js';
import { CanWrite } from '../scope.js';

async function load(id: string) {
  const status = await get<EndpointStatus>(`/api/v1/endpoints/${id}/status`);
  const configs = await all<Liveness>(`/api/v1/liveness?endpoint_id=${id}`, 1);
  const live = configs[0];
  const [results, stats] = live
    ? await Promise.all([
        all<LivenessResult>(`/api/v1/liveness/${live.id}/results?hours=24`, 500),
        get<{ data: DailyStat[] }>(`/api/v1/liveness/${live.id}/stats?days=30`),
      ])
    : [[], { data: [] }];
  return { status, live, results, daily: stats.data };
}

type Series = [number[], (number | null)[]];

function Chart({ label, data, days }: { label: string; data: Series; days: number }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let plot: { destroy(): void } | undefined;
    let gone = false;
    void import('./chart.js').then(({ drawChart }) => {
      const now = Date.now() / 1000;
      if (!gone && el.current)
        plot = drawChart(el.current, label, data, [now - days * 86_400, now + (days > 1 ? 43_200 : 0)]);
    });
    return () => {
      gone = true;
      plot?.destroy();
    };
  }, [label, data, days]);
  return <div class="chart" ref={el} role="img" aria-label={label} data-testid="chart" />;
}

export function EndpointPage({ id }: { id: string }) {
  const s = usePoll(() => load(id), `endpoint:${id}`);
  const canWrite = useContext(CanWrite);
  return (
    <Show s={s}>
      {(d) => {
        const pts = [...d.results].sort((a, b) => a.test_timestamp.localeCompare(b.test_timestamp));
        const recent: Series = [
          pts.map((r) => Date.parse(r.test_timestamp) / 1000),
          pts.map((r) => (r.is_successful ? r.response_time_ms : null)),
        ];
        const daily: Series = [
          d.daily.map((x) => Date.parse(`${x.date}T12:00:00Z`) / 1000),
          d.daily.map((x) => (x.total_tests ? x.avg_response_time_ms : null)),
        ];
        const l = d.status.liveness;
        return (
          <>
            <h1>{d.status.endpoint.name}</h1>
            <p class="muted">{d.status.endpoint.full_url}</p>
            <p class="actions" hidden={!canWrite}>
              {d.live && (
                <button
                  type="button"
                  onClick={() =>
                    void api('PUT', `/api/v1/liveness/${d.live!.id}`, { is_enabled: !d.live!.is_enabled }).then(
                      refreshAll,
                      (e: unknown) => alert(String(e)),
                    )
                  }
                >
                  {d.live.is_enabled ? 'Pause liveness checks' : 'Resume liveness checks'}
                </button>
              )}{' '}
              <button
                type="button"
                class="danger"
                onClick={() => {
                  if (!confirm(`Remove the endpoint ${d.status.endpoint.name} with its checks and history?`)) return;
                  void api('DELETE', `/api/v1/endpoints/${id}`).then(
                    () => (location.hash = '#/domains'),
                    (e: unknown) => alert(String(e)),
                  );
                }}
              >
                Remove endpoint
              </button>
            </p>
            <div class="grid">
              <Section title="Status">
                <dl>
                  <dt>Health</dt>
                  <dd>
                    <Badge value={d.status.overall_health} />
                  </dd>
                  <dt>Liveness</dt>
                  <dd>
                    <Badge value={l.enabled ? l.status : 'not checked'} />
                  </dd>
                  <dt>Uptime 24 h</dt>
                  <dd>{pct(l.uptime_24h)}</dd>
                  <dt>Uptime 7 d</dt>
                  <dd>{pct(l.uptime_7d)}</dd>
                  <dt>Average response</dt>
                  <dd>{l.avg_response_time_ms === null ? '—' : `${l.avg_response_time_ms} ms`}</dd>
                  <dt>Last check</dt>
                  <dd>{fmtTime(l.last_check)}</dd>
                </dl>
              </Section>
              <Section title="Certificate">
                <dl>
                  <dt>State</dt>
                  <dd>
                    <Badge value={d.status.ssl.status} />
                  </dd>
                  <dt>Expires</dt>
                  <dd>
                    {d.status.ssl.expiry_date ?? '—'} (<Days days={d.status.ssl.days_until_expiry} /> days)
                  </dd>
                  <dt>Issuer</dt>
                  <dd>{d.status.ssl.issuer ?? '—'}</dd>
                  <dt>Subject</dt>
                  <dd>{d.status.subject ?? '—'}</dd>
                </dl>
              </Section>
            </div>
            <Section title="Response time, last 24 hours">
              {pts.length ? (
                <Chart label="Response time (ms) of each check in the last 24 hours" data={recent} days={1} />
              ) : (
                <p class="muted">No checks yet.</p>
              )}
            </Section>
            <Section title="Response time, daily average (30 days)">
              {d.daily.length ? (
                <Chart label="Daily average response time (ms), 30 days" data={daily} days={30} />
              ) : (
                <p class="muted">No days yet.</p>
              )}
            </Section>
          </>
        );
      }}
    </Show>
  );
}
