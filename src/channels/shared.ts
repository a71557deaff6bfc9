// What several plug-ins declare the same way: config schema pieces, secret masking, recipients that
// are URLs (the URL is the credential: the team-wide log shows scheme and host only).
import type { ChannelPlugin, JsonSchema } from './types.js';

/** A masked secret as GET returns it: `********` and at most the last 4 characters. */
export const MASKED = /^\*{8}/;

/** `abcdefgh1234` -> `********1234`: enough to recognise, never the secret. */
export function mask(v: unknown): unknown {
  if (typeof v !== 'string' || !v) return v;
  return v.length <= 8 ? '********' : `********${v.slice(-4)}`;
}

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** `https://hooks.example.com/services/T0/B0/xyz` -> `https://hooks.example.com/…`. */
export function hostOnly(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '…';
  }
}

export const httpUrl = (description?: string): JsonSchema => ({
  type: 'string',
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2000,
  ...(description ? { description } : {}),
});

/** A secret string matching `pattern`, or a masked value as GET returned it (which keeps the stored one). */
export const secret = (pattern: string, description: string): JsonSchema => ({
  type: 'string',
  pattern: `^(${pattern}|\\*{8}[^*]{0,4})$`,
  description: `${description} Secret: GET shows \`********\` and the last 4 characters; sending that masked value back keeps the stored one while the channel's destination keys are unchanged.`,
});

/** Recipient rules of a channel whose config is one incoming-webhook URL (Slack, Teams, Discord, ...). */
export const webhookUrlRecipient = {
  credentials: ['webhook_url'],
  recipient: (config: Record<string, unknown>) => (typeof config.webhook_url === 'string' ? config.webhook_url : null),
  showRecipient: hostOnly,
  test: {
    what: 'an http(s) URL (the incoming-webhook URL)',
    valid: isHttpUrl,
    config: (recipient: string) => ({ webhook_url: recipient }),
  },
} satisfies Pick<ChannelPlugin<unknown>, 'credentials' | 'recipient' | 'showRecipient' | 'test'>;

/** Test sends that reuse the caller's stored credentials with another destination field. */
export function withOwn(field: string, needs: string, kind: string) {
  return (recipient: string, own: Record<string, unknown> | undefined): Record<string, unknown> | { error: string } =>
    own && typeof own[needs] === 'string' && own[needs]
      ? { ...own, [field]: recipient }
      : { error: `${kind} test: no ${needs} configured (PUT /api/v1/notifications/settings/${kind} first)` };
}

/** Severity -> a colour the chat channels share (RGB). */
export const SEVERITY_RGB: Record<string, number> = {
  critical: 0xb00020,
  high: 0xe8590c,
  medium: 0xf2c94c,
  low: 0x2f80ed,
  info: 0x27ae60,
};
