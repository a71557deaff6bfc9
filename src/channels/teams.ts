// Microsoft Teams incoming webhook (Workflows or connector): a message with one Adaptive Card.
import type { Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, eventFacts, headline, portfolioName, truncate } from './format.js';
import { postJson } from './http.js';
import { httpUrl, webhookUrlRecipient } from './shared.js';
import type { ChannelPlugin, HttpRequest } from './types.js';

const COLORS: Record<string, string> = {
  critical: 'Attention',
  high: 'Attention',
  medium: 'Warning',
  low: 'Accent',
  info: 'Good',
};

type Element = Record<string, unknown>;
const text = (t: string, extra: Element = {}): Element => ({ type: 'TextBlock', text: t, wrap: true, ...extra });

function adaptiveCard(m: Outgoing): Element {
  let body: Element[];
  if (m.kind === 'digest') {
    body = [
      text(digestTitle(m), { size: 'Large', weight: 'Bolder' }),
      text(`${m.from} to ${m.to}`, { isSubtle: true, spacing: 'None' }),
    ];
    for (const g of m.groups) {
      body.push(text(portfolioName(g.portfolio), { weight: 'Bolder', spacing: 'Medium' }));
      body.push(text(g.items.map((it) => `- ${digestLine(it)}`).join('\n')));
    }
  } else {
    const facts = eventFacts(m, { time: true });
    body = [
      text(headline(m), { size: 'Large', weight: 'Bolder', color: COLORS[m.severity] ?? 'Default' }),
      text(m.message),
      { type: 'FactSet', facts: facts.map(([title, value]) => ({ title, value })) },
    ];
  }
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
        },
      },
    ],
  };
}

export const teams: ChannelPlugin<HttpRequest> = {
  title: 'Microsoft Teams',
  api: 'POST to the incoming-webhook (Workflows) URL: a message with one Adaptive Card',
  configSchema: {
    title: 'teams channel config (incoming webhook)',
    type: 'object',
    additionalProperties: false,
    required: ['webhook_url'],
    properties: { webhook_url: httpUrl() },
  },
  example: {
    webhook_url: 'https://prod-00.westeurope.logic.azure.com/workflows/abc/triggers/manual/paths/invoke?sig=XXXX',
  },
  secrets: [],
  destinations: ['webhook_url'],
  ...webhookUrlRecipient,
  render(m, { config }) {
    const preview = m.kind === 'digest' ? digestTitle(m) : `${headline(m)}: ${m.message}`;
    return {
      url: String(config.webhook_url ?? ''),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(adaptiveCard(m)),
      preview: truncate(preview, 200),
    };
  },
  send: postJson,
  preview: (r) => r.preview,
};
