// PagerDuty Events API v2: POST {DOMMON_PAGERDUTY_URL}/v2/enqueue with the integration's routing_key.
// An event triggers an alert whose dedup_key is derived from its target (incidentKey), so the
// recovery of the same target resolves that alert instead of opening another.
import { digestItemCount, incidentKey, isRecovery, type Outgoing } from '../domain/notification.js';
import { digestTitle, eventTarget, headline, truncate } from './format.js';
import { jsonText, postJson } from './http.js';
import { mask, secret } from './shared.js';
import type { ChannelPlugin } from './types.js';

/** Events API v2 severities: critical, error, warning, info. */
const PAGERDUTY_SEVERITY: Record<string, string> = {
  critical: 'critical',
  high: 'error',
  medium: 'warning',
  low: 'info',
  info: 'info',
};
const ROUTING_KEY = '[A-Za-z0-9]{32}';

type PagerDutyEvent =
  | {
      routing_key: string;
      event_action: 'trigger';
      dedup_key: string;
      payload: Record<string, unknown>;
      client: string;
    }
  | { routing_key: string; event_action: 'resolve'; dedup_key: string };

function pagerdutyEvent(m: Outgoing, config: Record<string, unknown>): PagerDutyEvent {
  const routing_key = String(config.routing_key ?? '');
  if (m.kind === 'digest') {
    return {
      routing_key,
      event_action: 'trigger',
      dedup_key: `dommon/digest/${m.digest_id}`,
      client: 'dommon',
      payload: {
        summary: truncate(digestTitle(m), 1024),
        source: 'dommon',
        severity: 'info',
        timestamp: m.to,
        group: m.team,
        class: 'digest',
        custom_details: { from: m.from, to: m.to, items: digestItemCount(m) },
      },
    };
  }
  const dedup_key = incidentKey(m);
  if (isRecovery(m)) return { routing_key, event_action: 'resolve', dedup_key };
  return {
    routing_key,
    event_action: 'trigger',
    dedup_key,
    client: 'dommon',
    payload: {
      summary: truncate(`${headline(m)}: ${m.message}`, 1024),
      source: eventTarget(m) ?? 'dommon',
      severity: PAGERDUTY_SEVERITY[m.severity] ?? 'info',
      timestamp: m.timestamp,
      component: m.endpoint_name ?? m.domain ?? undefined,
      group: m.team,
      class: m.category ?? m.event_type,
      custom_details: {
        event_type: m.event_type,
        category: m.category,
        domain: m.domain,
        endpoint: m.endpoint_name,
        message: m.message,
        event_id: m.event_id,
        ...m.details,
      },
    },
  };
}

export const pagerduty: ChannelPlugin<{ body: PagerDutyEvent; preview: string }> = {
  title: 'PagerDuty',
  api: 'POST `{DOMMON_PAGERDUTY_URL}/v2/enqueue` (Events API v2): `event_action` trigger, or resolve on recovery with the same `dedup_key`',
  configSchema: {
    title: 'pagerduty channel config (Events API v2)',
    type: 'object',
    additionalProperties: false,
    required: ['routing_key'],
    properties: {
      routing_key: secret(ROUTING_KEY, 'Integration key of an Events API v2 integration (32 characters).'),
    },
  },
  example: { routing_key: 'R0123456789ABCDEF0123456789ABCDE' },
  notes:
    'Severity critical -> critical, high -> error, medium -> warning, low and info -> info. The `dedup_key` is `dommon/liveness/<endpoint id>` for liveness (the DOWN event triggers, the RECOVERED event resolves) and `dommon/<type>/<category>/<target id>` otherwise. A test send triggers an info alert you resolve by hand.',
  secrets: ['routing_key'],
  destinations: [], // the provider API is the operator's (DOMMON_PAGERDUTY_URL), never the config's
  instantOnly: true,
  recipient: () => null,
  showRecipient: (r) => String(mask(r)),
  test: {
    what: 'a PagerDuty integration (routing) key',
    valid: (s) => new RegExp(`^${ROUTING_KEY}$`).test(s),
    config: (recipient) => ({ routing_key: recipient }),
  },
  render(m, { config }) {
    const body = pagerdutyEvent(m, config);
    const preview = body.event_action === 'resolve' ? `resolve ${body.dedup_key}` : String(body.payload.summary);
    return { body, preview: truncate(preview, 200) };
  },
  send: (r, ctx) =>
    postJson(
      {
        url: `${ctx.urls.pagerduty.replace(/\/+$/, '')}/v2/enqueue`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(r.body),
        preview: r.preview,
      },
      ctx,
      // The documented 400 answer: {"status":"invalid event","message":"Event object is invalid","errors":["..."]}.
      { explain: (head) => jsonText(head, (j) => (Array.isArray(j.errors) && j.errors.length ? j.errors : j.message)) },
    ),
  preview: (r) => r.preview,
};
