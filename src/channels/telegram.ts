// Telegram Bot API: POST {DOMMON_TELEGRAM_URL}/bot<token>/sendMessage with `chat_id` and an HTML
// `text` (parse_mode HTML: only &, < and > need escaping).
import type { Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, escapeSlack, eventFacts, headline, portfolioName, truncate } from './format.js';
import { jsonNumber, jsonText, postJson } from './http.js';
import { secret, withOwn } from './shared.js';
import type { ChannelPlugin } from './types.js';

/** Telegram's limit on a message's text (after entity parsing; we cut the source to be safe). */
const TEXT_MAX = 4096;
const CHAT_ID = '^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$';

// Telegram's HTML mode needs only &, < and > escaped, as Slack's mrkdwn does.
const esc = escapeSlack;

interface TelegramMessage {
  chat_id: string;
  text: string;
  parse_mode: 'HTML';
  link_preview_options: { is_disabled: true };
}

function telegramText(m: Outgoing): string {
  if (m.kind === 'digest') {
    const parts = [`<b>${esc(digestTitle(m))}</b>`, `<i>${esc(m.from)} to ${esc(m.to)}</i>`];
    for (const g of m.groups)
      parts.push('', `<b>${esc(portfolioName(g.portfolio))}</b>`, ...g.items.map((it) => `• ${esc(digestLine(it))}`));
    return cut(parts.join('\n'));
  }
  const facts = eventFacts(m, { time: true }).map(([k, v]) => `<b>${esc(k)}:</b> ${esc(v)}`);
  return cut([`<b>${esc(headline(m))}</b>`, esc(m.message), '', ...facts].join('\n'));
}

/** Cuts at a line end so no tag is left open (every tag opens and closes on one line). */
function cut(text: string): string {
  if (text.length <= TEXT_MAX) return text;
  const head = text.slice(0, TEXT_MAX - 2);
  return `${head.slice(0, Math.max(0, head.lastIndexOf('\n')))}\n…`;
}

export const telegram: ChannelPlugin<{ token: string; body: TelegramMessage; preview: string }> = {
  title: 'Telegram',
  api: 'POST `{DOMMON_TELEGRAM_URL}/bot<bot_token>/sendMessage` with `chat_id`, `text` (HTML)',
  configSchema: {
    title: 'telegram channel config (Bot API)',
    type: 'object',
    additionalProperties: false,
    required: ['bot_token', 'chat_id'],
    properties: {
      bot_token: secret('[0-9]{1,20}:[A-Za-z0-9_-]{20,100}', 'The bot token from @BotFather (`123456:ABC-...`).'),
      chat_id: {
        type: 'string',
        pattern: CHAT_ID,
        description: 'Numeric chat id (groups and channels are negative, e.g. -1001234567890) or @channelusername.',
      },
    },
  },
  example: { bot_token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: '-1001234567890' },
  notes:
    "Create a bot with @BotFather and add it to the chat. `text` is HTML (`parse_mode: HTML`). A test send's recipient is a chat id; the bot token comes from your own telegram row.",
  secrets: ['bot_token'],
  destinations: [], // the provider API is the operator's (DOMMON_TELEGRAM_URL), never the config's
  recipient: (config) => (typeof config.chat_id === 'string' ? config.chat_id : null),
  test: {
    what: 'a Telegram chat id (-1001234567890 or @channelname)',
    valid: (s) => new RegExp(CHAT_ID).test(s),
    config: withOwn('chat_id', 'bot_token', 'telegram'),
  },
  render(m, { config }) {
    const text = telegramText(m);
    const preview = m.kind === 'digest' ? digestTitle(m) : `${headline(m)}: ${m.message}`;
    return {
      token: String(config.bot_token ?? ''),
      body: {
        chat_id: String(config.chat_id ?? ''),
        text,
        parse_mode: 'HTML',
        link_preview_options: { is_disabled: true },
      },
      preview: truncate(preview, 200),
    };
  },
  send: (r, ctx) =>
    postJson(
      {
        url: `${ctx.urls.telegram.replace(/\/+$/, '')}/bot${r.token}/sendMessage`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(r.body),
        preview: r.preview,
      },
      ctx,
      {
        // The Bot API's documented error answer: {"ok":false,"error_code":400,"description":"Bad Request: chat not found"}.
        explain: (head) => jsonText(head, (j) => j.description),
        retryAfter: (head) =>
          jsonNumber(head, (j) => (j.parameters as { retry_after?: unknown } | undefined)?.retry_after),
      },
    ),
  preview: (r) => r.preview,
};
