// Generic webhook: POST of the spec's JSON payload (or the row's custom template), signed with
// HMAC-SHA256 of the raw body when the row has a secret_key.
import { createHmac } from 'node:crypto';
import { digestItemCount, type Outgoing } from '../domain/notification.js';
import { postJson } from './http.js';
import { str, truncate } from './format.js';
import { httpUrl, isHttpUrl } from './shared.js';
import type { ChannelPlugin, HttpRequest } from './types.js';

/** The spec's payload fields, in its order, plus event_id for deduplication. */
export function webhookPayload(m: Outgoing): Record<string, unknown> {
  if (m.kind === 'digest') {
    return {
      event_type: 'digest',
      team: m.team,
      user: m.user,
      from: m.from,
      to: m.to,
      message: `${digestItemCount(m)} item(s) since ${m.from}`,
      items: m.groups.flatMap((g) => g.items.map((it) => ({ portfolio: g.portfolio, ...withoutSubject(it) }))),
      timestamp: m.to,
      event_id: m.digest_id,
    };
  }
  return {
    event_type: m.event_type,
    severity: m.severity,
    category: m.category,
    team: m.team,
    user: m.user,
    domain_id: m.domain_id,
    domain: m.domain,
    endpoint_id: m.endpoint_id,
    endpoint_name: m.endpoint_name,
    details: m.details,
    message: m.message,
    timestamp: m.timestamp,
    event_id: m.event_id,
  };
}

function withoutSubject<T extends { subject?: string }>(e: T): Omit<T, 'subject'> {
  const { subject: _s, ...rest } = e;
  return rest;
}

const WHOLE = /^\{\{\s*([A-Za-z0-9_.]+)\s*\}\}$/;
const PART = /\{\{\s*([A-Za-z0-9_.]+)\s*\}\}/g;

function lookup(payload: Record<string, unknown>, path: string): unknown {
  let cur: unknown = payload;
  for (const k of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/**
 * Fills `{{field}}` placeholders (dotted paths into the payload) in a JSON template. The template is
 * parsed first and values are placed into the parsed tree, so no value can break out of its string:
 * a string that is exactly one placeholder takes the value with its JSON type; inside longer strings
 * values are inserted as text. Unknown fields become null (whole) or '' (inside text).
 */
export function applyTemplate(template: unknown, payload: Record<string, unknown>): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) return lookup(payload, whole[1]!) ?? null;
    return template.replace(PART, (_, p: string) => {
      const v = lookup(payload, p);
      if (v === undefined || v === null) return '';
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
    });
  }
  if (Array.isArray(template)) return template.map((t) => applyTemplate(t, payload));
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, applyTemplate(v, payload)]));
  }
  return template;
}

/** config.template is a JSON object/array, or a string holding JSON text. */
function parseTemplate(t: unknown): unknown {
  if (typeof t !== 'string') return t;
  try {
    return JSON.parse(t);
  } catch (err) {
    throw new Error(`template is not valid JSON: ${(err as Error).message}`);
  }
}

function sign(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export const webhook: ChannelPlugin<HttpRequest> = {
  title: 'Webhook',
  api: "POST of the JSON payload (or the row's template) to `webhook_url`, `X-Dommon-Delivery: <delivery id>` (the same on every retry), `X-Signature: sha256=<HMAC>` with a `secret_key`",
  configSchema: {
    title: 'webhook channel config',
    type: 'object',
    additionalProperties: false,
    required: ['webhook_url'],
    properties: {
      webhook_url: httpUrl(),
      secret_key: {
        type: 'string',
        minLength: 1,
        maxLength: 500,
        description:
          'HMAC-SHA256 key of the X-Signature header. Secret: GET shows `********` and the last 4 characters; sending that masked value back keeps the stored one while webhook_url is unchanged.',
      },
      template: {
        description:
          'Custom JSON body: an object/array, or a string of JSON text, with {{field}} placeholders (dotted paths into the payload).',
        type: ['object', 'array', 'string'],
        maxLength: 20000,
      },
    },
  },
  example: { webhook_url: 'https://hooks.example.com/dommon', secret_key: 'whsec_0123456789abcdef' },
  notes:
    "The body is the spec's webhook payload (or the row's `template`); with a `secret_key` the `X-Signature` header is `sha256=` and the HMAC-SHA256 of the raw body, hex.",
  secrets: ['secret_key'],
  destinations: ['webhook_url'],
  credentials: ['webhook_url'],
  instantOnly: true,
  check(config) {
    if (config.template === undefined) return null;
    try {
      const t = parseTemplate(config.template);
      if (t === null || typeof t !== 'object') throw new Error('template must be a JSON object or array');
      return null;
    } catch (err) {
      return `config.template: ${(err as Error).message}`;
    }
  },
  recipient: (config) => (typeof config.webhook_url === 'string' ? config.webhook_url : null),
  test: {
    what: 'an http(s) URL',
    valid: isHttpUrl,
    // The stored secret (and template) go only to the stored URL: signing a test body for any URL a
    // token holder names would hand them validly signed bodies to replay to the real receiver.
    config: (recipient, own) =>
      own && own.webhook_url === recipient
        ? { secret_key: own.secret_key, template: own.template, webhook_url: recipient }
        : { webhook_url: recipient },
  },
  render(m, { config, deliveryId }) {
    const payload = webhookPayload(m);
    const template =
      config.template === undefined || config.template === null ? undefined : parseTemplate(config.template);
    const body = JSON.stringify(template === undefined ? payload : applyTemplate(template, payload));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'dommon-webhook/1' };
    const secret = str(config.secret_key);
    if (secret) headers['x-signature'] = sign(body, secret);
    // Stable across retries and nodes: a receiver that saw this id already can drop the repeat.
    if (deliveryId) headers['x-dommon-delivery'] = deliveryId;
    return {
      url: String(config.webhook_url ?? ''),
      headers,
      body,
      preview: truncate(String(payload.message ?? ''), 200),
    };
  },
  send: postJson,
  preview: (r) => r.preview,
};
