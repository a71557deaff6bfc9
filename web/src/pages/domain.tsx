// One domain: status, registration data, DNS security findings and recommendations, the TXT record
// to publish for verification, its endpoints (with an add form) and its exposure findings.
import { useState } from 'preact/hooks';
import { ApiError, all, api, get } from '../api.js';
import { refreshAll, usePoll } from '../hooks.js';
import type { Domain, DomainStatus, Portfolio, Security } from '../types.js';
import { Badge, Days, Section, Show, fmtTime } from '../ui.js';
import { Write } from '../scope.js';

interface Registration {
  state: string;
  reason: string | null;
  registrar: string | null;
  effective_expiry_date: string | null;
  creation_date: string | null;
  nameservers: string[];
  statuses: string[];
  checked_at: string | null;
}
interface Verification {
  verification_token: string;
  is_verified: boolean;
}
interface Finding {
  id: string;
  host: string;
  category: string;
  severity: string;
  title: string;
  status: string;
}

async function load(id: string) {
  const [domain, status, security, registration, verification, findings, portfolios] = await Promise.all([
    get<Domain>(`/api/v1/domains/${id}?include_endpoints=true`),
    get<DomainStatus>(`/api/v1/domains/${id}/status`),
    get<Security>(`/api/v1/domains/${id}/security`).catch(() => undefined),
    get<Registration>(`/api/v1/domains/${id}/registration`).catch(() => undefined),
    get<Verification>(`/api/v1/domains/${id}/verification`).catch(() => undefined),
    get<{ data: Finding[] }>(`/api/v1/domains/${id}/exposure/findings?limit=100`).catch(() => ({ data: [] })),
    all<Portfolio>('/api/v1/portfolios'),
  ]);
  return { domain, status, security, registration, verification, findings: findings.data, portfolios };
}

const recText = (r: Security['recommendations'][number]) =>
  typeof r === 'string' ? r : (r.message ?? r.title ?? JSON.stringify(r));

/** Portfolio, notes and a manual expiry date (for TLDs no RDAP/WHOIS server answers for). */
function EditDomain({ domain, portfolios }: { domain: Domain; portfolios: Portfolio[] }) {
  const [f, setF] = useState({
    portfolio: domain.portfolio_id ?? '',
    notes: domain.notes ?? '',
    expiry: domain.expiry_date ?? '',
  });
  const [msg, setMsg] = useState<{ error?: string; ok?: string }>({});
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await api('PUT', `/api/v1/domains/${domain.id}`, {
        portfolio_id: f.portfolio || null,
        notes: f.notes.trim() || null,
        expiry_date: f.expiry || null,
      });
      setMsg({ ok: 'Saved.' });
      refreshAll();
    } catch (err) {
      setMsg({ error: err instanceof ApiError ? err.message : String(err) });
    }
  };
  return (
    <form class="inline" onSubmit={(e) => void submit(e)} aria-label="Edit the domain">
      <label>
        Portfolio
        <select value={f.portfolio} onChange={(e) => setF({ ...f, portfolio: e.currentTarget.value })}>
          <option value="">none</option>
          {portfolios.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Notes
        <input value={f.notes} onInput={(e) => setF({ ...f, notes: e.currentTarget.value })} />
      </label>
      <label>
        Manual expiry
        <input type="date" value={f.expiry} onInput={(e) => setF({ ...f, expiry: e.currentTarget.value })} />
      </label>
      <button type="submit">Save</button>
      {msg.error && (
        <p class="error" role="alert">
          {msg.error}
        </p>
      )}
      {msg.ok && <p role="status">{msg.ok}</p>}
    </form>
  );
}

function AddEndpoint({ domainId }: { domainId: string }) {
  const [f, setF] = useState({ name: '', type: 'https', subdomain: '', path: '', liveness: true });
  const [msg, setMsg] = useState<{ error?: string; ok?: string }>({});
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST', '/api/v1/endpoints', {
        domain_id: domainId,
        name: f.name.trim(),
        endpoint_type: f.type,
        ...(f.subdomain.trim() ? { subdomain: f.subdomain.trim() } : {}),
        ...(f.path.trim() ? { path: f.path.trim() } : {}),
        ...(f.liveness && f.type !== 'port' ? { liveness: { is_enabled: true } } : {}),
      });
      setMsg({ ok: `Added ${f.name}.` });
      setF({ ...f, name: '', subdomain: '', path: '' });
      refreshAll();
    } catch (err) {
      setMsg({ error: err instanceof ApiError ? err.message : String(err) });
    }
  };
  return (
    <form class="inline" onSubmit={(e) => void submit(e)} aria-label="Add an endpoint">
      <label>
        Name
        <input required value={f.name} onInput={(e) => setF({ ...f, name: e.currentTarget.value })} />
      </label>
      <label>
        Type
        <select value={f.type} onChange={(e) => setF({ ...f, type: e.currentTarget.value })}>
          {['https', 'http', 'smtp', 'imap'].map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label>
        Subdomain
        <input
          value={f.subdomain}
          placeholder="www"
          onInput={(e) => setF({ ...f, subdomain: e.currentTarget.value })}
        />
      </label>
      <label>
        Path
        <input value={f.path} placeholder="/" onInput={(e) => setF({ ...f, path: e.currentTarget.value })} />
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={f.liveness}
          onChange={(e) => setF({ ...f, liveness: e.currentTarget.checked })}
        />
        Check liveness
      </label>
      <button type="submit">Add endpoint</button>
      {msg.error && (
        <p class="error" role="alert">
          {msg.error}
        </p>
      )}
      {msg.ok && <p role="status">{msg.ok}</p>}
    </form>
  );
}

export function DomainPage({ id }: { id: string }) {
  const s = usePoll(() => load(id), `domain:${id}`);
  const removeEndpoint = async (eid: string, name: string) => {
    if (!confirm(`Remove the endpoint ${name}?`)) return;
    await api('DELETE', `/api/v1/endpoints/${eid}`).catch((e: unknown) => alert(String(e)));
    refreshAll();
  };
  return (
    <Show s={s}>
      {(d) => (
        <>
          <h1>{d.domain.domain}</h1>
          <div class="grid">
            <Section title="Status">
              <dl>
                <dt>Health</dt>
                <dd>
                  {d.status.health_score ?? '—'} <Badge value={d.status.health_grade} />{' '}
                  <Badge value={d.status.overall_status} />
                </dd>
                <dt>Registration expires</dt>
                <dd>
                  {d.status.whois.expiry_date ?? '—'} (<Days days={d.status.whois.days_until_expiry} /> days)
                </dd>
                <dt>Certificate</dt>
                <dd>
                  <Badge value={d.status.ssl.status} /> {d.status.ssl.expiry_date ?? ''}
                </dd>
              </dl>
            </Section>
            <Section title="Registration">
              {d.registration ? (
                <dl>
                  <dt>State</dt>
                  <dd>
                    <Badge value={d.registration.state} /> {d.registration.reason ?? ''}
                  </dd>
                  <dt>Registrar</dt>
                  <dd>{d.registration.registrar ?? '—'}</dd>
                  <dt>Created</dt>
                  <dd>{d.registration.creation_date ?? '—'}</dd>
                  <dt>Nameservers</dt>
                  <dd>{d.registration.nameservers.join(', ') || '—'}</dd>
                  <dt>Checked</dt>
                  <dd>{fmtTime(d.registration.checked_at)}</dd>
                </dl>
              ) : (
                <p class="muted">Not looked up yet.</p>
              )}
            </Section>
            <Section title="DNS security">
              {d.security ? (
                <>
                  <p>
                    Score <strong>{d.security.security_score ?? '—'}</strong>; DNSSEC{' '}
                    {d.security.dnssec_enabled === null ? 'unknown' : d.security.dnssec_enabled ? 'on' : 'off'};
                    transfer lock{' '}
                    {d.security.transfer_lock === null ? 'unknown' : d.security.transfer_lock ? 'on' : 'off'}
                  </p>
                  <ul>
                    {Object.entries(d.security.checks).map(([k, v]) => (
                      <li key={k}>
                        {k.toUpperCase()}: <Badge value={v} />
                      </li>
                    ))}
                  </ul>
                  {d.security.recommendations.length > 0 && (
                    <>
                      <h3>Recommendations</h3>
                      <ul>
                        {d.security.recommendations.map((r, i) => (
                          <li key={i}>{recText(r)}</li>
                        ))}
                      </ul>
                    </>
                  )}
                </>
              ) : (
                <p class="muted">Not checked yet.</p>
              )}
            </Section>
            <Section title="Verification">
              {d.verification && (
                <>
                  <p>
                    {d.verification.is_verified ? 'Verified.' : 'Not verified: publish this TXT record, then check.'}
                  </p>
                  <p>
                    <code>_dommon-verify.{d.domain.domain}</code> TXT <code>{d.verification.verification_token}</code>
                  </p>
                  {!d.verification.is_verified && (
                    <Write>
                      <button
                        type="button"
                        onClick={() =>
                          void api('POST', `/api/v1/domains/${id}/verification`).then(refreshAll, (e: unknown) =>
                            alert(String(e)),
                          )
                        }
                      >
                        Check now
                      </button>
                    </Write>
                  )}
                </>
              )}
            </Section>
          </div>
          <Write>
            <Section title="Edit">
              <EditDomain key={d.domain.id} domain={d.domain} portfolios={d.portfolios} />
            </Section>
          </Write>
          <Section title="Endpoints">
            <ul>
              {(d.domain.endpoints ?? []).map((e) => (
                <li key={e.id}>
                  <a href={`#/endpoints/${e.id}`}>{e.name}</a> <span class="muted">{e.full_url}</span>{' '}
                  <Write>
                    <button
                      type="button"
                      class="danger small"
                      onClick={() => void removeEndpoint(e.id, e.name)}
                      aria-label={`Remove ${e.name}`}
                    >
                      Remove
                    </button>
                  </Write>
                </li>
              ))}
              {(d.domain.endpoints ?? []).length === 0 && <li class="muted">No endpoints.</li>}
            </ul>
            <Write>
              <AddEndpoint domainId={id} />
            </Write>
          </Section>
          <Section title="Exposure findings">
            {d.findings.length === 0 ? (
              <p class="muted">None.</p>
            ) : (
              <ul>
                {d.findings.map((f) => (
                  <li key={f.id}>
                    <Badge value={f.severity} /> {f.title}{' '}
                    <span class="muted">
                      {f.host} · {f.status}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </Section>
        </>
      )}
    </Show>
  );
}
