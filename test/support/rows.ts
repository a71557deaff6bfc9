// The row a test or a bench writes straight into the store for a domain: a new, unverified domain
// with nothing looked up yet (the fields the domains repository's insert takes). `extra` overrides
// any field.

export function domainRow(
  o: { id: string; team_id: string; domain: string; at: string; token?: string; verified?: boolean },
  extra: { notes?: string | null; exposure_monitoring_enabled?: boolean; is_verified?: boolean } = {},
) {
  return {
    id: o.id,
    team_id: o.team_id,
    domain: o.domain,
    portfolio_id: null,
    notes: null as string | null,
    is_verified: o.verified ?? false,
    verified_at: o.verified ? o.at : null,
    verification_token: o.token ?? `dommon-verify-${o.id}`,
    health_score: null,
    health_grade: null,
    overall_status: null,
    exposure_monitoring_enabled: false,
    expiry_override: null,
    dkim_selectors: [] as string[],
    created_at: o.at,
    updated_at: o.at,
    ...extra,
  };
}
