// ntfy: POST the message text to {server}/{topic} with Title, Priority and Tags headers and, for
// protected topics, `Authorization: Bearer <token>`. The server is the row's `server_url` (self-hosted)
// or DOMMON_NTFY_URL (default https://ntfy.sh).
import { isRecovery, type Outgoing } from '../domain/notification.js';
import { headline, plainText, truncate } from './format.js';
import { postJson } from './http.js';
import { httpUrl, mask, secret } from './shared.js';
import type { ChannelPlugin } from './types.js';

/** ntfy priorities: 5 max/urgent, 4 high, 3 default, 2 low, 1 min. */
const NTFY_PRIORITY: Record<string, number> = { critical: 5, high: 4, medium: 3, low: 2, info: 2 };
/** Tags that are emoji short codes show as an emoji before the title. */
const TAG: Record<string, string> = {
  critical: 'rotating_light',
  high: 'warning',
  medium: 'warning',
  low: 'information_source',
  info: 'information_source',
};
const TOPIC = '^[-_A-Za-z0-9]{1,64}$';
/** ntfy turns a message over 4096 bytes into an attachment; stay under it. */
const MESSAGE_MAX = 3800;

/** Header values are bytes: non-ASCII text goes as an RFC 2047 encoded word, which ntfy decodes. */
export function headerText(s: string): string {
  const flat = s.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

interface NtfyRequest {
  /** Empty: DOMMON_NTFY_URL at send time. */
  server: string;
  topic: string;
  headers: Record<string, string>;
  body: string;
  preview: string;
}

function ntfyRequest(m: Outgoing, config: Record<string, unknown>): NtfyRequest {
  const { title, body } = plainText(m);
  const tags =
    m.kind === 'digest'
      ? ['dommon', 'digest']
      : [isRecovery(m) ? 'white_check_mark' : (TAG[m.severity] ?? 'information_source'), 'dommon', m.event_type];
  const headers: Record<string, string> = {
    'content-type': 'text/plain; charset=utf-8',
    title: headerText(truncate(title, 250)),
    priority: String(m.kind === 'digest' ? 3 : (NTFY_PRIORITY[m.severity] ?? 3)),
    tags: tags.join(','),
  };
  if (typeof config.token === 'string' && config.token) headers.authorization = `Bearer ${config.token}`;
  return {
    server: typeof config.server_url === 'string' ? config.server_url : '',
    topic: String(config.topic ?? ''),
    headers,
    body: truncate(body, MESSAGE_MAX),
    preview: truncate(m.kind === 'digest' ? title : `${headline(m)}: ${m.message}`, 200),
  };
}

export const ntfy: ChannelPlugin<NtfyRequest> = {
  title: 'ntfy',
  api: 'POST the text to `{server_url or DOMMON_NTFY_URL}/<topic>` with `Title`, `Priority`, `Tags` headers (and `Authorization: Bearer <token>`)',
  configSchema: {
    title: 'ntfy channel config',
    type: 'object',
    additionalProperties: false,
    required: ['topic'],
    properties: {
      topic: {
        type: 'string',
        pattern: TOPIC,
        description:
          'The topic to publish to. On a public server the topic name is the only protection: choose one hard to guess.',
      },
      server_url: httpUrl('A self-hosted ntfy server; default DOMMON_NTFY_URL (https://ntfy.sh).'),
      token: secret(
        '[A-Za-z0-9_-]{1,200}',
        'Access token (`tk_...`) for a protected topic, sent as `Authorization: Bearer`.',
      ),
    },
  },
  example: {
    topic: 'dommon-alerts-7f3k2q',
    server_url: 'https://ntfy.example.com',
    token: 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2',
  },
  notes:
    'Priority 5 for critical, 4 high, 3 medium, 2 low and info; tags carry an emoji (warning, rotating_light, white_check_mark on recovery), `dommon` and the event type. Non-ASCII titles are sent RFC 2047-encoded.',
  secrets: ['token'],
  destinations: ['server_url'],
  credentials: ['topic'],
  recipient: (config) => (typeof config.topic === 'string' ? config.topic : null),
  // On a public server the topic is as good as a password: the team-wide log shows its last 4 characters.
  showRecipient: (r) => String(mask(r)),
  test: {
    what: 'an ntfy topic name (letters, digits, - and _)',
    valid: (s) => new RegExp(TOPIC).test(s),
    // The stored token travels only to the stored server (or the default one), whatever the topic.
    config: (recipient, own) => ({ ...(own ?? {}), topic: recipient }),
  },
  render: (m, { config }) => ntfyRequest(m, config),
  send: (r, ctx) =>
    postJson(
      {
        url: `${(r.server || ctx.urls.ntfy).replace(/\/+$/, '')}/${encodeURIComponent(r.topic)}`,
        headers: r.headers,
        body: r.body,
        preview: r.preview,
      },
      ctx,
    ),
  preview: (r) => r.preview,
};
