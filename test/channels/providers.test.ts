// The eight provider channels end to end through the daemon: for each, a loopback server stands in
// for the provider, checks its documented request (path, auth, body), answers 429 with Retry-After
// once and then the provider's success. The retry must come no sooner than Retry-After, the log must
// show success, secrets must be masked on read and absent from the logs. PagerDuty and Opsgenie: a
// recovery resolves/closes the alert the down event opened, with the same key.
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../support/webhook-receiver.js';
import { startNotifyApp, until, type Member } from '../notifications/harness.js';

t.setTimeout(120_000);

interface Case {
  kind: string;
  /** The provider's success answer. */
  ok: { status: number; body?: string };
  config(base: string): Record<string, unknown>;
  /** Secret config values: masked on GET, never in logs or the delivery log. */
  secrets: string[];
  /** The documented request, checked on both attempts. */
  check(t: Test, r: Received, c: { eventId: string; base: string }): void;
  /** What the team-wide delivery log shows as recipient. */
  recipient: string | null | RegExp;
}

const TG_TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const NTFY_TOKEN = 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2';
const MX_TOKEN = 'syt_ZG9tbW9u_secretmatrixtoken_0aBcDe';
const PD_KEY = 'R0123456789ABCDEF0123456789ABCDE';
const OG_KEY = 'eb243592-faa2-4ba2-a551-1afdf565c889';
const DISCORD_PATH = '/api/webhooks/123456789012345678/discordSecretToken_Xy';
const GCHAT_PATH = '/v1/spaces/AAAAxyz/messages?key=gchatKey123&token=gchatSecretToken456';
const MM_PATH = '/hooks/mattermostsecrethookkey42';

const cases: Case[] = [
  {
    kind: 'discord',
    ok: { status: 204, body: '' },
    recipient: /^http:\/\/127\.0\.0\.1:\d+\/…$/,
    config: (b) => ({ webhook_url: `${b}${DISCORD_PATH}`, username: 'dommon' }),
    secrets: ['discordSecretToken_Xy'],
    check(t, r) {
      t.equal(r.method, 'POST');
      t.equal(r.path, DISCORD_PATH);
      t.equal(r.headers['content-type'], 'application/json');
      t.match(r.json, {
        content: /^\[HIGH\] Liveness: api \(shop\.example\): api \(https:\/\/api\.shop\.example\) is DOWN/,
        username: 'dommon',
        allowed_mentions: { parse: [] },
      });
      t.match(r.json.embeds[0], { title: '[HIGH] Liveness: api (shop.example)', color: 0xe8590c });
    },
  },
  {
    kind: 'telegram',
    ok: { status: 200, body: '{"ok":true,"result":{"message_id":1}}' },
    recipient: '-1001234567890',
    config: () => ({ bot_token: TG_TOKEN, chat_id: '-1001234567890' }),
    secrets: [TG_TOKEN],
    check(t, r) {
      t.equal(r.method, 'POST');
      t.equal(r.path, `/bot${TG_TOKEN}/sendMessage`, 'Bot API path with the token');
      t.equal(r.headers['content-type'], 'application/json');
      t.match(r.json, {
        chat_id: '-1001234567890',
        parse_mode: 'HTML',
        text: /^<b>\[HIGH\] Liveness: api \(shop\.example\)<\/b>\n/,
      });
    },
  },
  {
    kind: 'ntfy',
    ok: { status: 200, body: '{"id":"abc","event":"message"}' },
    recipient: '********xq42',
    config: () => ({ topic: 'dommon-alerts-7f3kxq42', token: NTFY_TOKEN }),
    secrets: [NTFY_TOKEN],
    check(t, r) {
      t.equal(r.method, 'POST');
      t.equal(r.path, '/dommon-alerts-7f3kxq42', 'POST to <base>/<topic> (DOMMON_NTFY_URL)');
      t.equal(r.headers.authorization, `Bearer ${NTFY_TOKEN}`);
      t.equal(r.headers.title, '[HIGH] Liveness: api (shop.example)');
      t.equal(r.headers.priority, '4');
      t.equal(r.headers.tags, 'warning,dommon,liveness');
      t.match(r.raw.toString('utf8'), /^api \(https:\/\/api\.shop\.example\) is DOWN/);
    },
  },
  {
    kind: 'googlechat',
    ok: { status: 200, body: '{"name":"spaces/AAAAxyz/messages/1"}' },
    recipient: /^http:\/\/127\.0\.0\.1:\d+\/…$/,
    config: (b) => ({ webhook_url: `${b}${GCHAT_PATH}` }),
    secrets: ['gchatSecretToken456'],
    check(t, r) {
      t.equal(r.method, 'POST');
      t.equal(r.path, GCHAT_PATH);
      t.same(Object.keys(r.json), ['text']);
      t.match(r.json.text, /^\*\[HIGH\] Liveness: api \(shop\.example\)\*\n/);
    },
  },
  {
    kind: 'mattermost',
    ok: { status: 200, body: 'ok' },
    recipient: /^http:\/\/127\.0\.0\.1:\d+\/…$/,
    config: (b) => ({ webhook_url: `${b}${MM_PATH}`, channel: 'ops-alerts', username: 'dommon' }),
    secrets: ['mattermostsecrethookkey42'],
    check(t, r) {
      t.equal(r.method, 'POST');
      t.equal(r.path, MM_PATH);
      t.match(r.json, {
        channel: 'ops-alerts',
        username: 'dommon',
        text: /^#### \\\[HIGH\\\] Liveness: api \(shop\.example\)\n/,
      });
    },
  },
  {
    kind: 'matrix',
    ok: { status: 200, body: '{"event_id":"$abc"}' },
    recipient: '!OGEhHVWSdvArJzumhm:example.org',
    config: (b) => ({ homeserver_url: b, room_id: '!OGEhHVWSdvArJzumhm:example.org', access_token: MX_TOKEN }),
    secrets: [MX_TOKEN],
    check(t, r, { eventId }) {
      t.equal(r.method, 'PUT');
      t.equal(
        r.path,
        `/_matrix/client/v3/rooms/%21OGEhHVWSdvArJzumhm%3Aexample.org/send/m.room.message/dommon-${eventId}`,
        'same txnId on the retry',
      );
      t.equal(r.headers.authorization, `Bearer ${MX_TOKEN}`);
      t.match(r.json, {
        msgtype: 'm.text',
        format: 'org.matrix.custom.html',
        body: /^\[HIGH\] Liveness/,
        formatted_body: /^<h4>\[HIGH\] Liveness/,
      });
    },
  },
  {
    kind: 'pagerduty',
    ok: { status: 202, body: '{"status":"success","message":"Event processed","dedup_key":"x"}' },
    recipient: null,
    config: () => ({ routing_key: PD_KEY }),
    secrets: [PD_KEY],
    check(t, r) {
      t.equal(r.method, 'POST');
      t.equal(r.path, '/v2/enqueue');
      t.match(r.json, {
        routing_key: PD_KEY,
        event_action: 'trigger',
        dedup_key: /^dommon\/liveness\//,
        payload: { severity: 'error', source: 'api (shop.example)', summary: /^\[HIGH\] Liveness/ },
      });
    },
  },
  {
    kind: 'opsgenie',
    ok: { status: 202, body: '{"result":"Request will be processed","took":0.1,"requestId":"r"}' },
    recipient: null,
    config: () => ({ api_key: OG_KEY }),
    secrets: [OG_KEY],
    check(t, r) {
      t.equal(r.method, 'POST');
      t.equal(r.path, '/v2/alerts');
      t.equal(r.headers.authorization, `GenieKey ${OG_KEY}`);
      t.match(r.json, {
        message: '[HIGH] Liveness: api (shop.example)',
        alias: /^dommon\/liveness\//,
        priority: 'P2',
        source: 'dommon',
      });
    },
  },
];

const logLines: string[] = [];
const log = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
const rx: Record<string, WebhookReceiver> = {};
for (const c of cases) {
  rx[c.kind] = await startWebhookReceiver((n) =>
    n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: '{"error":"slow down"}' } : c.ok,
  );
}
const base = (kind: string) => rx[kind]!.url.replace(/\/hook$/, '');
const s = await startNotifyApp({
  env: {
    DOMMON_TELEGRAM_URL: base('telegram'),
    DOMMON_NTFY_URL: base('ntfy'),
    DOMMON_PAGERDUTY_URL: base('pagerduty'),
    DOMMON_OPSGENIE_URL: base('opsgenie'),
  },
  log,
});
t.teardown(async () => {
  await s.close();
  await Promise.all(Object.values(rx).map((r) => r.close()));
});

const endpointId = randomUUID();
const liveness = (m: Member, category: 'endpoint_down' | 'endpoint_recovered') =>
  s.event({
    team_id: m.team_id,
    event_type: 'liveness',
    severity: category === 'endpoint_down' ? 'high' : 'info',
    category,
    endpoint_id: endpointId,
    message:
      category === 'endpoint_down'
        ? 'api (https://api.shop.example) is DOWN after 3 failed check(s): HTTP 503'
        : 'api (https://api.shop.example) has RECOVERED (42 ms)',
    details: { endpoint_name: 'api', domain: 'shop.example', transition: category === 'endpoint_down' ? 'down' : 'up' },
  });
const settled = (m: Member, eventId: string) =>
  until(
    async () => {
      const d = await s.app.store.db
        .selectFrom('deliveries')
        .select('id')
        .where('event_id', '=', eventId)
        .executeTakeFirst();
      if (!d) return null;
      const r = await m.api.get(`/api/v1/notifications/log/${d.id}`);
      return r.status === 200 && r.body.status !== 'partial' ? r.body : null;
    },
    10_000,
    'final log status',
  );

const members: Record<string, Member> = {};

t.test('each provider: documented request, 429 + Retry-After honoured, success in the log', async (t) => {
  await Promise.all(
    cases.map(async (c) => {
      const m = (members[c.kind] = await s.team(`prov-${c.kind}`));
      const put = await m.api.put(`/api/v1/notifications/settings/${c.kind}`, {
        delivery_class: 'instant',
        config: c.config(base(c.kind)),
      });
      t.equal(put.status, 200, `${c.kind}: settings row ${put.text}`);
    }),
  );
  const events: Record<string, string> = {};
  for (const c of cases) events[c.kind] = await liveness(members[c.kind]!, 'endpoint_down');
  await Promise.all(
    cases.map((c) =>
      t.test(c.kind, async (t) => {
        const reqs = await rx[c.kind]!.waitFor(2, 10_000);
        const final = await settled(members[c.kind]!, events[c.kind]!);
        for (const r of reqs.slice(0, 2)) c.check(t, r, { eventId: events[c.kind]!, base: base(c.kind) });
        t.same(reqs[1]!.raw, reqs[0]!.raw, 'the retry sends the same bytes');
        const gap = reqs[1]!.at - reqs[0]!.at;
        t.ok(gap >= 1000, `second attempt ${Math.round(gap)} ms after the first: no sooner than Retry-After: 1`);
        t.equal(final.status, 'success');
        t.equal(final.attempts, 2);
        t.same(final.channels, [c.kind]);
        t.match(final.attempts_detail, [
          { outcome: 'transient', status_code: 429 },
          { outcome: 'success', status_code: c.ok.status },
        ]);
        if (c.recipient instanceof RegExp) t.match(final.recipient, c.recipient, 'recipient as the team sees it');
        else t.equal(final.recipient, c.recipient, 'recipient as the team sees it');
      }),
    ),
  );
});

t.test('pagerduty and opsgenie: the recovery resolves / closes the alert with the same key', async (t) => {
  const pd = members.pagerduty!;
  const og = members.opsgenie!;
  const trigger = rx.pagerduty!.requests[1]!.json;
  const created = rx.opsgenie!.requests[1]!.json;
  t.equal(trigger.dedup_key, `dommon/liveness/${endpointId}`, 'dedup_key derived from the endpoint');
  t.equal(created.alias, `dommon/liveness/${endpointId}`, 'alias derived from the endpoint');
  const [pdUp, ogUp] = [await liveness(pd, 'endpoint_recovered'), await liveness(og, 'endpoint_recovered')];
  const [resolve] = (await rx.pagerduty!.waitFor(3, 10_000)).slice(2);
  const [close] = (await rx.opsgenie!.waitFor(3, 10_000)).slice(2);
  t.equal(resolve!.path, '/v2/enqueue');
  t.same(
    resolve!.json,
    { routing_key: PD_KEY, event_action: 'resolve', dedup_key: trigger.dedup_key },
    'resolve with the trigger’s dedup_key',
  );
  t.equal(close!.method, 'POST');
  t.equal(
    close!.path,
    `/v2/alerts/${encodeURIComponent(created.alias)}/close?identifierType=alias`,
    'close by the create’s alias',
  );
  t.equal(close!.headers.authorization, `GenieKey ${OG_KEY}`);
  t.match(close!.json, { source: 'dommon', note: /RECOVERED/ });
  t.equal((await settled(pd, pdUp)).status, 'success');
  t.equal((await settled(og, ogUp)).status, 'success');
});

t.test('secrets: masked on read, absent from the delivery log and the daemon log', async (t) => {
  for (const c of cases) {
    const m = members[c.kind]!;
    const list = await m.api.get('/api/v1/notifications/settings');
    t.equal(list.status, 200);
    const cfg = list.body.find((r: { notification_type: string }) => r.notification_type === c.kind).config;
    const pluginSecrets = Object.entries(c.config(base(c.kind))).filter(([, v]) => c.secrets.includes(String(v)));
    for (const [k, v] of pluginSecrets) t.equal(cfg[k], `********${String(v).slice(-4)}`, `${c.kind}: ${k} masked`);
    const logs = await m.api.get(`/api/v1/notifications/log?channel=${c.kind}`);
    t.ok(logs.body.length >= 1, `${c.kind}: delivery log`);
    const detail = await m.api.get(`/api/v1/notifications/log/${logs.body[0].id}`);
    for (const secret of c.secrets) {
      if (pluginSecrets.length) t.notOk(list.text.includes(secret), `${c.kind}: secret not in GET settings`);
      t.notOk(logs.text.includes(secret) || detail.text.includes(secret), `${c.kind}: secret not in the delivery log`);
    }
    // Sending the masked value back keeps the stored secret.
    if (pluginSecrets.length) {
      const again = await m.api.put(`/api/v1/notifications/settings/${c.kind}`, {
        delivery_class: 'instant',
        config: cfg,
      });
      t.equal(again.status, 200, `${c.kind}: masked round trip`);
      const row = await s.app.store.notifications.setting(m.user_id, c.kind, 'instant');
      for (const [k, v] of pluginSecrets) t.equal(row!.config[k], v, `${c.kind}: stored ${k} kept`);
    }
  }
  const all = logLines.join('');
  t.ok(logLines.length > 0, `the daemon logged ${logLines.length} lines at debug`);
  for (const c of cases)
    for (const secret of c.secrets) t.notOk(all.includes(secret), `${c.kind}: secret not in the daemon log`);
});

t.test('test sends: the recipient picks the destination, the caller’s own row lends its credentials', async (t) => {
  const sent = async (m: Member, channel: string, recipient: string) => {
    const r = await m.api.post('/api/v1/notifications/test', { channel, recipient });
    t.equal(r.status, 201, `${channel} test queued ${r.text}`);
    return until(
      async () => {
        const e = await m.api.get(`/api/v1/notifications/log/${r.body.id}`);
        return e.status === 200 && e.body.status !== 'partial' ? e.body : null;
      },
      10_000,
      `${channel} test settled`,
    );
  };
  const tg = rx.telegram!.requests.length;
  const tgLog = await sent(members.telegram!, 'telegram', '@dommon_alerts');
  t.equal(tgLog.status, 'success');
  const tgReq = (await rx.telegram!.waitFor(tg + 1))[tg]!;
  t.equal(tgReq.path, `/bot${TG_TOKEN}/sendMessage`, 'the stored bot token');
  t.match(tgReq.json, { chat_id: '@dommon_alerts', text: /Test notification/ });

  const nt = rx.ntfy!.requests.length;
  t.equal((await sent(members.ntfy!, 'ntfy', 'another-topic')).status, 'success');
  const ntReq = (await rx.ntfy!.waitFor(nt + 1))[nt]!;
  t.equal(ntReq.path, '/another-topic');
  t.equal(ntReq.headers.authorization, `Bearer ${NTFY_TOKEN}`, 'the stored token, on the stored server');

  const other = 'K'.repeat(28) + 'wxyz';
  const pd = rx.pagerduty!.requests.length;
  const pdLog = await sent(members.pagerduty!, 'pagerduty', other);
  t.equal(pdLog.recipient, '********wxyz', 'the key is masked in the team-wide log');
  t.notOk(JSON.stringify(pdLog).includes(other));
  t.match((await rx.pagerduty!.waitFor(pd + 1))[pd]!.json, {
    routing_key: other,
    event_action: 'trigger',
    payload: { severity: 'info' },
  });

  const stranger = await s.team('prov-stranger');
  const none = await sent(stranger, 'matrix', '!room:example.org');
  t.match(none, {
    status: 'failed',
    error_message: 'matrix test: no access_token configured (PUT /api/v1/notifications/settings/matrix first)',
  });
  const bad = await stranger.api.post('/api/v1/notifications/test', { channel: 'telegram', recipient: 'not a chat' });
  t.equal(bad.status, 400);
  t.match(bad.body.error, /recipient: must be a Telegram chat id/);
});
