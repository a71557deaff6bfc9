// Discord webhook: POST to the webhook URL with `content` (the notification text) and one embed per
// event (or per portfolio of a digest). Mentions are disabled: no event text can ping @everyone.
import type { Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, eventFacts, headline, portfolioName, truncate } from './format.js';
import { jsonNumber, postJson } from './http.js';
import { SEVERITY_RGB, httpUrl, webhookUrlRecipient } from './shared.js';
import type { ChannelPlugin, HttpRequest } from './types.js';

/** Discord's documented limits: content 2000, 10 embeds, title 256, description 4096, 25 fields (name 256, value 1024). */
const LIMIT = { content: 2000, embeds: 10, title: 256, description: 4096, fields: 25, name: 256, value: 1024 } as const;

interface DiscordBody {
  content: string;
  username?: string;
  embeds: Record<string, unknown>[];
  allowed_mentions: { parse: string[] };
}

function discordBody(m: Outgoing, config: Record<string, unknown>): DiscordBody {
  const username = typeof config.username === 'string' && config.username ? { username: config.username } : {};
  if (m.kind === 'digest') {
    const title = digestTitle(m);
    const embeds = m.groups.slice(0, LIMIT.embeds).map((g) => ({
      title: truncate(portfolioName(g.portfolio), LIMIT.title),
      description: truncate(g.items.map((it) => `• ${digestLine(it)}`).join('\n'), LIMIT.description),
    }));
    return {
      content: truncate(`${title} (${m.from} to ${m.to})`, LIMIT.content),
      ...username,
      embeds,
      allowed_mentions: { parse: [] },
    };
  }
  const title = headline(m);
  return {
    content: truncate(`${title}: ${m.message}`, LIMIT.content),
    ...username,
    embeds: [
      {
        title: truncate(title, LIMIT.title),
        description: truncate(m.message, LIMIT.description),
        color: SEVERITY_RGB[m.severity] ?? SEVERITY_RGB.info,
        fields: eventFacts(m)
          .slice(0, LIMIT.fields)
          .map(([name, value]) => ({
            name: truncate(name, LIMIT.name),
            value: truncate(value, LIMIT.value),
            inline: true,
          })),
        timestamp: m.timestamp,
        footer: { text: `dommon · ${truncate(m.team, 100)}` },
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

export const discord: ChannelPlugin<HttpRequest> = {
  title: 'Discord',
  api: 'POST to the webhook URL (`https://discord.com/api/webhooks/<id>/<token>`): `content` plus `embeds`',
  configSchema: {
    title: 'discord channel config (webhook)',
    type: 'object',
    additionalProperties: false,
    required: ['webhook_url'],
    properties: {
      webhook_url: httpUrl('The channel webhook URL (Server Settings > Integrations > Webhooks).'),
      username: { type: 'string', minLength: 1, maxLength: 80, description: "Overrides the webhook's default name." },
    },
  },
  example: { webhook_url: 'https://discord.com/api/webhooks/123456789012345678/XXXXXXXX', username: 'dommon' },
  notes:
    'One embed per event, coloured by severity, with the facts as fields; a digest has one embed per portfolio. `allowed_mentions` is empty, so no event text can ping anyone.',
  secrets: [],
  destinations: ['webhook_url'],
  ...webhookUrlRecipient,
  render(m, { config }) {
    const body = discordBody(m, config);
    return {
      url: String(config.webhook_url ?? ''),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      preview: truncate(body.content, 200),
    };
  },
  // A 429 carries Retry-After and `retry_after` (seconds, fractional) in its JSON.
  send: (r, ctx) => postJson(r, ctx, { retryAfter: (head) => ceil(jsonNumber(head, (j) => j.retry_after)) }),
  preview: (r) => r.preview,
};

const ceil = (n: number | null) => (n === null ? null : Math.ceil(n));
