// One domain: status, registration data, DNS security findings and recommendations, the TXT record
// to publish for verification, its endpoints (with an add form) and its exposure findings.
import { useState } from 'preact/hooks';
import { all, api, get } from '../api.js';
import { refreshAll, usePoll } from '../hooks.js';
import type { Domain, DomainStatus, HealthReason, Portfolio, Security } from '../types.js';
import {
  Badge,
  ChangeButton,
  Days,
  Field,
  MANAGED_WHY,
  ManagedBadge,
  Message,
  PortfolioChoice,
  Section,
  Show,
  fmtDay,
  fmtTime,
  locked,
  removeAfterConfirm,
  useSubmit,
} from '../ui.js';

import { Write } from '../scope.js';
import { AddEndpoint, DomainEndpoints } from './endpoint-setup.js';

interface Registration {
  state: string;
  reason: string | null;
  registrar: string | null;
  effective_expiry_date: string | null;
  creation_date: string | null;
  nameservers: string[];
  statuses: string[];
  checked_at: string | null;
  /** The manual expiry date set on the domain (null: the registry's date counts). */
  expiry_override?: string | null;
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

/** Why the grade is what it is: each input's state, the points it cost, or that it was left out (unknown) and why. */
function HealthReasons({ reasons, graded }: { reasons: HealthReason[] | undefined; graded: boolean }) {
  if (!reasons?.length) return null;
  return (
    <div data-testid="health-reasons">
      {graded ? null : <p class="muted">No grade: nothing could be checked yet.</p>}
      <ul class="reasons">
        {reasons.map((r) => (
          <li key={r.input}>
            <Badge value={r.status} /> {r.points_lost ? <strong>−{r.points_lost}</strong> : null} {r.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}

const recText = (r: Security['recommendations'][number]) =>
  typeof r === 'string' ? r : (r.message ?? r.title ?? JSON.stringify(r));

/** Portfolio, notes and a manual expiry date (for TLDs no RDAP/WHOIS server answers for). */
function EditDomain({
  domain,
  portfolios,
  manualExpiry,
}: {
  domain: Domain;
  portfolios: Portfolio[];
  /** The manual date only (the registry's date is not one to keep by saving the form). */
  manualExpiry: string | null;
}) {
  const [portfolio, setPortfolio] = useState(domain.portfolio_id ?? '');
  const [notes, setNotes] = useState(domain.notes ?? '');
  const [expiry, setExpiry] = useState(manualExpiry ?? '');
  const { msg, errors, onSubmit } = useSubmit(async () => {
    await api('PUT', `/api/v1/domains/${domain.id}`, {
      portfolio_id: portfolio || null,
      notes: notes.trim() || null,
      ...((manualExpiry ?? '') !== expiry ? { expiry_date: expiry || null } : {}),
    });
    return 'Saved.';
  }, ['portfolio_id', 'notes', 'expiry_date']);
  return (
    <form class="inline" onSubmit={onSubmit} aria-label="Edit the domain">
      {locked(domain) && (
        <p class="muted" data-testid="managed-note">
          {MANAGED_WHY}
        </p>
      )}
      <PortfolioChoice value={portfolio} set={setPortfolio} portfolios={portfolios} error={errors.portfolio_id} />
      <Field label="Notes" value={notes} set={setNotes} error={errors.notes} />
      <Field label="Manual expiry" type="date" value={expiry} set={setExpiry} error={errors.expiry_date} />
      <ChangeButton of={domain} type="submit">
        Save
      </ChangeButton>
      <Message msg={msg} />
    </form>
  );
}

export function DomainPage({ id }: { id: string }) {
  const s = usePoll(() => load(id), `domain:${id}`);
  return (
    <Show s={s}>
      {(d) => (
        <>
          <h1>
            {d.domain.domain} <ManagedBadge of={d.domain} />
          </h1>
          <div class="grid">
            {/* The grade's reasons are sentences: the card takes the whole row rather than a squeezed column. */}
            <Section title="Status" wide={(d.domain.health_reasons?.length ?? 0) > 0}>
              <dl>
                <dt>Health</dt>
                <dd>
                  {d.domain.health_score ?? '—'} <Badge value={d.domain.health_grade} />{' '}
                  <Badge value={d.domain.overall_status} />
                  <HealthReasons reasons={d.domain.health_reasons} graded={d.domain.health_grade !== null} />
                </dd>
                <dt>Registration expires</dt>
                <dd data-testid="registration-expires">
                  {d.status.whois.expiry_date ? (
                    <>
                      {fmtDay(d.status.whois.expiry_date)} (<Days days={d.status.whois.days_until_expiry} /> days)
                    </>
                  ) : (
                    <span class="muted">not known yet</span>
                  )}
                </dd>
                <dt>Certificate</dt>
                <dd>
                  <Badge value={d.status.ssl.status} />{' '}
                  {d.status.ssl.expiry_date ? fmtDay(d.status.ssl.expiry_date) : ''}
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
                  <dd>{fmtDay(d.registration.creation_date)}</dd>
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
              <EditDomain
                key={d.domain.id}
                domain={d.domain}
                portfolios={d.portfolios}
                manualExpiry={d.registration?.expiry_override ?? null}
              />
              <p>
                <ChangeButton
                  of={d.domain}
                  class="danger small"
                  onClick={() =>
                    void removeAfterConfirm(
                      `Remove ${d.domain.domain} with its endpoints, checks and history?`,
                      `/api/v1/domains/${id}`,
                    ).then((gone) => gone && (location.hash = '#/domains'))
                  }
                >
                  Remove domain
                </ChangeButton>
              </p>
            </Section>
          </Write>
          <Section title="Endpoints">
            <DomainEndpoints domainId={id} endpoints={d.domain.endpoints ?? []} />
            <Write>
              <h3>Add an endpoint</h3>
              <AddEndpoint domainId={id} />
            </Write>
          </Section>
          <Section title="Exposure findings">
            {!d.domain.is_verified && d.findings.length === 0 ? (
              <p class="muted">
                Exposure scans run on verified domains only: publish the TXT record above and press Check now.
              </p>
            ) : d.findings.length === 0 ? (
              <p class="muted">None found.</p>
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
