// One endpoint: why it is down (the failure in words), status, uptime 24 h / 7 d / 30 d, the
// certificate with the chain the server sent and every certificate seen on it (renewals, issuer
// changes, each with its chain), its settings, and endpoint-why.tsx's chart, incidents and history.
import { useContext } from 'preact/hooks';
import { all, api, get } from '../api.js';
import { refreshAll, usePoll } from '../hooks.js';
import type { Endpoint, EndpointStatus, Liveness, RegionView } from '../types.js';
import { WhyDown } from './endpoint-why.js';
import {
  Badge,
  ChangeButton,
  Days,
  ManagedBadge,
  Section,
  Show,
  Table,
  fmtDay,
  fmtTime,
  pct,
  removeAfterConfirm,
} from '../ui.js';
import { EndpointSettings } from './endpoint-setup.js';
import { CanWrite } from '../scope.js';

/** One certificate of a chain the server sent (leaf first). */
interface ChainCert {
  subject: string;
  issuer: string;
  serial: string;
  not_before: string;
  not_after: string;
  fingerprint256: string;
  key_type: string | null;
  key_bits: number | null;
}

/** GET /api/v1/endpoints/:id/certificates. */
interface Certificates {
  current: {
    ssl_status: string;
    subject: string | null;
    issuer: string | null;
    sans: string[];
    not_before: string | null;
    not_after: string | null;
    days_until_expiry: number | null;
    serial: string | null;
    fingerprint256: string | null;
    protocol: string | null;
    trusted: boolean | null;
    hostname_match: boolean | null;
    error: string | null;
    checked_at: string | null;
    chain: ChainCert[];
  } | null;
  history: {
    fingerprint256: string;
    subject: string | null;
    issuer: string | null;
    not_before: string | null;
    not_after: string | null;
    first_seen: string;
    last_seen: string;
    chain: ChainCert[];
    change: string;
  }[];
}

async function load(id: string) {
  const [status, configs, certs, detail] = await Promise.all([
    get<EndpointStatus>(`/api/v1/endpoints/${id}/status`),
    all<Liveness>(`/api/v1/liveness?endpoint_id=${id}`, 1),
    get<Certificates>(`/api/v1/endpoints/${id}/certificates`),
    get<Endpoint & { domain: string; created_at: string }>(`/api/v1/endpoints/${id}`),
  ]);
  const live = configs[0];
  // The combined status: the last failure in words, and with regions each region's own view.
  const views = live
    ? await get<{ reason: string | null; regions: RegionView[] }>(`/api/v1/liveness/${live.id}/status`)
    : { reason: null, regions: [] };
  return { status, live, certs, detail, reason: views.reason, regions: views.regions };
}

const yesNo = (v: boolean | null) => (v === null ? '—' : v ? 'yes' : 'no');
const CHANGE: Record<string, string> = {
  first: 'first seen',
  renewed: 'renewed',
  issuer_changed: 'issuer changed',
};

const keyOf = (c: ChainCert) => (c.key_type ? `${c.key_type.toUpperCase()}${c.key_bits ? ` ${c.key_bits}` : ''}` : '—');
/** The common name of a distinguished name ("CN=x, O=y" -> "x"), or the whole name. */
const cn = (dn: string) => /(?:^|, )CN=([^,]+)/.exec(dn)?.[1] ?? dn;
const ROLE = (i: number, n: number, c: ChainCert) =>
  i === 0 ? 'leaf' : i === n - 1 && c.subject === c.issuer ? 'root' : 'intermediate';

function Chain({ chain }: { chain: ChainCert[] }) {
  return (
    <Table
      testid="certificate-chain"
      caption="Chain the server sent, leaf first"
      head={['#', 'subject', 'issuer', 'valid', 'key', 'serial / SHA-256']}
    >
      {chain.map((c, i) => (
        <tr key={c.fingerprint256}>
          <td>
            {i} <span class="muted">{ROLE(i, chain.length, c)}</span>
          </td>
          <td>{c.subject}</td>
          <td>{c.issuer}</td>
          <td>
            {fmtDay(c.not_before)} to {fmtDay(c.not_after)}
          </td>
          <td>{keyOf(c)}</td>
          <td class="mono">
            {c.serial}
            <br />
            {c.fingerprint256}
          </td>
        </tr>
      ))}
    </Table>
  );
}

function CertificateHistory({ certs }: { certs: Certificates }) {
  const c = certs.current;
  return (
    <Section title="Certificate details and history">
      {c ? (
        <dl>
          <dt>Names</dt>
          <dd>{c.sans.length ? c.sans.join(', ') : '—'}</dd>
          <dt>Valid</dt>
          <dd>
            {fmtDay(c.not_before)} to {fmtDay(c.not_after)}
          </dd>
          <dt>Trusted chain</dt>
          <dd>{yesNo(c.trusted)}</dd>
          <dt>Matches the host</dt>
          <dd>{yesNo(c.hostname_match)}</dd>
          <dt>Protocol</dt>
          <dd>{c.protocol ?? '—'}</dd>
          <dt>Serial</dt>
          <dd class="mono">{c.serial ?? '—'}</dd>
          <dt>SHA-256</dt>
          <dd class="mono">{c.fingerprint256 ?? '—'}</dd>
          {c.error && (
            <>
              <dt>Error</dt>
              <dd class="bad">{c.error}</dd>
            </>
          )}
          <dt>Inspected</dt>
          <dd>{fmtTime(c.checked_at)}</dd>
        </dl>
      ) : (
        <p class="muted">Not inspected yet, or the endpoint speaks no TLS.</p>
      )}
      {c && c.chain.length > 0 && <Chain chain={c.chain} />}
      {certs.history.length > 0 && (
        <Table
          testid="certificate-history"
          head={['first seen', 'change', 'issuer', 'chain', 'key', 'valid until', 'last seen']}
        >
          {certs.history.map((h) => (
            <tr key={h.fingerprint256}>
              <td>{fmtTime(h.first_seen)}</td>
              <td>{CHANGE[h.change] ?? h.change}</td>
              <td>{h.issuer ?? '—'}</td>
              <td>{h.chain.length ? h.chain.map((x) => cn(x.subject)).join(' → ') : '—'}</td>
              <td>{h.chain[0] ? keyOf(h.chain[0]) : '—'}</td>
              <td>{fmtDay(h.not_after)}</td>
              <td>{fmtTime(h.last_seen)}</td>
            </tr>
          ))}
        </Table>
      )}
    </Section>
  );
}

export function EndpointPage({ id }: { id: string }) {
  const s = usePoll(() => load(id), `endpoint:${id}`);
  const canWrite = useContext(CanWrite);
  return (
    <Show s={s}>
      {(d) => {
        const l = d.status.liveness;
        // Plain http and other endpoints without TLS carry no certificate: no section for one.
        const hasTls =
          d.status.endpoint.endpoint_type !== 'http' &&
          (d.status.ssl.status !== 'unknown' ||
            d.certs.current !== null ||
            d.status.endpoint.endpoint_type === 'https');
        return (
          <>
            <h1>
              {d.status.endpoint.name} <ManagedBadge of={d.detail} />
            </h1>
            <p class="muted">
              {d.status.endpoint.full_url} · on <a href={`#/domains/${d.detail.domain_id}`}>{d.detail.domain}</a> ·
              added {new Date(d.detail.created_at).toLocaleDateString(undefined, { dateStyle: 'medium' })}
            </p>
            {d.reason && l.enabled && (
              <p class="error down-reason" role="alert" data-testid="down-reason">
                {l.status === 'down' ? 'Down' : 'Last check failed'}: {d.reason}
              </p>
            )}
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
              <ChangeButton
                of={d.detail}
                class="danger"
                onClick={() =>
                  void removeAfterConfirm(
                    `Remove the endpoint ${d.status.endpoint.name} with its checks and history?`,
                    `/api/v1/endpoints/${id}`,
                  ).then((gone) => gone && (location.hash = '#/domains'))
                }
              >
                Remove endpoint
              </ChangeButton>
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
                  <dt>Uptime 30 d</dt>
                  <dd>{pct(l.uptime_30d)}</dd>
                  <dt>Average response</dt>
                  <dd>
                    {/* An average of checks that all failed says nothing about the service. */}
                    {l.avg_response_time_ms === null || l.uptime_24h === 0 ? '—' : `${l.avg_response_time_ms} ms`}
                  </dd>
                  <dt>Last check</dt>
                  <dd>{fmtTime(l.last_check)}</dd>
                </dl>
              </Section>
              {hasTls && (
                <Section title="Certificate">
                  <dl>
                    <dt>State</dt>
                    <dd>
                      <Badge value={d.status.ssl.status} />
                    </dd>
                    <dt>Expires</dt>
                    <dd data-testid="certificate-expires">
                      {d.status.ssl.expiry_date ? (
                        <>
                          {fmtDay(d.status.ssl.expiry_date)} (<Days days={d.status.ssl.days_until_expiry} /> days)
                        </>
                      ) : (
                        <span class="muted">not known yet</span>
                      )}
                    </dd>
                    <dt>Issuer</dt>
                    <dd>{d.status.ssl.issuer ?? '—'}</dd>
                    <dt>Subject</dt>
                    <dd>{d.status.subject ?? '—'}</dd>
                  </dl>
                </Section>
              )}
            </div>
            {d.regions.length > 0 && (
              <Section title="Regions">
                <Table
                  testid="liveness-regions"
                  caption={`Down when ${d.live?.confirm_from ?? 1} of ${d.regions.length} regions see it down`}
                  head={['region', 'status', 'failures in a row', 'last check', 'response', 'last error']}
                >
                  {d.regions.map((r) => (
                    <tr key={r.region}>
                      <td>{r.region}</td>
                      <td>
                        <Badge value={r.status} />
                      </td>
                      <td>{r.consecutive_failures}</td>
                      <td>{fmtTime(r.last_check)}</td>
                      <td>{r.response_time_ms === null ? '—' : `${r.response_time_ms} ms`}</td>
                      <td title={r.last_error ?? undefined}>{r.reason ?? r.last_error ?? '—'}</td>
                    </tr>
                  ))}
                </Table>
              </Section>
            )}
            {hasTls && <CertificateHistory certs={d.certs} />}
            <EndpointSettings endpointId={id} />
            <WhyDown endpoint={id} live={d.live?.id ?? null} />
          </>
        );
      }}
    </Show>
  );
}
