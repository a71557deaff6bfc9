// Pushover: POST {DOMMON_PUSHOVER_URL}/1/messages.json with the app token and user key; the
// priority follows the event's severity.
import type { Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, headline, str, truncate } from './format.js';
import { postJson } from './http.js';
import type { ChannelPlugin } from './types.js';

/** Pushover priorities: 1 high (bypasses quiet hours), 0 normal, -1 quiet. */
export const PUSHOVER_PRIORITY: Record<string, number> = { critical: 1, high: 1, medium: 0, low: -1, info: -1 };

interface PushoverMessage {
  token: string;
  user: string;
  title: string;
  message: string;
  priority: number;
  timestamp: number;
}

function pushoverBody(m: Outgoing, config: Record<string, unknown>): PushoverMessage {
  const base = { token: str(config.app_token) ?? '', user: str(config.user_key) ?? '' };
  if (m.kind === 'digest') {
    const lines = m.groups.flatMap((g) => g.items.map(digestLine));
    return { ...base, title: truncate(digestTitle(m), 250), message: truncate(lines.join('\n'), 1024), priority: 0, timestamp: Math.floor(Date.parse(m.to) / 1000) };
  }
  return {
    ...base,
    title: truncate(headline(m), 250),
    message: truncate(m.message, 1024),
    priority: PUSHOVER_PRIORITY[m.severity] ?? 0,
    timestamp: Math.floor(Date.parse(m.timestamp) / 1000),
  };
}

export const pushover: ChannelPlugin<{ body: PushoverMessage; preview: string }> = {
  render(m, { config }) {
    const body = pushoverBody(m, config);
    return { body, preview: truncate(`${body.title}: ${body.message}`, 200) };
  },
  send: (r, ctx) =>
    postJson({ url: `${ctx.pushoverUrl.replace(/\/+$/, '')}/1/messages.json`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(r.body), preview: r.preview }, ctx, pushoverErrors),
  preview: (r) => r.preview,
};

/**
 * Pushover's documented error answer, `{"status":0,"errors":["user identifier is invalid"]}`: its
 * messages tell the user what to fix. Only strings from that field, and at most 200 characters.
 */
function pushoverErrors(head: string): string | null {
  try {
    const errors = (JSON.parse(head) as { errors?: unknown }).errors;
    if (!Array.isArray(errors)) return null;
    const text = errors.filter((e): e is string => typeof e === 'string').join('; ').replace(/[\u0000-\u001f]+/g, ' ').trim();
    return text ? truncate(text, 200) : null;
  } catch {
    return null;
  }
}
