// Pushover: POST {DOMMON_PUSHOVER_URL}/1/messages.json with the app token and user key; the
// priority follows the event's severity.
import type { Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, headline, str, truncate } from './format.js';
import { postJson } from './http.js';
import { secret, withOwn } from './shared.js';
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
    return {
      ...base,
      title: truncate(digestTitle(m), 250),
      message: truncate(lines.join('\n'), 1024),
      priority: 0,
      timestamp: Math.floor(Date.parse(m.to) / 1000),
    };
  }
  return {
    ...base,
    title: truncate(headline(m), 250),
    message: truncate(m.message, 1024),
    priority: PUSHOVER_PRIORITY[m.severity] ?? 0,
    timestamp: Math.floor(Date.parse(m.timestamp) / 1000),
  };
}

const KEY = '[A-Za-z0-9]{20,40}';

export const pushover: ChannelPlugin<{ body: PushoverMessage; preview: string }> = {
  title: 'Pushover',
  api: 'POST `{DOMMON_PUSHOVER_URL}/1/messages.json` with `token`, `user`, `title`, `message`, `priority`',
  configSchema: {
    title: 'pushover channel config',
    type: 'object',
    additionalProperties: false,
    required: ['user_key', 'app_token'],
    properties: {
      user_key: secret(KEY, 'Pushover user (or group) key.'),
      app_token: secret(KEY, 'Pushover application token.'),
    },
  },
  example: { user_key: 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG', app_token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi' },
  notes:
    "Priority 1 for critical and high, 0 medium, -1 low and info. A test send's recipient is a user key; the app token comes from your own pushover row.",
  secrets: ['user_key', 'app_token'],
  destinations: [], // the provider API is the operator's (DOMMON_PUSHOVER_URL), never the config's
  instantOnly: true,
  recipient: () => null,
  test: {
    what: 'a Pushover user key',
    valid: (s) => new RegExp(`^${KEY}$`).test(s),
    config: withOwn('user_key', 'app_token', 'pushover'),
  },
  render(m, { config }) {
    const body = pushoverBody(m, config);
    return { body, preview: truncate(`${body.title}: ${body.message}`, 200) };
  },
  send: (r, ctx) =>
    postJson(
      {
        url: `${ctx.urls.pushover.replace(/\/+$/, '')}/1/messages.json`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(r.body),
        preview: r.preview,
      },
      ctx,
      { explain: pushoverErrors },
    ),
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
    const text = errors
      .filter((e): e is string => typeof e === 'string')
      .join('; ')
      .replace(/[\u0000-\u001f]+/g, ' ')
      .trim();
    return text ? truncate(text, 200) : null;
  } catch {
    return null;
  }
}
