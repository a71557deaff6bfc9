// A graceful stop during a retry wait: stop() does not sit out the wait, the delivery stays pending
// (partial, lease released) and the next start makes the remaining attempts on schedule.
import t from 'tap';

t.setTimeout(90_000); // headroom on a busy shared machine
import fs from 'node:fs';
import path from 'node:path';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../support/app.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { startNotifyApp, until } from './harness.js';

t.test('stop during a retry wait, resume after restart', async (t) => {
  const dataDir = tempDir('dommon-restart-');
  const rx = await startWebhookReceiver((n) => (n === 1 ? { status: 502 } : { status: 200 }));
  t.teardown(async () => {
    await rx.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const notify = { retryWaitsMs: [3000, 3000, 3000] };
  const first = await startNotifyApp({ dataDir, notify });
  const m = await first.team('restarters');
  await m.api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: rx.url },
  });
  const eventId = await first.event({ team_id: m.team_id, event_type: 'liveness', severity: 'high', message: 'down' });
  await rx.waitFor(1);
  const row = () =>
    first.app.store.db.selectFrom('deliveries').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow();
  await until(async () => (await row()).attempts === 1, 3000, 'first attempt recorded');
  await first.close();
  const stoppedAt = Date.now();
  t.equal(rx.requests.length, 1, 'no retry before the restart');
  const store = await openStore(path.join(dataDir, 'dommon.db'));
  const d = await store.db
    .selectFrom('deliveries')
    .selectAll()
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  await store.close();
  t.equal(d.status, 'partial');
  t.equal(d.lease_owner, null, 'lease given back on stop');
  t.ok(
    stoppedAt < Date.parse(d.next_attempt_at),
    `stop() returned ${Date.parse(d.next_attempt_at) - stoppedAt} ms before the retry was due (it does not sit out the wait)`,
  );

  const second = await startNotifyApp({ dataDir, notify });
  t.teardown(() => second.close());
  const reqs = await rx.waitFor(2, 5000);
  const gap = reqs[1]!.at - reqs[0]!.at;
  t.ok(gap >= 2850, `retry after the wait (${Math.round(gap)} ms)`);
  const done = await until(
    async () => {
      const r = await second.app.store.db
        .selectFrom('deliveries')
        .selectAll()
        .where('id', '=', d.id)
        .executeTakeFirstOrThrow();
      return r.status === 'success' ? r : null;
    },
    3000,
    'success',
  );
  t.equal(done.attempts, 2, 'attempt count carried across the restart');
});
