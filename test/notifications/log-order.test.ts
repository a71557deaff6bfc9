// The delivery log shows sent_at (the latest attempt) and is ordered by it: a delivery created first
// but retried last is listed first, so the times a user reads go down the page in order.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { client, startApp } from '../support/app.js';

t.test('delivery log: newest sent_at first, whatever the creation order', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const tok = await s.app.services.access.createToken({ team: 'order' });
  const api = client(s.url, tok.token);
  const row = (id: string, created: string, sent: string) => ({
    id, team_id: tok.team_id, event_id: null, setting_id: null, channel: 'webhook', recipient: 'http://127.0.0.1:9/', is_test: 1 as const,
    request: '{}', status: 'failed', attempts: 2, next_attempt_at: sent, lease_owner: null, lease_until: null,
    message_preview: id, error_message: 'HTTP 500: server error at the receiver', metadata: null, created_at: created, sent_at: sent,
  });
  const [firstSentLast, secondSentFirst, lastSentMiddle] = [randomUUID(), randomUUID(), randomUUID()];
  await s.app.store.db.insertInto('deliveries').values([
    row(firstSentLast, '2026-11-01T10:00:00.000Z', '2026-11-01T12:00:00.000Z'),
    row(secondSentFirst, '2026-11-01T11:00:00.000Z', '2026-11-01T11:00:01.000Z'),
    row(lastSentMiddle, '2026-11-01T11:30:00.000Z', '2026-11-01T11:30:01.000Z'),
  ]).execute();
  const r = await api.get('/api/v1/notifications/log?limit=10');
  t.equal(r.status, 200);
  const items: Array<{ id: string; sent_at: string; created_at: string }> = r.body;
  t.same(items.map((x) => x.id), [firstSentLast, lastSentMiddle, secondSentFirst]);
  t.same(items.map((x) => x.sent_at), ['2026-11-01T12:00:00.000Z', '2026-11-01T11:30:01.000Z', '2026-11-01T11:00:01.000Z'], 'sent_at descends');
  t.equal(items[0]!.created_at, '2026-11-01T10:00:00.000Z', 'created_at is shown too');
  const page2 = await api.get('/api/v1/notifications/log?limit=1&offset=1');
  t.same(page2.body.map((x: { id: string }) => x.id), [lastSentMiddle], 'paging follows the same order');
});
