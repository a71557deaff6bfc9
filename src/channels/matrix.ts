// Matrix client-server API: PUT {homeserver}/_matrix/client/v3/rooms/{roomId}/send/m.room.message/{txnId}
// with `Authorization: Bearer <access_token>`: an m.text message with an HTML formatted_body. The
// transaction id comes from the event (or digest) id, so a retried attempt is the same message to
// the homeserver, which drops the duplicate.
import { escapeHtml } from '../domain/html.js';
import type { Outgoing } from '../domain/notification.js';
import { digestLine, digestTitle, eventFacts, headline, plainText, portfolioName, truncate } from './format.js';
import { jsonNumber, postJson } from './http.js';
import { httpUrl, secret, withOwn } from './shared.js';
import type { ChannelPlugin, HttpRequest } from './types.js';

const ROOM_ID = '^![^:\\s]+:[^\\s]+$';
const BODY_MAX = 16_000; // far below the 64 KiB event limit

interface MatrixMessage {
  msgtype: 'm.text';
  body: string;
  format: 'org.matrix.custom.html';
  formatted_body: string;
}

function matrixMessage(m: Outgoing): MatrixMessage {
  const { title, body } = plainText(m);
  let html: string;
  if (m.kind === 'digest') {
    html =
      `<h4>${escapeHtml(digestTitle(m))}</h4><p><em>${escapeHtml(m.from)} to ${escapeHtml(m.to)}</em></p>` +
      m.groups
        .map(
          (g) =>
            `<p><strong>${escapeHtml(portfolioName(g.portfolio))}</strong></p><ul>${g.items.map((it) => `<li>${escapeHtml(digestLine(it))}</li>`).join('')}</ul>`,
        )
        .join('');
  } else {
    html = `<h4>${escapeHtml(headline(m))}</h4><p>${escapeHtml(m.message)}</p><ul>${eventFacts(m, { time: true })
      .map(([k, v]) => `<li><strong>${escapeHtml(k)}:</strong> ${escapeHtml(v)}</li>`)
      .join('')}</ul>`;
  }
  return {
    msgtype: 'm.text',
    body: truncate(`${title}\n\n${body}`, BODY_MAX),
    format: 'org.matrix.custom.html',
    formatted_body: truncate(html, BODY_MAX * 2),
  };
}

/** encodeURIComponent plus `!'()*` (room ids start with `!`: `%21abc%3Aexample.org`, as the spec writes them). */
const pathPart = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function matrixTxnId(m: Outgoing): string {
  return `dommon-${m.kind === 'digest' ? m.digest_id : m.event_id}`;
}

export const matrix: ChannelPlugin<HttpRequest> = {
  title: 'Matrix',
  api: 'PUT `{homeserver_url}/_matrix/client/v3/rooms/<room_id>/send/m.room.message/<txnId>` with `Authorization: Bearer <access_token>`',
  configSchema: {
    title: 'matrix channel config (client-server API)',
    type: 'object',
    additionalProperties: false,
    required: ['homeserver_url', 'room_id', 'access_token'],
    properties: {
      homeserver_url: httpUrl("The homeserver's client-server API base, e.g. https://matrix.example.org."),
      room_id: {
        type: 'string',
        pattern: ROOM_ID,
        maxLength: 255,
        description: 'The room id (`!abc123:example.org`, Room settings > Advanced); the bot user must have joined it.',
      },
      access_token: secret('[A-Za-z0-9._~+/=-]{8,500}', 'Access token of the (bot) user that posts.'),
    },
  },
  example: {
    homeserver_url: 'https://matrix.example.org',
    room_id: '!OGEhHVWSdvArJzumhm:example.org',
    access_token: 'syt_ZG9tbW9u_xxxxxxxxxxxxxxxxxxxx_0aBcDe',
  },
  notes:
    "The transaction id is `dommon-<event id>`, so a retried attempt is deduplicated by the homeserver. A test send's recipient is a room id; the homeserver and access token come from your own matrix row.",
  secrets: ['access_token'],
  destinations: ['homeserver_url'],
  recipient: (config) => (typeof config.room_id === 'string' ? config.room_id : null),
  test: {
    what: 'a Matrix room id (!abc123:example.org)',
    valid: (s) => new RegExp(ROOM_ID).test(s) && s.length <= 255,
    config: withOwn('room_id', 'access_token', 'matrix'),
  },
  render(m, { config }) {
    const body = matrixMessage(m);
    const base = String(config.homeserver_url ?? '').replace(/\/+$/, '');
    const url = `${base}/_matrix/client/v3/rooms/${pathPart(String(config.room_id ?? ''))}/send/m.room.message/${pathPart(matrixTxnId(m))}`;
    const headers = {
      'content-type': 'application/json',
      authorization: `Bearer ${String(config.access_token ?? '')}`,
    };
    return {
      method: 'PUT',
      url,
      headers,
      body: JSON.stringify(body),
      preview: truncate(body.body.split('\n')[0]!, 200),
    };
  },
  // M_LIMIT_EXCEEDED answers carry `retry_after_ms` (older homeservers send no Retry-After header).
  send: (r, ctx) =>
    postJson(r, ctx, {
      retryAfter: (head) => {
        const ms = jsonNumber(head, (j) => j.retry_after_ms);
        return ms === null ? null : Math.ceil(ms / 1000);
      },
    }),
  preview: (r) => r.preview,
};
