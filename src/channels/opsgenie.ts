// Opsgenie Alert API: POST {DOMMON_OPSGENIE_URL}/v2/alerts with `Authorization: GenieKey <api_key>`.
// The alert's alias is derived from the event's target (incidentKey): Opsgenie folds repeats into one
// alert, and the recovery of the same target closes it (POST /v2/alerts/{alias}/close?identifierType=alias).
import { digestItemCount, incidentKey, isRecovery, type Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, eventFacts, eventTarget, headline, truncate } from './format.js';
import { jsonText, postJson } from './http.js';
import { mask, secret } from './shared.js';
import type { ChannelPlugin } from './types.js';

/** Opsgenie priorities P1 (critical) to P5 (informational). */
const OPSGENIE_PRIORITY: Record<string, string> = { critical: 'P1', high: 'P2', medium: 'P3', low: 'P4', info: 'P5' };
const API_KEY = '[A-Za-z0-9-]{20,64}';

interface OpsgenieRequest {
  /** `create`: POST /v2/alerts; `close`: POST /v2/alerts/{alias}/close?identifierType=alias. */
  action: 'create' | 'close';
  alias: string;
  apiKey: string;
  body: Record<string, unknown>;
  preview: string;
}

function opsgenieRequest(m: Outgoing, config: Record<string, unknown>): OpsgenieRequest {
  const apiKey = String(config.api_key ?? '');
  const tags = ['dommon', ...(Array.isArray(config.tags) ? (config.tags as string[]) : [])];
  if (m.kind === 'digest') {
    const alias = `dommon/digest/${m.digest_id}`;
    const lines = m.groups.flatMap((g) => g.items.map(digestLine));
    return {
      action: 'create',
      alias,
      apiKey,
      preview: truncate(digestTitle(m), 200),
      body: {
        message: truncate(digestTitle(m), 130),
        alias,
        description: truncate(lines.join('\n'), 15000),
        priority: 'P5',
        source: 'dommon',
        tags,
        details: { from: m.from, to: m.to, items: String(digestItemCount(m)) },
      },
    };
  }
  const alias = incidentKey(m);
  if (isRecovery(m)) {
    return {
      action: 'close',
      alias,
      apiKey,
      preview: truncate(`close ${alias}: ${m.message}`, 200),
      body: { source: 'dommon', note: truncate(m.message, 25000) },
    };
  }
  const details = Object.fromEntries(
    eventFacts(m, { team: true, time: true }).map(([k, v]) => [k.toLowerCase(), truncate(v, 8000)]),
  );
  return {
    action: 'create',
    alias,
    apiKey,
    preview: truncate(`${headline(m)}: ${m.message}`, 200),
    body: {
      message: truncate(headline(m), 130),
      alias,
      description: truncate(m.message, 15000),
      priority: OPSGENIE_PRIORITY[m.severity] ?? 'P3',
      entity: truncate(eventTarget(m) ?? 'dommon', 512),
      source: 'dommon',
      tags: [...tags, m.event_type],
      details: { ...details, event_id: m.event_id },
    },
  };
}

export const opsgenie: ChannelPlugin<OpsgenieRequest> = {
  title: 'Opsgenie',
  api: 'POST `{DOMMON_OPSGENIE_URL}/v2/alerts` with `Authorization: GenieKey <api_key>` and an `alias`; on recovery POST `/v2/alerts/<alias>/close?identifierType=alias`',
  configSchema: {
    title: 'opsgenie channel config (Alert API)',
    type: 'object',
    additionalProperties: false,
    required: ['api_key'],
    properties: {
      api_key: secret(API_KEY, 'API key of an API integration (Settings > Integrations > API).'),
      tags: {
        type: 'array',
        maxItems: 20,
        uniqueItems: true,
        items: { type: 'string', minLength: 1, maxLength: 50 },
        description: 'Extra tags on every alert (dommon and the event type are always set).',
      },
    },
  },
  example: { api_key: 'eb243592-faa2-4ba2-a551-1afdf565c889', tags: ['production'] },
  notes:
    "Priority P1 for critical to P5 for info. The `alias` is the same key as PagerDuty's `dedup_key`: the DOWN event creates the alert, the RECOVERED event closes it. EU accounts set `DOMMON_OPSGENIE_URL=https://api.eu.opsgenie.com`. A test send creates a P5 alert you close by hand.",
  secrets: ['api_key'],
  destinations: [], // the provider API is the operator's (DOMMON_OPSGENIE_URL), never the config's
  instantOnly: true,
  recipient: () => null,
  showRecipient: (r) => String(mask(r)),
  test: {
    what: 'an Opsgenie API integration key',
    valid: (s) => new RegExp(`^${API_KEY}$`).test(s),
    config: (recipient) => ({ api_key: recipient }),
  },
  render: (m, { config }) => opsgenieRequest(m, config),
  send(r, ctx) {
    const base = `${ctx.urls.opsgenie.replace(/\/+$/, '')}/v2/alerts`;
    const url = r.action === 'close' ? `${base}/${encodeURIComponent(r.alias)}/close?identifierType=alias` : base;
    return postJson(
      {
        url,
        headers: { 'content-type': 'application/json', authorization: `GenieKey ${r.apiKey}` },
        body: JSON.stringify(r.body),
        preview: r.preview,
      },
      ctx,
      // The documented error answer: {"message":"Key format is not valid!","took":0.001,"requestId":"..."}.
      { explain: (head) => jsonText(head, (j) => j.message) },
    );
  },
  preview: (r) => r.preview,
};
