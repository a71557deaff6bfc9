// The delivery log as a team member reads it: ordered by the time it shows, and without other
// members' chat credentials.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { client, startApp } from '../support/app.js';

type Row = { id: string; created: string; sent: string; channel?: string; recipient?: string };
const row = (teamId: string, r: Row) => ({
  id: r.id,
  team_id: teamId,
  event_id: null,
  setting_id: null,
  channel: r.channel ?? 'webhook',
  recipient: r.recipient ?? 'http://127.0.0.1:9/',
  is_test: 1 as const,
  request: '{}',
  status: 'failed',
  attempts: 2,
  next_attempt_at: r.sent,
  lease_owner: null,
  lease_until: null,
  lease_token: 0,
  message_preview: r.id,
  error_message: 'HTTP 500: server error at the receiver',
  metadata: null,
  created_at: r.created,
  sent_at: r.sent,
});

// sent_at is the latest attempt: a delivery created first but retried last is listed first, so the
// times a user reads go down the page in order.
t.test('delivery log: newest sent_at first, whatever the creation order', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const tok = await s.app.services.access.createToken({ team: 'order' });
  const api = client(s.url, tok.token);
  const [firstSentLast, secondSentFirst, lastSentMiddle] = [randomUUID(), randomUUID(), randomUUID()];
  await s.app.store.db
    .insertInto('deliveries')
    .values([
      row(tok.team_id, { id: firstSentLast, created: '2026-11-01T10:00:00.000Z', sent: '2026-11-01T12:00:00.000Z' }),
      row(tok.team_id, { id: secondSentFirst, created: '2026-11-01T11:00:00.000Z', sent: '2026-11-01T11:00:01.000Z' }),
      row(tok.team_id, { id: lastSentMiddle, created: '2026-11-01T11:30:00.000Z', sent: '2026-11-01T11:30:01.000Z' }),
    ])
    .execute();
  const r = await api.get('/api/v1/notifications/log?limit=10');
  t.equal(r.status, 200);
  const items: Array<{ id: string; sent_at: string; created_at: string }> = r.body;
  t.same(
    items.map((x) => x.id),
    [firstSentLast, lastSentMiddle, secondSentFirst],
  );
  t.same(
    items.map((x) => x.sent_at),
    ['2026-11-01T12:00:00.000Z', '2026-11-01T11:30:01.000Z', '2026-11-01T11:00:01.000Z'],
    'sent_at descends',
  );
  t.equal(items[0]!.created_at, '2026-11-01T10:00:00.000Z', 'created_at is shown too');
  const page2 = await api.get('/api/v1/notifications/log?limit=1&offset=1');
  t.same(
    page2.body.map((x: { id: string }) => x.id),
    [lastSentMiddle],
    'paging follows the same order',
  );
});

t.test('Slack and Teams URLs show scheme and host only; webhook and e-mail recipients as given', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const tok = await s.app.services.access.createToken({ team: 'masks' });
  const api = client(s.url, tok.token);
  const at = '2026-11-01T10:00:00.000Z';
  const ids = { slack: randomUUID(), teams: randomUUID(), webhook: randomUUID(), email: randomUUID() };
  await s.app.store.db
    .insertInto('deliveries')
    .values([
      row(tok.team_id, {
        id: ids.slack,
        created: at,
        sent: at,
        channel: 'slack',
        recipient: 'https://hooks.slack.com/services/T0001/B0001/s3cretXYZ',
      }),
      row(tok.team_id, {
        id: ids.teams,
        created: at,
        sent: at,
        channel: 'teams',
        recipient: 'https://example.webhook.office.com/webhookb2/abc@def/IncomingWebhook/s3cret/xyz',
      }),
      row(tok.team_id, {
        id: ids.webhook,
        created: at,
        sent: at,
        channel: 'webhook',
        recipient: 'http://127.0.0.1:8080/hook',
      }),
      row(tok.team_id, { id: ids.email, created: at, sent: at, channel: 'email', recipient: 'ops@example.test' }),
    ])
    .execute();
  const list = (await api.get('/api/v1/notifications/log?limit=10')).body as Array<{ id: string; recipient: string }>;
  const shown = Object.fromEntries(list.map((x) => [x.id, x.recipient]));
  t.same(shown, {
    [ids.slack]: 'https://hooks.slack.com/…',
    [ids.teams]: 'https://example.webhook.office.com/…',
    [ids.webhook]: 'http://127.0.0.1:8080/hook',
    [ids.email]: 'ops@example.test',
  });
  const one = await api.get(`/api/v1/notifications/log/${ids.slack}`);
  t.equal(one.body.recipient, 'https://hooks.slack.com/…', 'the single entry too');
  t.notMatch(JSON.stringify(one.body), /s3cret/, 'no part of the path anywhere in the answer');
});
