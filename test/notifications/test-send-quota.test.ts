// Test sends go wherever the caller says: 10 per team per rolling hour, then a clear 429 with
// Retry-After, so a token cannot turn dommon into a mail or webhook relay.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { TEST_SENDS_PER_HOUR } from '../../src/services/notifications.js';

const send = (api: ReturnType<typeof client>, i: number) =>
  api.post('/api/v1/notifications/test', { channel: 'email', recipient: `ops${i}@example.test` });

t.test('the eleventh test send in an hour is 429 with Retry-After; other teams are not affected', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  t.equal(TEST_SENDS_PER_HOUR, 10);
  const a = client(s.url, await s.token('quota-a'));
  for (let i = 0; i < 10; i++) t.equal((await send(a, i)).status, 201, `send ${i + 1} queued`);
  const over = await send(a, 11);
  t.equal(over.status, 429);
  t.match(over.body, {
    code: 'TEST_SEND_QUOTA',
    error: /10 per team per hour; retry in \d+ s/,
    path: '/api/v1/notifications/test',
  });
  const retry = Number(over.headers.get('retry-after'));
  t.ok(retry > 3500 && retry <= 3600, `Retry-After ${retry} s: when the oldest of the ten is an hour old`);
  t.equal(over.body.retry_after, retry, 'the same in the body');
  const b = client(s.url, await s.token('quota-b'));
  t.equal((await send(b, 0)).status, 201, 'another team has its own quota');
  const log = await s.app.store.db
    .selectFrom('deliveries')
    .select((e) => e.fn.countAll<number>().as('n'))
    .where('is_test', '=', 1)
    .executeTakeFirstOrThrow();
  t.equal(Number(log.n), 11, 'the refused send queued nothing');
});

t.test('parallel requests cannot slip past the quota together', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const c = client(s.url, await s.token('quota-c'));
  const statuses = (await Promise.all(Array.from({ length: 16 }, (_, i) => send(c, i)))).map((r) => r.status);
  t.equal(statuses.filter((x) => x === 201).length, 10, `exactly ten queued: ${statuses.join(',')}`);
  t.equal(statuses.filter((x) => x === 429).length, 6);
});

t.test('sends older than an hour free their slots', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const d = client(s.url, await s.token('quota-d'));
  for (let i = 0; i < 10; i++) await send(d, i);
  t.equal((await send(d, 10)).status, 429);
  // Age the ten by 61 minutes, as if an hour had passed.
  const old = new Date(Date.now() - 61 * 60_000).toISOString();
  await s.app.store.db.updateTable('deliveries').set({ created_at: old }).where('is_test', '=', 1).execute();
  t.equal((await send(d, 11)).status, 201);
});
