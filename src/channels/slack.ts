// Slack incoming webhook: `text` as the notification fallback plus Block Kit blocks.
import type { Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, escapeSlack, eventFacts, headline, portfolioName, truncate } from './format.js';
import { postJson } from './http.js';
import { httpUrl, webhookUrlRecipient } from './shared.js';
import type { ChannelPlugin, HttpRequest } from './types.js';

type Block = Record<string, unknown>;
const SECTION_MAX = 3000; // Slack's limit on a section's text
const MAX_BLOCKS = 50;

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text: truncate(text, SECTION_MAX) });

function slackBody(m: Outgoing): { text: string; blocks: Block[] } {
  if (m.kind === 'digest') {
    const title = digestTitle(m);
    const blocks: Block[] = [{ type: 'header', text: { type: 'plain_text', text: truncate(title, 150) } }];
    for (const g of m.groups) {
      blocks.push({ type: 'section', text: mrkdwn(`*${escapeSlack(portfolioName(g.portfolio))}*`) });
      blocks.push({
        type: 'section',
        text: mrkdwn(g.items.map((it) => `• ${escapeSlack(digestLine(it))}`).join('\n')),
      });
    }
    blocks.push({ type: 'context', elements: [mrkdwn(`dommon · ${escapeSlack(m.team)} · ${m.from} to ${m.to}`)] });
    return {
      text: title,
      blocks: blocks.length > MAX_BLOCKS ? [...blocks.slice(0, MAX_BLOCKS - 1), blocks[blocks.length - 1]!] : blocks,
    };
  }
  const title = headline(m);
  const fields = eventFacts(m);
  return {
    text: `${title}: ${m.message}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: truncate(title, 150) } },
      { type: 'section', text: mrkdwn(escapeSlack(m.message)) },
      { type: 'section', fields: fields.map(([k, v]) => mrkdwn(`*${k}*\n${escapeSlack(v)}`)) },
      { type: 'context', elements: [mrkdwn(`dommon · ${escapeSlack(m.team)} · ${m.timestamp}`)] },
    ],
  };
}

export const slack: ChannelPlugin<HttpRequest> = {
  title: 'Slack',
  api: 'POST to the incoming-webhook URL: `text` plus Block Kit `blocks`',
  configSchema: {
    title: 'slack channel config (incoming webhook)',
    type: 'object',
    additionalProperties: false,
    required: ['webhook_url'],
    properties: { webhook_url: httpUrl() },
  },
  example: { webhook_url: 'https://hooks.slack.com/services/T000/B000/XXXXXXXX' },
  secrets: [],
  destinations: ['webhook_url'],
  ...webhookUrlRecipient,
  render(m, { config }) {
    const body = slackBody(m);
    return {
      url: String(config.webhook_url ?? ''),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      preview: truncate(body.text, 200),
    };
  },
  send: postJson,
  preview: (r) => r.preview,
};
