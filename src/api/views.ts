// HTTP presentation: resources -> JSON views shared by both API surfaces and the CLI's --json output.
import { fullUrl } from '../domain/endpoint.js';
import {
  livenessSettings,
  type CreatedEndpoint,
  type Domain,
  type Endpoint,
  type EndpointDetail,
  type LivenessConfig,
  type Portfolio,
} from '../domain/types.js';
import type { PushCheck, PushPingRecord } from '../domain/push.js';
import { MASKED_SECRET } from '../services/liveness.js';

export function portfolioJson(p: Portfolio) {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    domain_count: p.domain_count,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

export function domainJson(d: Domain) {
  const expiry = d.expiry_override ?? d.registry_expiry_date;
  return {
    id: d.id,
    domain: d.domain,
    portfolio_id: d.portfolio_id,
    notes: d.notes,
    is_verified: d.is_verified,
    verification_token: d.verification_token,
    health_score: d.health_score,
    health_grade: d.health_grade,
    /** Extension: the stored overall status (as on the status route), so a list shows health without a request per domain. */
    overall_status: d.overall_status ?? 'unknown',
    expiry_date: expiry,
    exposure_monitoring_enabled: d.exposure_monitoring_enabled,
    whois: { registrar: d.registrar, expiry_date: expiry, nameservers: d.nameservers },
    dkim_selectors: d.dkim_selectors,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

export function endpointJson(e: Endpoint) {
  return {
    id: e.id,
    domain_id: e.domain_id,
    domain: e.domain,
    name: e.name,
    endpoint_type: e.endpoint_type,
    subdomain: e.subdomain,
    path: e.path,
    port: e.port,
    is_enabled: e.is_enabled,
    timeout_seconds: e.timeout_seconds,
    notes: e.notes,
    ...e.settings,
    full_url: fullUrl(e),
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

/** A push endpoint's ping URL (on `origin`) and key, as the create answer and the pings list show them. */
function pushJson(origin: string, c: PushCheck) {
  return { ping_url: `${origin}/ping/${c.ping_key}`, ping_key: c.ping_key };
}

/** A push endpoint's latest pings, newest first. */
export function pingsJson(endpointId: string, origin: string, c: PushCheck, pings: readonly PushPingRecord[]) {
  return {
    endpoint_id: endpointId,
    ...pushJson(origin, c),
    pings: pings.map((p) => ({
      kind: p.kind,
      at: new Date(p.at).toISOString(),
      exit_status: p.exit_status,
      duration_ms: p.duration_ms,
      body: p.body,
      body_bytes: p.body_bytes,
    })),
  };
}

/** A create's answer: the endpoint, its inline liveness configuration, and a push endpoint's ping URL (on `origin`). */
export function createdEndpointJson(e: CreatedEndpoint, origin = '') {
  return {
    ...endpointJson(e),
    ...(e.liveness && { liveness: livenessJson(e.liveness) }),
    ...(e.push && pushJson(origin, e.push)),
  };
}

export function endpointDetailJson(d: EndpointDetail, healthScore: number | null = null) {
  return {
    ...endpointJson(d.endpoint),
    ssl_status: d.ssl_status,
    ssl_expiry_date: d.ssl_expiry_date,
    liveness_enabled: d.liveness_enabled,
    health_score: healthScore,
  };
}

export function livenessJson(c: LivenessConfig, endpointUrl?: string) {
  return {
    id: c.id,
    endpoint_id: c.endpoint_id,
    ...(endpointUrl !== undefined ? { endpoint_url: endpointUrl } : {}),
    ...livenessSettings(c),
    // The secret is never shown: sending the masked value back keeps it.
    auth: c.auth
      ? c.auth.type === 'basic'
        ? { type: c.auth.type, username: c.auth.username ?? '', password: MASKED_SECRET }
        : { type: c.auth.type, token: MASKED_SECRET }
      : null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}
