// Mattermost incoming webhook: POST `text` (Markdown), optionally `channel` and `username` (both need
// the webhook to allow overrides), to https://<server>/hooks/<key>.
import type { Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, escapeMarkdown, eventFacts, headline, portfolioName, truncate } from './format.js';
import { postJson } from './http.js';
import { httpUrl, webhookUrlRecipient } from './shared.js';
import type { ChannelPlugin, HttpRequest } from './types.js';

/** Mattermost servers before 5.0 cut posts at 4,000 characters; newer ones allow 16,383. */
const TEXT_MAX = 4000;

interface MattermostBody {
  text: string;
  channel?: string;
  username?: string;
}

function mattermostText(m: Outgoing): string {
  if (m.kind === 'digest') {
    const lines = [`#### ${escapeMarkdown(digestTitle(m))}`, `_${m.from} to ${m.to}_`];
    for (const g of m.groups)
      lines.push(
        '',
        `**${escapeMarkdown(portfolioName(g.portfolio))}**`,
        ...g.items.map((it) => `- ${escapeMarkdown(digestLine(it))}`),
      );
    return truncate(lines.join('\n'), TEXT_MAX);
  }
  const facts = eventFacts(m, { time: true }).map(([k, v]) => `| ${k} | ${escapeMarkdown(v)} |`);
  return truncate(
    [`#### ${escapeMarkdown(headline(m))}`, escapeMarkdown(m.message), '', '| | |', '|:--|:--|', ...facts].join('\n'),
    TEXT_MAX,
  );
}

function mattermostBody(m: Outgoing, config: Record<string, unknown>): MattermostBody {
  return {
    text: mattermostText(m),
    ...(typeof config.channel === 'string' && config.channel ? { channel: config.channel } : {}),
    ...(typeof config.username === 'string' && config.username ? { username: config.username } : {}),
  };
}

export const mattermost: ChannelPlugin<HttpRequest> = {
  title: 'Mattermost',
  api: 'POST to the incoming-webhook URL (`https://<server>/hooks/<key>`): `text` (Markdown), optional `channel`, `username`',
  configSchema: {
    title: 'mattermost channel config (incoming webhook)',
    type: 'object',
    additionalProperties: false,
    required: ['webhook_url'],
    properties: {
      webhook_url: httpUrl('The incoming-webhook URL (Integrations > Incoming Webhooks).'),
      channel: {
        type: 'string',
        pattern: '^[a-z0-9@][a-z0-9_.@-]{0,63}$',
        description: "Channel name (URL name, e.g. town-square, or @user) overriding the webhook's default.",
      },
      username: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description: "Display name overriding the webhook's default.",
      },
    },
  },
  example: {
    webhook_url: 'https://mattermost.example.com/hooks/xxxxxxxxxxxxxxxxxxxxxxxxxx',
    channel: 'ops-alerts',
    username: 'dommon',
  },
  notes:
    '`channel` and `username` are honoured only when the webhook allows overriding them (System Console > Integrations).',
  secrets: [],
  destinations: ['webhook_url'],
  ...webhookUrlRecipient,
  render(m, { config }) {
    const body = mattermostBody(m, config);
    const preview = m.kind === 'digest' ? digestTitle(m) : `${headline(m)}: ${m.message}`;
    return {
      url: String(config.webhook_url ?? ''),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      preview: truncate(preview, 200),
    };
  },
  send: postJson,
  preview: (r) => r.preview,
};
