// Digests: due at notification_time in the team's time zone every frequency_days; one message per
// channel grouped by portfolio; nothing when there is nothing to say. Driven by an injected clock.
import t from 'tap';

t.setTimeout(90_000); // headroom on a busy shared machine
import { nextDigestAt } from '../../src/domain/digest.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { startSmtp } from '../support/smtp.js';
import { startNotifyApp, until } from './harness.js';

t.test('nextDigestAt: local time in the team time zone, then every frequency_days', async (t) => {
  const iso = (ms: number) => new Date(ms).toISOString();
  const table: [string, string | null, string, number, string, string, string][] = [
    ['first send later the same day', null, '2026-03-02T07:00:00Z', 1, '09:00:00', 'UTC', '2026-03-02T09:00:00.000Z'],
    [
      'first send the next day once the time passed',
      null,
      '2026-03-02T10:00:00Z',
      7,
      '09:00:00',
      'UTC',
      '2026-03-03T09:00:00.000Z',
    ],
    [
      'daily after a send',
      '2026-03-02T09:00:04Z',
      '2026-03-01T00:00:00Z',
      1,
      '09:00:00',
      'UTC',
      '2026-03-03T09:00:00.000Z',
    ],
    [
      'weekly after a late send',
      '2026-03-02T23:30:00Z',
      '2026-03-01T00:00:00Z',
      7,
      '09:00:00',
      'UTC',
      '2026-03-09T09:00:00.000Z',
    ],
    [
      'every 30 days',
      '2026-01-15T09:00:00Z',
      '2026-01-01T00:00:00Z',
      30,
      '09:00:00',
      'UTC',
      '2026-02-14T09:00:00.000Z',
    ],
    [
      'Tokyo (UTC+9): 09:00 local is 00:00Z',
      null,
      '2026-03-02T07:00:00Z',
      1,
      '09:00:00',
      'Asia/Tokyo',
      '2026-03-03T00:00:00.000Z',
    ],
    [
      'New York before DST (UTC-5)',
      '2026-03-06T14:00:00Z',
      '2026-03-01T00:00:00Z',
      1,
      '09:00:00',
      'America/New_York',
      '2026-03-07T14:00:00.000Z',
    ],
    [
      'New York across the DST switch (UTC-4 on 8 March)',
      '2026-03-07T14:00:00Z',
      '2026-03-01T00:00:00Z',
      1,
      '09:00:00',
      'America/New_York',
      '2026-03-08T13:00:00.000Z',
    ],
    [
      'local date, not UTC date, counts (Tokyo 08:00 local = 23:00Z the day before)',
      '2026-03-01T23:00:00Z',
      '2026-03-01T00:00:00Z',
      1,
      '08:00:00',
      'Asia/Tokyo',
      '2026-03-02T23:00:00.000Z',
    ],
    [
      'unknown zone falls back to UTC',
      null,
      '2026-03-02T07:00:00Z',
      1,
      '09:00:00',
      'Mars/Olympus',
      '2026-03-02T09:00:00.000Z',
    ],
  ];
  for (const [name, last, created, freq, time, tz, want] of table)
    t.equal(iso(nextDigestAt(last, created, freq, time, tz)), want, name);
});

t.test('digest at a set time with an injected clock', async (t) => {
  let now = Date.parse('2026-03-02T07:00:00Z');
  const clock = { now: () => new Date(now) };
  const smtp = await startSmtp();
  const rx = await startWebhookReceiver();
  const s = await startNotifyApp({
    clock,
    env: { DOMMON_SMTP_URL: smtp.url },
    smtp: { ca: smtp.ca },
    notify: { intervalMs: 60_000 },
  });
  t.teardown(async () => {
    await s.close();
    await rx.close();
    await smtp.close();
  });
  // One worker cycle, then wait until every delivery it started is settled (the clock only moves
  // between cycles, so leases never look expired while an attempt is in flight).
  const run = async () => {
    await s.app.notify.worker.runNow();
    await until(async () => s.app.notify.delivery.inFlight() === 0, 5000, 'deliveries settled');
  };
  const m = await s.team('digesters', 'dana@digesters.test');
  const quiet = await s.team('quiet', 'quinn@quiet.test');
  t.equal(
    (
      await m.api.put('/api/v1/notifications/settings/slack', {
        delivery_class: 'digest',
        frequency_days: 1,
        notification_time: '09:00:00',
        config: { webhook_url: `${rx.url}?slack` },
      })
    ).status,
    200,
  );
  t.equal(
    (
      await m.api.put('/api/v1/notifications/settings/email', {
        delivery_class: 'digest',
        frequency_days: 1,
        notification_time: '09:00:00',
      })
    ).status,
    200,
  );
  t.equal(
    (
      await m.api.put('/api/v1/notifications/settings/teams', {
        delivery_class: 'digest',
        is_enabled: false,
        config: { webhook_url: `${rx.url}?teams-disabled` },
      })
    ).status,
    200,
  );
  t.equal(
    (
      await quiet.api.put('/api/v1/notifications/settings/slack', {
        delivery_class: 'digest',
        frequency_days: 1,
        notification_time: '09:00:00',
        config: { webhook_url: `${rx.url}?quiet` },
      })
    ).status,
    200,
  );

  const pf = await m.api.post('/api/v1/portfolios', { name: 'Production' });
  t.equal(pf.status, 201);
  const prod = await m.api.post('/api/v1/domains', { domain: 'shop.example', portfolio_id: pf.body.id });
  const loose = await m.api.post('/api/v1/domains', { domain: 'blog.example' });
  t.equal(prod.status, 201);

  now = Date.parse('2026-03-02T07:10:00Z');
  // min_severity is ignored for digests: an info exposure finding is listed too.
  await s.event({
    team_id: m.team_id,
    event_type: 'ssl_expiry',
    severity: 'medium',
    domain_id: prod.body.id,
    message: 'certificate expires in 14 days',
  });
  await s.event({
    team_id: m.team_id,
    event_type: 'exposure',
    severity: 'info',
    category: 'dns_misconfiguration',
    domain_id: prod.body.id,
    message: 'SPF record allows +all',
  });
  await s.event({
    team_id: m.team_id,
    event_type: 'whois',
    severity: 'high',
    domain_id: loose.body.id,
    message: 'blog.example expires in 10 days',
  });

  now = Date.parse('2026-03-02T08:59:59Z');
  await run();
  const digests = () =>
    s.app.store.db
      .selectFrom('deliveries')
      .selectAll()
      .where('event_id', 'is', null)
      .where('is_test', '=', 0)
      .execute();
  t.equal((await digests()).length, 0, 'not due before 09:00');

  now = Date.parse('2026-03-02T09:00:01Z');
  await run();
  const rows = await digests();
  t.equal(rows.length, 2, 'one digest per enabled digest row with something to say (quiet team: none)');
  const [slackReq] = await rx.waitFor(1);
  const [mail] = await smtp.waitFor(1);
  await new Promise((r) => setTimeout(r, 150));
  t.equal(rx.requests.length, 1, 'one Slack message, nothing to the disabled row or the quiet team');
  t.equal(slackReq!.path, '/hook?slack');
  t.equal(slackReq!.json.text, 'dommon digest for digesters: 3 items');
  const sections = slackReq!.json.blocks
    .filter((b: { type: string }) => b.type === 'section')
    .map((b: { text: { text: string } }) => b.text.text);
  t.same(
    sections.filter((x: string) => x.startsWith('*')),
    ['*Production*', '*No portfolio*'],
    'grouped by portfolio',
  );
  t.match(sections[1], /certificate expires in 14 days/);
  t.match(sections[1], /SPF record allows \+all/);
  t.match(sections[3], /blog\.example expires in 10 days/);

  t.same(mail!.to, ['dana@digesters.test'], 'email digest row without recipients goes to its user');
  t.equal(mail!.subject, 'dommon digest for digesters: 3 items');
  t.match(
    mail!.text,
    /Production:\n {2}- \[MEDIUM\] SSL certificate expiry: shop\.example - certificate expires in 14 days/,
  );
  t.match(mail!.html, '<h3>No portfolio</h3>');

  const log = await m.api.get('/api/v1/notifications/log');
  t.equal(log.body.length, 2);
  t.ok(
    log.body.every(
      (e: { status: string; metadata: { digest: boolean; items: number } }) =>
        e.status === 'success' && e.metadata.digest === true && e.metadata.items === 3,
    ),
  );

  // Later the same day: not due again; the next day with nothing new: nothing sent.
  now = Date.parse('2026-03-02T15:00:00Z');
  await run();
  now = Date.parse('2026-03-03T09:00:01Z');
  await run();
  t.equal((await digests()).length, 2, 'nothing to say, nothing sent');

  // A new event, next day at 09:00: exactly that one item.
  now = Date.parse('2026-03-03T12:00:00Z');
  await s.event({
    team_id: m.team_id,
    event_type: 'liveness',
    severity: 'high',
    domain_id: loose.body.id,
    message: 'blog is down',
  });
  now = Date.parse('2026-03-04T09:00:00Z');
  await run();
  await rx.waitFor(2);
  t.equal(rx.requests[1]!.json.text, 'dommon digest for digesters: 1 item');
  await until(async () => smtp.mails.length === 2, 3000, 'second mail');
  t.match(smtp.mails[1]!.text, 'blog is down');
  t.notMatch(smtp.mails[1]!.text, 'certificate expires', 'earlier items are not repeated');
});

t.test('team time zone: a Tokyo team gets its 09:00 digest at 00:00Z', async (t) => {
  let now = Date.parse('2026-03-02T12:00:00Z'); // 21:00 in Tokyo
  const clock = { now: () => new Date(now) };
  const rx = await startWebhookReceiver();
  const s = await startNotifyApp({ clock, notify: { intervalMs: 60_000 } });
  t.teardown(async () => {
    await s.close();
    await rx.close();
  });
  const m = await s.team('tokyo');
  await s.app.store.db.updateTable('teams').set({ timezone: 'Asia/Tokyo' }).where('id', '=', m.team_id).execute();
  await m.api.put('/api/v1/notifications/settings/teams', {
    delivery_class: 'digest',
    frequency_days: 1,
    notification_time: '09:00:00',
    config: { webhook_url: rx.url },
  });
  now = Date.parse('2026-03-02T13:00:00Z');
  await s.event({ team_id: m.team_id, event_type: 'liveness', severity: 'high', message: 'api down' });
  now = Date.parse('2026-03-02T23:59:59Z');
  await s.app.notify.worker.runNow();
  t.equal(s.app.notify.delivery.inFlight(), 0);
  t.equal(rx.requests.length, 0, '08:59:59 in Tokyo');
  now = Date.parse('2026-03-03T00:00:00Z');
  await s.app.notify.worker.runNow();
  const [req] = await rx.waitFor(1);
  t.equal(req!.json.attachments[0].content.type, 'AdaptiveCard');
  t.match(JSON.stringify(req!.json), 'api down');
});
