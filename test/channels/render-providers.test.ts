// render() of the eight provider channels, table-tested on an event, a recovery and a digest: the
// provider's documented request shape, limits, escaping and the incident keys.
import t from 'tap';
import { channels } from '../../src/channels/index.js';
import { headerText } from '../../src/channels/ntfy.js';
import { incidentKey, type Outgoing, type OutgoingEvent } from '../../src/domain/notification.js';
import { digest, event } from './fixtures.js';

const ev = event as Extract<Outgoing, { kind: 'event' }>;
const down: Outgoing = {
  ...ev,
  event_type: 'liveness',
  category: 'endpoint_down',
  severity: 'high',
  message: 'api (https://api.example.com) is DOWN after 3 failed check(s): HTTP 503',
};
const up: Outgoing = {
  ...ev,
  event_id: '66666666-6666-4666-8666-666666666666',
  event_type: 'liveness',
  category: 'endpoint_recovered',
  severity: 'info',
  message: 'api (https://api.example.com) has RECOVERED (42 ms)',
};
const body = (r: { body: string }) => JSON.parse(r.body);

t.test(
  'discord: content, one embed per event coloured by severity, no mentions; digest embeds per portfolio',
  async (t) => {
    const r = channels.discord.render(event, {
      config: { webhook_url: 'https://discord.com/api/webhooks/1/tok', username: 'dommon' },
    });
    t.equal(r.url, 'https://discord.com/api/webhooks/1/tok');
    const b = body(r);
    t.equal(b.content, `[HIGH] Exposure finding: api (example.com): ${ev.message}`);
    t.equal(b.username, 'dommon');
    t.same(b.allowed_mentions, { parse: [] });
    t.equal(b.embeds.length, 1);
    t.equal(b.embeds[0].title, '[HIGH] Exposure finding: api (example.com)');
    t.equal(b.embeds[0].color, 0xe8590c);
    t.equal(b.embeds[0].timestamp, '2026-03-02T10:00:00.000Z');
    t.same(
      b.embeds[0].fields.find((f: { name: string }) => f.name === 'Domain'),
      { name: 'Domain', value: 'example.com', inline: true },
    );
    const long = body(
      channels.discord.render({ ...ev, message: 'x'.repeat(5000) }, { config: { webhook_url: 'https://d/x' } }),
    );
    t.equal(long.content.length, 2000, 'content limit 2000');
    t.equal(long.embeds[0].description.length, 4096, 'description limit 4096');
    const d = body(channels.discord.render(digest, { config: { webhook_url: 'https://d/x' } }));
    t.match(d.content, /^dommon digest for acme: 2 items \(2026-03-01T09:00:00.000Z to 2026-03-02T09:00:00.000Z\)$/);
    t.same(
      d.embeds.map((e: { title: string }) => e.title),
      ['Production', 'No portfolio'],
    );
    t.match(d.embeds[1].description, '• [MEDIUM] SSL certificate expiry: other.test - certificate expires in 14 days');
  },
);

t.test('telegram: chat_id, HTML text escaped, token only in the URL part', async (t) => {
  const cfg = { bot_token: '123456:ABCdefGHIjklMNOpqrSTUvwxYZ', chat_id: '-1001234567890' };
  const r = channels.telegram.render(event, { config: cfg });
  t.equal(r.token, cfg.bot_token);
  t.same(Object.keys(r.body).sort(), ['chat_id', 'link_preview_options', 'parse_mode', 'text']);
  t.equal(r.body.chat_id, '-1001234567890');
  t.equal(r.body.parse_mode, 'HTML');
  t.match(r.body.text, /^<b>\[HIGH\] Exposure finding: api \(example\.com\)<\/b>\n/);
  t.match(r.body.text, 'Dangling CNAME "old.example.com" &lt;points&gt; to an unclaimed app &amp; can be taken over');
  t.match(r.body.text, '<b>Severity:</b> high');
  t.notMatch(JSON.stringify(r.body), cfg.bot_token, 'the token is not in the body');
  const long = channels.telegram.render({ ...ev, message: 'line\n'.repeat(2000) }, { config: cfg });
  t.ok(long.body.text.length <= 4096, 'Telegram text limit');
  t.ok(long.body.text.endsWith('\n…'), 'cut at a line end');
  const d = channels.telegram.render(digest, { config: cfg });
  t.match(d.body.text, /<b>Production<\/b>\n• \[HIGH\] Exposure finding/);
  t.match(d.body.text, '<b>No portfolio</b>');
});

t.test('ntfy: Title, Priority, Tags headers from severity; bearer token; plain body; digest', async (t) => {
  const table: [string, string, string][] = [
    ['critical', '5', 'rotating_light'],
    ['high', '4', 'warning'],
    ['medium', '3', 'warning'],
    ['low', '2', 'information_source'],
    ['info', '2', 'information_source'],
  ];
  for (const [severity, priority, tag] of table) {
    const r = channels.ntfy.render({ ...ev, severity }, { config: { topic: 'alerts' } });
    t.equal(r.headers.priority, priority, `${severity} priority`);
    t.equal(r.headers.tags, `${tag},dommon,exposure`, `${severity} tags`);
    t.notOk(r.headers.authorization, 'no token, no Authorization');
  }
  const r = channels.ntfy.render(event, {
    config: { topic: 'alerts', token: 'tk_secret', server_url: 'https://ntfy.example.com' },
  });
  t.equal(r.server, 'https://ntfy.example.com');
  t.equal(r.topic, 'alerts');
  t.equal(r.headers.title, '[HIGH] Exposure finding: api (example.com)');
  t.equal(r.headers.authorization, 'Bearer tk_secret');
  t.match(
    r.body,
    /^Dangling CNAME "old\.example\.com" <points> to an unclaimed app & can be taken over\n\nEvent: Exposure finding/,
  );
  t.equal(
    channels.ntfy.render(up, { config: { topic: 'a' } }).headers.tags,
    'white_check_mark,dommon,liveness',
    'recovery tag',
  );
  t.equal(
    headerText('Zertifikat läuft ab'),
    `=?UTF-8?B?${Buffer.from('Zertifikat läuft ab').toString('base64')}?=`,
    'non-ASCII title as RFC 2047',
  );
  t.equal(headerText('a\r\nb'), 'a b', 'no header injection');
  const d = channels.ntfy.render(digest, { config: { topic: 'a' } });
  t.equal(d.headers.title, 'dommon digest for acme: 2 items');
  t.equal(d.headers.priority, '3');
  t.match(d.body, 'Production:\n- [HIGH] Exposure finding');
});

t.test('googlechat: only {text}, bold headline', async (t) => {
  const r = channels.googlechat.render(event, {
    config: { webhook_url: 'https://chat.googleapis.com/v1/spaces/A/messages?key=k&token=t' },
  });
  t.equal(r.url, 'https://chat.googleapis.com/v1/spaces/A/messages?key=k&token=t');
  const b = body(r);
  t.same(Object.keys(b), ['text']);
  t.match(b.text, /^\*\[HIGH\] Exposure finding: api \(example\.com\)\*\nDangling CNAME/);
  t.equal(
    body(channels.googlechat.render({ ...ev, message: 'y'.repeat(9000) }, { config: { webhook_url: 'https://g' } }))
      .text.length,
    4096,
  );
  t.match(
    body(channels.googlechat.render(digest, { config: { webhook_url: 'https://g' } })).text,
    '*No portfolio*\n• [MEDIUM] SSL certificate expiry',
  );
});

t.test('mattermost: Markdown text (values escaped), optional channel and username', async (t) => {
  const bare = body(channels.mattermost.render(event, { config: { webhook_url: 'https://mm/hooks/x' } }));
  t.same(Object.keys(bare), ['text']);
  const b = body(
    channels.mattermost.render(
      { ...ev, message: 'a *bold* claim_here' },
      { config: { webhook_url: 'https://mm/hooks/x', channel: 'ops', username: 'dommon' } },
    ),
  );
  t.equal(b.channel, 'ops');
  t.equal(b.username, 'dommon');
  t.match(b.text, /^#### \\\[HIGH\\\] Exposure finding: api \(example\.com\)\na \\\*bold\\\* claim\\_here\n/);
  t.match(b.text, '| Severity | high |');
  const d = body(channels.mattermost.render(digest, { config: { webhook_url: 'https://mm/hooks/x' } }));
  t.match(d.text, '**Production**');
});

t.test('matrix: PUT to rooms/{roomId}/send/m.room.message/{txnId}, Bearer token, m.text with HTML', async (t) => {
  const cfg = {
    homeserver_url: 'https://matrix.example.org/',
    room_id: '!abc:example.org',
    access_token: 'syt_token_1234',
  };
  const r = channels.matrix.render(event, { config: cfg });
  t.equal(r.method, 'PUT');
  t.equal(
    r.url,
    `https://matrix.example.org/_matrix/client/v3/rooms/%21abc%3Aexample.org/send/m.room.message/dommon-${ev.event_id}`,
  );
  t.equal(r.headers.authorization, 'Bearer syt_token_1234');
  const b = body(r);
  t.equal(b.msgtype, 'm.text');
  t.equal(b.format, 'org.matrix.custom.html');
  t.match(b.body, /^\[HIGH\] Exposure finding: api \(example\.com\)\n\nDangling/);
  t.match(
    b.formatted_body,
    '<h4>[HIGH] Exposure finding: api (example.com)</h4><p>Dangling CNAME &quot;old.example.com&quot; &lt;points&gt;',
  );
  t.equal(
    channels.matrix.render(event, { config: cfg }).url,
    r.url,
    'same txnId on every render: retries are deduplicated',
  );
  const d = channels.matrix.render(digest, { config: cfg });
  t.match(d.url, /\/send\/m\.room\.message\/dommon-44444444-4444-4444-8444-444444444444$/);
  t.match(body(d).formatted_body, '<p><strong>Production</strong></p><ul><li>[HIGH] Exposure finding');
});

t.test('pagerduty: trigger with severity mapping; recovery resolves the same dedup_key; digest', async (t) => {
  const cfg = { routing_key: 'R'.repeat(32) };
  const table: [string, string][] = [
    ['critical', 'critical'],
    ['high', 'error'],
    ['medium', 'warning'],
    ['low', 'info'],
    ['info', 'info'],
  ];
  for (const [severity, want] of table)
    t.equal(
      (
        channels.pagerduty.render({ ...down, severity } as Outgoing, { config: cfg }).body as {
          payload?: { severity: string };
        }
      ).payload?.severity,
      want,
      severity,
    );
  const trig = channels.pagerduty.render(down, { config: cfg }).body;
  t.match(trig, {
    routing_key: 'R'.repeat(32),
    event_action: 'trigger',
    dedup_key: `dommon/liveness/${ev.endpoint_id}`,
    client: 'dommon',
  });
  t.match((trig as { payload: unknown }).payload, {
    summary: /^\[HIGH\] Liveness: api \(example\.com\): api \(https/,
    source: 'api (example.com)',
    group: 'acme',
    class: 'endpoint_down',
    timestamp: ev.timestamp,
  });
  const res = channels.pagerduty.render(up, { config: cfg }).body;
  t.same(
    res,
    { routing_key: 'R'.repeat(32), event_action: 'resolve', dedup_key: trig.dedup_key },
    'resolve: same dedup_key, no payload',
  );
  const other = channels.pagerduty.render(
    { ...down, endpoint_id: '77777777-7777-4777-8777-777777777777' } as Outgoing,
    { config: cfg },
  ).body;
  t.not(other.dedup_key, trig.dedup_key, 'another endpoint, another incident');
  const d = channels.pagerduty.render(digest, { config: cfg }).body;
  t.match(d, {
    event_action: 'trigger',
    dedup_key: 'dommon/digest/44444444-4444-4444-8444-444444444444',
    payload: { severity: 'info', summary: 'dommon digest for acme: 2 items' },
  });
});

t.test('opsgenie: create with alias and priority; recovery closes by alias; digest', async (t) => {
  const cfg = { api_key: 'eb243592-faa2-4ba2-a551-1afdf565c889', tags: ['prod'] };
  const table: [string, string][] = [
    ['critical', 'P1'],
    ['high', 'P2'],
    ['medium', 'P3'],
    ['low', 'P4'],
    ['info', 'P5'],
  ];
  for (const [severity, want] of table)
    t.equal(channels.opsgenie.render({ ...down, severity } as Outgoing, { config: cfg }).body.priority, want, severity);
  const c = channels.opsgenie.render(down, { config: cfg });
  t.equal(c.action, 'create');
  t.equal(c.apiKey, cfg.api_key);
  t.equal(c.alias, incidentKey(down as OutgoingEvent));
  t.match(c.body, {
    message: '[HIGH] Liveness: api (example.com)',
    alias: c.alias,
    priority: 'P2',
    entity: 'api (example.com)',
    source: 'dommon',
    tags: ['dommon', 'prod', 'liveness'],
  });
  t.ok(
    Object.values(c.body.details as object).every((v) => typeof v === 'string'),
    'details are strings',
  );
  t.ok(String(c.body.message).length <= 130);
  const close = channels.opsgenie.render(up, { config: cfg });
  t.equal(close.action, 'close');
  t.equal(close.alias, c.alias, 'the same alias');
  t.match(close.body, { source: 'dommon', note: /RECOVERED/ });
  const d = channels.opsgenie.render(digest, { config: cfg });
  t.match(d.body, {
    priority: 'P5',
    alias: 'dommon/digest/44444444-4444-4444-8444-444444444444',
    message: 'dommon digest for acme: 2 items',
  });
});
