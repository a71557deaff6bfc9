// The row a bench seeds for a domain straight into the store: a new, unverified domain with nothing
// looked up yet (the fields the domains repository's insert takes).

export function domainRow(o: {
  id: string;
  team_id: string;
  domain: string;
  token: string;
  at: string;
  verified?: boolean;
}) {
  return {
    id: o.id,
    team_id: o.team_id,
    domain: o.domain,
    portfolio_id: null,
    notes: null,
    is_verified: o.verified ?? false,
    verified_at: o.verified ? o.at : null,
    verification_token: o.token,
    health_score: null,
    health_grade: null,
    overall_status: null,
    exposure_monitoring_enabled: false,
    expiry_override: null,
    dkim_selectors: [] as string[],
    created_at: o.at,
    updated_at: o.at,
  };
}
