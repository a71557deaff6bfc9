// The outbox worker end to end: events -> fan-out -> webhook/e-mail deliveries with retries, the
// attempt log and test sends. Waits and the attempt timeout are shortened through AppOptions.notify.
import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startWebhookReceiver, verifySignature, type Received } from '../support/webhook-receiver.js';
import { startSmtp } from '../support/smtp.js';
import { RETRY_WAITS_MS } from '../../src/services/delivery.js';
import { FAST, startNotifyApp, until, type Member } from './harness.js';
import { onPostgres } from '../support/pg.js';

// Generous for a shared 2-core machine; alone the file takes about 10 s.
t.setTimeout(120_000);

const smtp = await startSmtp();
const push = await startWebhookReceiver(); // stands in for the Pushover API (DOMMON_PUSHOVER_URL)
const s = await startNotifyApp({
  env: {
    DOMMON_SMTP_URL: smtp.url,
    DOMMON_SMTP_FROM: 'alerts@dommon.test',
    DOMMON_PUSHOVER_URL: push.url.replace(/\/hook$/, ''),
  },
  smtp: { ca: smtp.ca },
});
// Two more workers in their own processes on the same file, loading while the other tests run;
// they start polling only when the last test says `go`.
// On PostgreSQL (test/pg/) the same property is proven by real daemons instead (test/pg/outbox.test.ts:
// three nodes, 20,000 deliveries, each sent once; a retry taken over after kill -9): these children open
// a database file, so the test is skipped there and no children start.
const MULTI_PROCESS_SKIP = onPostgres()
  ? 'on PostgreSQL, test/pg/outbox.test.ts proves this with three daemons (these worker children open a file)'
  : false;
const children = (MULTI_PROCESS_SKIP ? [] : [0, 1]).map(() =>
  spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./worker-child.ts', import.meta.url)), s.app.store.file],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  ),
);
const out = ['', ''];
const outputs = children.map(
  (c, i) =>
    new Promise<string>((resolve) => {
      c.stdout!.on('data', (d: Buffer) => (out[i] += d.toString()));
      c.on('close', () => resolve(out[i]!));
    }),
);
t.teardown(async () => {
  children.forEach((c) => c.exitCode === null && c.kill());
  await s.close();
  await smtp.close();
  await push.close();
});

async function webhookRow(
  m: Member,
  url: string,
  extra: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
) {
  const r = await m.api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: url, ...config },
    ...extra,
  });
  if (r.status !== 200) throw new Error(`settings: ${r.status} ${r.text}`);
  return r.body;
}

/** Waits between attempts as the daemon recorded them: next start (at - duration) minus previous end (at). */
const daemonWaits = (attempts: { at: string; duration_ms: number }[]) =>
  attempts.slice(1).map((a, i) => Date.parse(a.at) - a.duration_ms - Date.parse(attempts[i]!.at));
const gaps = (reqs: Received[]) => reqs.slice(1).map((r, i) => r.at - reqs[i]!.at);
const deliveryOf = async (eventId: string) =>
  until(
    () => s.app.store.db.selectFrom('deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirst(),
    5000,
    'delivery row',
  );
const settled = (m: Member, id: string) =>
  until(
    async () => {
      const r = await m.api.get(`/api/v1/notifications/log/${id}`);
      return r.status === 200 && r.body.status !== 'partial' ? r.body : null;
    },
    8000,
    'final log status',
  );

t.test('fan-out: every enabled instant row of the team, filters applied, once per row', async (t) => {
  const rx = await startWebhookReceiver();
  t.teardown(() => rx.close());
  const alice = await s.team('fan', 'alice@fan.test');
  const bob = await s.team('fan', 'bob@fan.test');
  const carol = await s.team('fan', 'carol@fan.test');
  const other = await s.team('other-team', 'eve@other.test');
  await webhookRow(alice, `${rx.url}?u=alice`, {}, { secret_key: 'alice-secret' });
  await webhookRow(bob, `${rx.url}?u=bob`, { min_severity: 'critical' });
  await webhookRow(carol, `${rx.url}?u=carol`, { is_enabled: false });
  await webhookRow(other, `${rx.url}?u=eve`);
  await alice.api.put('/api/v1/notifications/settings/slack', {
    delivery_class: 'digest',
    config: { webhook_url: `${rx.url}?u=digest` },
  });
  const dom = await alice.api.post('/api/v1/domains', { domain: 'fan.example' });
  t.equal(dom.status, 201);

  const down = await s.event({
    team_id: alice.team_id,
    event_type: 'liveness',
    severity: 'high',
    category: 'down',
    domain_id: dom.body.id,
    message: 'api is down',
    details: { status_code: 503 },
  });
  const expo = await s.event({
    team_id: alice.team_id,
    event_type: 'exposure',
    severity: 'high',
    category: 'subdomain_takeover',
    domain_id: dom.body.id,
    message: 'takeover risk',
  });
  await rx.waitFor(3);
  await new Promise((r) => setTimeout(r, 300)); // nothing more may arrive
  // Only this test's events: the daemon's own workers (domain intelligence) may add events of theirs.
  const mine = (r: Received) => [down, expo].includes(r.json.event_id);
  const byUser = (u: string) => rx.requests.filter((r) => r.path.endsWith(`u=${u}`) && mine(r));
  t.same(
    byUser('alice')
      .map((r) => r.json.event_id)
      .sort(),
    [down, expo].sort(),
    'alice: both events',
  );
  t.same(
    byUser('bob').map((r) => r.json.event_id),
    [down],
    'bob: exposure below min_severity critical is filtered',
  );
  t.equal(byUser('carol').length, 0, 'disabled row');
  t.equal(byUser('eve').length, 0, 'another team');
  t.equal(byUser('digest').length, 0, 'digest rows do not get instant events');
  t.equal(rx.requests.filter(mine).length, 3);

  const a = byUser('alice').find((r) => r.json.event_id === down)!;
  t.match(a.json, {
    event_type: 'liveness',
    severity: 'high',
    category: 'down',
    team: 'fan',
    user: 'alice@fan.test',
    domain_id: dom.body.id,
    domain: 'fan.example',
    endpoint_id: null,
    message: 'api is down',
    details: { status_code: 503 },
  });
  t.ok(verifySignature(a.raw, a.headers['x-signature'], 'alice-secret'), 'signed with alice’s secret');
  t.equal(byUser('bob')[0]!.json.user, 'bob@fan.test');
  t.notOk(byUser('bob')[0]!.headers['x-signature'], 'bob has no secret');

  // Same event, same row: a second fan-out of the same events creates nothing new.
  await s.app.store.db.updateTable('events').set({ fanned_out_at: null }).where('id', 'in', [down, expo]).execute();
  await until(
    async () =>
      (await s.app.store.db.selectFrom('events').select('fanned_out_at').where('id', '=', down).executeTakeFirst())
        ?.fanned_out_at,
    3000,
    'second fan-out',
  );
  await new Promise((r) => setTimeout(r, 200));
  const rows = await s.app.store.db
    .selectFrom('deliveries')
    .select('id')
    .where('event_id', 'in', [down, expo])
    .execute();
  t.equal(rows.length, 3, 'still three deliveries');
  t.equal(rx.requests.filter(mine).length, 3, 'still three requests');
});

t.test('500 three times then 200: four attempts, waits 1-2-4 (shortened), partial then success', async (t) => {
  const m = await s.team('retry');
  let seenWhileRetrying: unknown;
  const rx = await startWebhookReceiver(async (n) => {
    if (n === 2) {
      const d = await deliveryOf(eventId);
      seenWhileRetrying = (await m.api.get(`/api/v1/notifications/log/${d.id}`)).body;
    }
    return n <= 3 ? { status: 500, body: 'boom' } : { status: 200 };
  });
  t.teardown(() => rx.close());
  await webhookRow(m, rx.url);
  const eventId = await s.event({
    team_id: m.team_id,
    event_type: 'ssl_expiry',
    severity: 'medium',
    message: 'cert expires in 7 days',
  });
  const reqs = await rx.waitFor(4, 5000);
  const d = await deliveryOf(eventId);
  const final = await settled(m, d.id);
  t.match(
    seenWhileRetrying,
    { id: d.id, status: 'partial', channels: ['webhook'], error_message: 'HTTP 500: server error at the receiver' },
    'partial while retries remain',
  );
  t.equal(final.status, 'success');
  t.equal(final.error_message, null);
  t.equal(final.attempts, 4);
  t.same(
    final.attempts_detail.map((x: { outcome: string; status_code: number }) => [x.outcome, x.status_code]),
    [
      ['transient', 500],
      ['transient', 500],
      ['transient', 500],
      ['success', 200],
    ],
  );
  const g = gaps(reqs);
  // As the daemon recorded them (end of one attempt to start of the next): at least the injected
  // wait and less than the spec's (so the injected one was used); the receiver sees at least the wait
  // too (arrival to arrival adds request latency, which on a busy machine has no useful upper bound).
  const waits = daemonWaits(final.attempts_detail);
  FAST.retryWaitsMs.forEach((w, i) => {
    // attempt times are stored to the ms and durations rounded: allow 30 ms of measurement error below.
    t.ok(
      waits[i]! >= w - 30 && waits[i]! < RETRY_WAITS_MS[i]!,
      `wait ${i + 1} (daemon): ${Math.round(waits[i]!)} ms ~ ${w} ms`,
    );
    t.ok(g[i]! >= w - 150, `wait ${i + 1} (receiver): ${Math.round(g[i]!)} ms >= ${w} ms`);
  });
  t.ok(
    reqs.every((r) => r.json.event_id === eventId),
    'same event every time',
  );
  await new Promise((r) => setTimeout(r, 200));
  t.equal(rx.requests.length, 4, 'no fifth attempt');
});

t.test('500 forever: 1 try + 3 retries, then failed with the last error', async (t) => {
  const m = await s.team('always500');
  const rx = await startWebhookReceiver(() => ({ status: 503, body: 'unavailable' }));
  t.teardown(() => rx.close());
  await webhookRow(m, rx.url);
  const eventId = await s.event({
    team_id: m.team_id,
    event_type: 'whois',
    severity: 'medium',
    message: 'expires soon',
  });
  const d = await deliveryOf(eventId);
  const final = await settled(m, d.id);
  t.equal(final.status, 'failed');
  t.equal(final.attempts, 4);
  t.equal(final.error_message, 'HTTP 503: server error at the receiver');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.requests.length, 4);
});

t.test('404 is permanent: one attempt, failed', async (t) => {
  const m = await s.team('notfound');
  const rx = await startWebhookReceiver(() => ({ status: 404 }));
  t.teardown(() => rx.close());
  await webhookRow(m, rx.url);
  const eventId = await s.event({ team_id: m.team_id, event_type: 'liveness', severity: 'high', message: 'down' });
  const final = await settled(m, (await deliveryOf(eventId)).id);
  t.equal(final.status, 'failed');
  t.equal(final.attempts, 1);
  t.match(final.attempts_detail, [{ outcome: 'permanent', status_code: 404 }]);
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.requests.length, 1);
});

t.test('429 with Retry-After: the retry waits at least Retry-After', async (t) => {
  const m = await s.team('ratelimited');
  const rx = await startWebhookReceiver((n) =>
    n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
  );
  t.teardown(() => rx.close());
  await webhookRow(m, rx.url);
  const eventId = await s.event({ team_id: m.team_id, event_type: 'liveness', severity: 'high', message: 'down' });
  const reqs = await rx.waitFor(2, 4000);
  const g = gaps(reqs)[0]!;
  t.ok(g >= 850, `receiver: ${Math.round(g)} ms between the attempts`);
  const final = await settled(m, (await deliveryOf(eventId)).id);
  const w = daemonWaits(final.attempts_detail)[0]!;
  t.ok(w >= 995 && w < 2000, `daemon waited ${w} ms for Retry-After: 1 (backoff alone is ${FAST.retryWaitsMs[0]} ms)`);
  t.equal(final.status, 'success');
  t.match(final.attempts_detail, [
    { outcome: 'transient', status_code: 429 },
    { outcome: 'success', status_code: 200 },
  ]);
});

t.test('a receiver hanging past the timeout is a transient failure, then retried', async (t) => {
  const m = await s.team('hang');
  const rx = await startWebhookReceiver((n) => (n === 1 ? 'hang' : { status: 200 }));
  t.teardown(() => rx.close());
  await webhookRow(m, rx.url);
  const eventId = await s.event({ team_id: m.team_id, event_type: 'liveness', severity: 'high', message: 'down' });
  const reqs = await rx.waitFor(2, 4000);
  const g = gaps(reqs)[0]!;
  // Seen from the receiver, the attempts are the timeout and the wait apart, less how much later than
  // the second the first was stamped: this process's event loop also runs the app, and on a busy
  // machine stamps an arrival a few hundred ms late. The daemon's own record below gives both exactly.
  t.ok(
    g >= FAST.attemptTimeoutMs - 300,
    `second attempt ${Math.round(g)} ms after the first (timeout ${FAST.attemptTimeoutMs} + wait ${FAST.retryWaitsMs[0]})`,
  );
  const final = await settled(m, (await deliveryOf(eventId)).id);
  const took = final.attempts_detail[0].duration_ms;
  t.ok(
    took >= FAST.attemptTimeoutMs - 5 && took < FAST.attemptTimeoutMs + 1000,
    `the hanging attempt was cut at ${took} ms (timeout ${FAST.attemptTimeoutMs} ms)`,
  );
  t.ok(daemonWaits(final.attempts_detail)[0]! >= FAST.retryWaitsMs[0] - 5, 'then the first wait');
  t.equal(final.status, 'success');
  t.match(final.attempts_detail[0], { outcome: 'transient', status_code: null, error: /timeout/ });
});

t.test('test sends: 201 queued, delivered by the worker, logged under the same id', async (t) => {
  const m = await s.team('tester', 'tess@tester.test');
  const rx = await startWebhookReceiver();
  t.teardown(() => rx.close());
  await webhookRow(m, `${rx.url}?configured`, {}, { secret_key: 'tess-secret' });
  const r = await m.api.post('/api/v1/notifications/test', {
    channel: 'webhook',
    recipient: rx.url,
    metadata: { ticket: 42 },
  });
  t.equal(r.status, 201);
  t.same(Object.keys(r.body).sort(), ['channel', 'created_at', 'id', 'recipient', 'status']);
  t.match(r.body, { channel: 'webhook', recipient: rx.url, status: 'queued' });
  const [req] = await rx.waitFor(1);
  t.equal(req!.path, '/hook', 'sent to the recipient given');
  t.match(req!.json, {
    event_id: r.body.id,
    event_type: 'test',
    team: 'tester',
    user: 'tess@tester.test',
    details: { metadata: { ticket: 42 } },
  });
  t.equal(req!.headers['x-signature'], undefined, 'another URL than the saved one: not signed (no signing oracle)');
  const entry = await settled(m, r.body.id);
  const saved = await m.api.post('/api/v1/notifications/test', {
    channel: 'webhook',
    recipient: `${rx.url}?configured`,
  });
  t.equal(saved.status, 201);
  const [, toSaved] = await rx.waitFor(2);
  t.equal(toSaved!.json.event_id, saved.body.id);
  t.ok(
    verifySignature(toSaved!.raw, toSaved!.headers['x-signature'], 'tess-secret'),
    'to the saved URL: signed with the user’s webhook secret',
  );
  t.match(entry, {
    id: r.body.id,
    channels: ['webhook'],
    status: 'success',
    error_message: null,
    metadata: { ticket: 42 },
  });
  t.type(entry.sent_at, 'string');
  t.match(entry.message_preview, /Test notification/);

  const mail = await m.api.post('/api/v1/notifications/test', {
    channel: 'email',
    recipient: 'tess@tester.test',
    subject: 'Hello from dommon',
  });
  t.equal(mail.status, 201);
  const got = await until(async () => smtp.mails.find((x) => x.subject === 'Hello from dommon'), 5000, 'test mail');
  t.same(got.to, ['tess@tester.test']);
  t.equal(got.from, 'alerts@dommon.test');
  t.match(got.text, 'Test notification from dommon');
  t.match(got.html, '<p>Test notification from dommon</p>');
  t.equal((await settled(m, mail.body.id)).status, 'success');

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ channel: 'email', recipient: 'not-mail' }, /recipient: must be an e-mail address/],
    [{ channel: 'webhook', recipient: 'ftp://x' }, /recipient: must be an http\(s\) URL/],
    [{ channel: 'pushover', recipient: 'x' }, /Pushover user key/],
    [{ channel: 'fax', recipient: 'x' }, /channel: must be one of/],
    [{ recipient: 'a@b.test' }, /channel: is required/],
  ];
  for (const [body, msg] of bad) {
    const b = await m.api.post('/api/v1/notifications/test', body);
    t.equal(b.status, 400, JSON.stringify(body));
    t.match(b.body.error, msg);
  }
  t.equal((await m.api.get('/api/v1/notifications/log/00000000-0000-4000-8000-000000000000')).status, 404);
  const stranger = await s.team('stranger');
  t.equal(
    (await stranger.api.get(`/api/v1/notifications/log/${r.body.id}`)).status,
    404,
    'another team cannot read it',
  );
});

t.test('an email row without recipients mails its user; subject from the event', async (t) => {
  const m = await s.team('mailteam', 'ops@mailteam.test');
  t.equal((await m.api.put('/api/v1/notifications/settings/email', { delivery_class: 'instant' })).status, 200);
  const dom = await m.api.post('/api/v1/domains', { domain: 'mail.example' });
  await s.event({
    team_id: m.team_id,
    event_type: 'domain_expiry',
    severity: 'high',
    domain_id: dom.body.id,
    message: 'mail.example expires in 15 days',
  });
  const got = await until(async () => smtp.mails.find((x) => x.to.includes('ops@mailteam.test')), 5000, 'event mail');
  t.equal(got.subject, '[dommon] [HIGH] Domain renewal: mail.example: mail.example expires in 15 days');
  t.match(got.text, 'Domain: mail.example');
  t.match(got.html, '<td>mail.example</td>');
});

t.test('pushover: events and test sends reach {DOMMON_PUSHOVER_URL}/1/messages.json', async (t) => {
  const m = await s.team('pushers');
  const userKey = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
  const appToken = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
  t.equal(
    (
      await m.api.put('/api/v1/notifications/settings/pushover', {
        delivery_class: 'instant',
        config: { user_key: userKey, app_token: appToken },
      })
    ).status,
    200,
  );
  const eventId = await s.event({
    team_id: m.team_id,
    event_type: 'liveness',
    severity: 'critical',
    message: 'api is down',
  });
  const test = await m.api.post('/api/v1/notifications/test', {
    channel: 'pushover',
    recipient: 'gznej3rKEVAvPUxu9vvNnqpmZpokzF',
  });
  t.equal(test.status, 201);
  await push.waitFor(2);
  const ev = push.requests.find((r) => r.json.title?.includes('Liveness'))!;
  t.equal(ev.path, '/1/messages.json');
  t.match(ev.json, { token: appToken, user: userKey, priority: 1, message: 'api is down' });
  const tst = push.requests.find((r) => r.json.user === 'gznej3rKEVAvPUxu9vvNnqpmZpokzF')!;
  t.match(
    tst.json,
    { token: appToken, priority: -1, message: 'Test notification from dommon' },
    'a test send uses the caller’s app token',
  );
  t.equal((await settled(m, test.body.id)).status, 'success');
  t.equal((await settled(m, (await deliveryOf(eventId)).id)).status, 'success');
});

t.test('delivery log: filters, newest first, paging, X-Total-Count', async (t) => {
  const m = await s.team('logs');
  const ok = await startWebhookReceiver(() => ({ status: 200 }));
  const gone = await startWebhookReceiver(() => ({ status: 410 }));
  t.teardown(async () => {
    await ok.close();
    await gone.close();
  });
  const ids: string[] = [];
  for (const url of [ok.url, gone.url, ok.url]) {
    ids.push((await m.api.post('/api/v1/notifications/test', { channel: 'webhook', recipient: url })).body.id);
    await settled(m, ids[ids.length - 1]!);
    await new Promise((r) => setTimeout(r, 5)); // distinct created_at
  }
  const all = await m.api.get('/api/v1/notifications/log');
  t.equal(all.status, 200);
  t.equal(all.headers.get('x-total-count'), '3');
  t.same(
    all.body.map((e: { id: string }) => e.id),
    [...ids].reverse(),
    'newest first',
  );
  t.same(
    Object.keys(all.body[0]).filter((k) =>
      ['id', 'channels', 'status', 'message_preview', 'sent_at', 'error_message', 'metadata'].includes(k),
    ).length,
    7,
  );
  const failed = await m.api.get('/api/v1/notifications/log?status=failed');
  t.same(
    failed.body.map((e: { id: string }) => e.id),
    [ids[1]],
  );
  t.match(failed.body[0].error_message, 'HTTP 410');
  const page = await m.api.get('/api/v1/notifications/log?limit=1&offset=1');
  t.same(
    page.body.map((e: { id: string }) => e.id),
    [ids[1]],
  );
  t.equal(page.headers.get('x-total-count'), '3');
  t.same((await m.api.get('/api/v1/notifications/log?channel=email')).body, []);
  t.equal((await m.api.get('/api/v1/notifications/log?limit=0')).status, 400);
  t.equal((await m.api.get('/api/v1/notifications/log?limit=101')).status, 400, 'limit max 100');
  t.equal((await m.api.get('/api/v1/notifications/log?status=queued')).status, 400);
});

t.test('deliveries waiting for their retry take no slot: a receiver that is down holds up no other', async (t) => {
  // Its own app, with long waits between attempts: 60 deliveries to a receiver answering 503 fill
  // more than the node's 50 slots, then wait 5 s for their retry.
  const own = await startNotifyApp({ notify: { retryWaitsMs: [5000, 5000, 5000] } });
  t.teardown(() => own.close());
  const down = await startWebhookReceiver(() => ({ status: 503 }));
  const up = await startWebhookReceiver();
  t.teardown(() => Promise.all([down.close(), up.close()]));
  const a = await own.team('down');
  const b = await own.team('up');
  const ra = await a.api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: down.url },
  });
  const rb = await b.api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: up.url },
  });
  t.same([ra.status, rb.status], [200, 200]);
  await own.app.store.transaction(async (tx) => {
    const at = new Date().toISOString();
    for (let i = 0; i < 60; i++)
      await tx.events.add({ team_id: a.team_id, event_type: 'liveness', severity: 'high', message: `down ${i}` }, at);
  });
  await down.waitFor(50, 10_000);
  const t0 = Date.now();
  await own.event({ team_id: b.team_id, event_type: 'liveness', severity: 'high', message: 'the other one' });
  await up.waitFor(1, 4000);
  t.ok(Date.now() - t0 < 4000, `delivered ${Date.now() - t0} ms after its event, before the retries' 5 s`);
  await down.waitFor(60, 4000);
  t.equal(
    down.requests.length,
    60,
    'every delivery to the receiver that is down had its first attempt, none its retry yet',
  );
});

t.test('attempts recorded in one batch: a row whose lease was taken over writes nothing', async (t) => {
  const m = await s.team('batch');
  const row = await webhookRow(m, 'http://127.0.0.1:9/never');
  const store = s.app.store;
  // Not due for an hour, and leased far ahead: the worker of this app leaves them alone.
  const later = new Date(Date.now() + 3_600_000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(
      (await store.notifications.addDelivery({
        team_id: m.team_id,
        event_id: null,
        setting_id: row.id,
        channel: 'webhook',
        recipient: null,
        is_test: false,
        request: {},
        status: 'queued',
        next_attempt_at: later,
        metadata: null,
        created_at: new Date().toISOString(),
        message_preview: `batch ${i}`,
      }))!,
    );
  const [one, two, three] = ids as [string, string, string];
  await store.db
    .updateTable('deliveries')
    .set({ lease_owner: 'batch-node', lease_token: 7, lease_until: later })
    .where('id', 'in', ids)
    .execute();
  // Another node claimed the second one meanwhile (its lease ran out here): a new owner and token.
  await store.db
    .updateTable('deliveries')
    .set({ lease_owner: 'elsewhere', lease_token: 8 })
    .where('id', '=', two)
    .execute();
  const at = new Date().toISOString();
  const retryLease = new Date(Date.now() + 7_000).toISOString();
  const outcome = (id: string, ok: boolean) => ({
    id,
    token: 7,
    attempt: 1,
    at,
    outcome: ok ? 'success' : 'transient',
    status_code: ok ? 200 : 503,
    error: ok ? null : 'HTTP 503: server error at the receiver',
    duration_ms: 3,
    status: ok ? 'success' : 'partial',
    next_attempt_at: ok ? at : later,
    error_message: ok ? null : 'HTTP 503: server error at the receiver',
    sent_at: at,
    message_preview: null,
    release: ok,
    lease_until: retryLease,
  });
  const written = await store.transaction((tx) =>
    tx.notifications.recordAttempts([outcome(one, true), outcome(two, true), outcome(three, false)], 'batch-node'),
  );
  t.same([...written].sort(), [one, three].sort(), 'the rows still under their lease were written');
  const rows = await store.db
    .selectFrom('deliveries')
    .select(['id', 'status', 'attempts', 'lease_owner', 'lease_until', 'message_preview', 'error_message'])
    .where('id', 'in', ids)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  t.match(
    byId.get(one),
    {
      status: 'success',
      attempts: 1,
      lease_owner: null,
      lease_until: null,
      message_preview: 'batch 0',
      error_message: null,
    },
    'a success: released, the preview kept',
  );
  t.match(
    byId.get(two),
    { status: 'queued', attempts: 0, lease_owner: 'elsewhere', lease_until: later },
    'taken over: untouched',
  );
  t.match(
    byId.get(three),
    { status: 'partial', attempts: 1, lease_owner: 'batch-node', lease_until: retryLease },
    'a retry after a short wait: the lease kept until then',
  );
  const attempts = await store.db
    .selectFrom('delivery_attempts')
    .select(['delivery_id', 'attempt', 'outcome', 'status_code'])
    .where('delivery_id', 'in', ids)
    .execute();
  t.same(
    attempts
      .map((a) => [
        a.delivery_id === one ? 'one' : a.delivery_id === two ? 'two' : 'three',
        a.attempt,
        a.outcome,
        a.status_code,
      ])
      .sort(),
    [
      ['one', 1, 'success', 200],
      ['three', 1, 'transient', 503],
    ],
    'an attempt row for each written one, none for the fenced one',
  );
});

t.test(
  'three workers (this daemon and two other processes) never send the same delivery twice',
  { skip: MULTI_PROCESS_SKIP },
  async (t) => {
    const m = await s.team('dup');
    const rx = await startWebhookReceiver(() => ({ status: 200 }));
    t.teardown(() => rx.close());
    await webhookRow(m, rx.url);
    const ids: string[] = [];
    // Written in one go while the other processes are already polling.
    await until(async () => out.every((o) => o.includes('ready')), 15000, 'worker processes');
    children.forEach((c) => c.stdin!.write('go\n'));
    for (let i = 0; i < 15; i++)
      ids.push(await s.event({ team_id: m.team_id, event_type: 'liveness', severity: 'high', message: `down ${i}` }));
    await rx.waitFor(15, 8000);
    children.forEach((c) => c.stdin!.end());
    const claimedByChildren = (await Promise.all(outputs)).map((o) => Number(/claimed=(\d+)/.exec(o)?.[1] ?? -1));
    t.ok(
      claimedByChildren.every((n) => n >= 0),
      `children ran (claimed ${claimedByChildren.join(', ')} of 15)`,
    );
    await new Promise((r) => setTimeout(r, 200));
    const got = rx.requests.map((r) => r.json.event_id as string);
    const attempts = await s.app.store.db
      .selectFrom('delivery_attempts as a')
      .innerJoin('deliveries as d', 'd.id', 'a.delivery_id')
      .select(['d.id', 'd.event_id', 'a.attempt', 'a.outcome'])
      .where('d.team_id', '=', m.team_id)
      .execute();
    // Two workers holding the same delivery at once would both record the same attempt number.
    const pairs = new Set(attempts.map((a) => `${a.id}/${a.attempt}`));
    t.equal(pairs.size, attempts.length, 'no attempt number recorded twice: never claimed by two workers at once');
    const successes = attempts.filter((a) => a.outcome === 'success').map((a) => a.event_id);
    t.same([...successes].sort(), [...ids].sort(), 'exactly one successful attempt per event');
    t.same([...new Set(got)].sort(), [...ids].sort(), 'every event received');
    if (attempts.every((a) => a.outcome === 'success')) t.equal(got.length, 15, 'fifteen requests for fifteen events');
    else
      t.ok(
        got.length <= attempts.length,
        `a timed-out attempt was retried (at-least-once): ${got.length} requests, ${attempts.length} attempts`,
      );
  },
);
