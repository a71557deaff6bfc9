// Retry-After is honoured in full: a wait over a minute hands the delivery back to the queue (lease
// released, due no sooner than asked) instead of retrying early; a wait over a day fails it.
import t from 'tap';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { MAX_RETRY_AFTER_S } from '../../src/services/delivery.js';
import { startNotifyApp, until } from './harness.js';

t.setTimeout(60_000);

const s = await startNotifyApp();
t.teardown(() => s.close());

async function rowAfterFirstAttempt(retryAfter: string) {
  const rx = await startWebhookReceiver(() => ({ status: 429, headers: { 'retry-after': retryAfter } }));
  t.teardown(() => rx.close());
  const m = await s.team(`ra-${retryAfter}`);
  const put = await m.api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: rx.url },
  });
  t.equal(put.status, 200);
  const eventId = await s.event({
    team_id: m.team_id,
    event_type: 'ssl_expiry',
    severity: 'medium',
    message: 'cert expires in 7 days',
  });
  await rx.waitFor(1, 5000);
  const row = await until(
    async () => {
      const d = await s.app.store.db
        .selectFrom('deliveries')
        .selectAll()
        .where('event_id', '=', eventId)
        .executeTakeFirst();
      return d && d.attempts === 1 ? d : null;
    },
    5000,
    'first attempt recorded',
  );
  const [attempt] = await s.app.store.notifications.attempts(row.id);
  return { rx, row, attempt: attempt!, m };
}

t.test('Retry-After: 120 -> back in the queue, due 120 s after the attempt, lease released', async (t) => {
  const { rx, row, attempt, m } = await rowAfterFirstAttempt('120');
  t.equal(row.status, 'partial');
  t.equal(row.lease_owner, null, 'lease released: any worker may take it when due');
  const due = Date.parse(row.next_attempt_at) - Date.parse(attempt.at);
  t.ok(due >= 120_000, `due ${due} ms after the attempt`);
  await new Promise((r) => setTimeout(r, 500));
  t.equal(rx.requests.length, 1, 'no early retry');
  const log = await m.api.get(`/api/v1/notifications/log/${row.id}`);
  t.match(log.body, { status: 'partial', error_message: 'HTTP 429: rate limited by the receiver' });
});

t.test(`Retry-After over ${MAX_RETRY_AFTER_S} s -> failed, not retried early`, async (t) => {
  const { rx, row, m } = await rowAfterFirstAttempt(String(MAX_RETRY_AFTER_S + 1));
  const log = await until(
    async () => {
      const r = await m.api.get(`/api/v1/notifications/log/${row.id}`);
      return r.body.status === 'failed' ? r.body : null;
    },
    3000,
    'failed',
  );
  t.match(
    log.error_message,
    `HTTP 429: rate limited by the receiver; the receiver asks to wait ${MAX_RETRY_AFTER_S + 1} s`,
  );
  t.equal(rx.requests.length, 1);
});
