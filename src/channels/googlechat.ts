// Google Chat incoming webhook: POST `{ "text": ... }` to the space's webhook URL (its key and token
// are in the query string, so the URL is the credential).
import type { Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, eventFacts, headline, portfolioName, truncate } from './format.js';
import { postJson } from './http.js';
import { httpUrl, webhookUrlRecipient } from './shared.js';
import type { ChannelPlugin, HttpRequest } from './types.js';

/** Google Chat's limit on a message's text is 4,096 characters. */
const TEXT_MAX = 4096;

/** Chat's own markup: *bold*, _italic_; the values are left as they are (no HTML is interpreted). */
function googleChatText(m: Outgoing): string {
  if (m.kind === 'digest') {
    const lines = [`*${digestTitle(m)}*`, `_${m.from} to ${m.to}_`];
    for (const g of m.groups)
      lines.push('', `*${portfolioName(g.portfolio)}*`, ...g.items.map((it) => `• ${digestLine(it)}`));
    return truncate(lines.join('\n'), TEXT_MAX);
  }
  return truncate(
    [`*${headline(m)}*`, m.message, '', ...eventFacts(m, { time: true }).map(([k, v]) => `${k}: ${v}`)].join('\n'),
    TEXT_MAX,
  );
}

export const googlechat: ChannelPlugin<HttpRequest> = {
  title: 'Google Chat',
  api: 'POST `{"text": ...}` to the space\'s incoming-webhook URL (`https://chat.googleapis.com/v1/spaces/<space>/messages?key=...&token=...`)',
  configSchema: {
    title: 'googlechat channel config (incoming webhook)',
    type: 'object',
    additionalProperties: false,
    required: ['webhook_url'],
    properties: { webhook_url: httpUrl("The space's webhook URL (Apps & integrations > Webhooks).") },
  },
  example: { webhook_url: 'https://chat.googleapis.com/v1/spaces/AAAAxxxx/messages?key=XXXX&token=XXXX' },
  secrets: [],
  destinations: ['webhook_url'],
  ...webhookUrlRecipient,
  render(m, { config }) {
    const text = googleChatText(m);
    return {
      url: String(config.webhook_url ?? ''),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ text }),
      preview: truncate(text.replace(/\*/g, ''), 200),
    };
  },
  send: postJson,
  preview: (r) => r.preview,
};
