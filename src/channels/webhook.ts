// Generic webhook: POST of the spec's JSON payload (or the row's custom template), signed with
// HMAC-SHA256 of the raw body when the row has a secret_key.
import { createHmac } from 'node:crypto';
import { digestItemCount, type Outgoing } from '../domain/notification.js';
import { postJson } from './http.js';
import { str, truncate } from './format.js';
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
export function parseTemplate(t: unknown): unknown {
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
  render(m, { config }) {
    const payload = webhookPayload(m);
    const template = config.template === undefined || config.template === null ? undefined : parseTemplate(config.template);
    const body = JSON.stringify(template === undefined ? payload : applyTemplate(template, payload));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'dommon-webhook/1' };
    const secret = str(config.secret_key);
    if (secret) headers['x-signature'] = sign(body, secret);
    return { url: String(config.webhook_url ?? ''), headers, body, preview: truncate(String(payload.message ?? ''), 200) };
  },
  send: postJson,
  preview: (r) => r.preview,
};
