// Bounded parallelism helpers: at most n in flight, order kept, stop() ends the start of new items.
import t from 'tap';
import { eachLimit, mapLimit } from '../../src/domain/concurrency.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('mapLimit keeps order and never exceeds n in flight', async (t) => {
  let inFlight = 0;
  let peak = 0;
  const out = await mapLimit([5, 1, 4, 2, 3, 0], 3, async (x) => {
    peak = Math.max(peak, ++inFlight);
    await tick(x * 3);
    inFlight--;
    return x * 10;
  });
  t.same(out, [50, 10, 40, 20, 30, 0]);
  t.equal(peak, 3);
  t.same(await mapLimit([], 4, async (x) => x), []);
});

t.test('eachLimit runs every item, n at a time, and stops starting items once stop() is true', async (t) => {
  const seen: number[] = [];
  let inFlight = 0;
  let peak = 0;
  const started = await eachLimit([1, 2, 3, 4, 5, 6, 7], 2, async (x) => {
    peak = Math.max(peak, ++inFlight);
    await tick(2);
    seen.push(x);
    inFlight--;
  });
  t.equal(started, 7);
  t.same([...seen].sort(), [1, 2, 3, 4, 5, 6, 7]);
  t.equal(peak, 2);

  const ran: number[] = [];
  let stop = false;
  const n = await eachLimit(
    Array.from({ length: 100 }, (_, i) => i),
    4,
    async (x) => {
      ran.push(x);
      if (x === 9) stop = true;
      await tick(1);
    },
    () => stop,
  );
  t.equal(n, ran.length, 'the count is the items started');
  t.ok(
    ran.length >= 10 && ran.length <= 13,
    `only the items in flight when stop() turned true finish (${ran.length} ran)`,
  );
  t.same(ran.slice(0, 10), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'started in order');
  t.equal(
    await eachLimit(
      [1, 2],
      3,
      async () => undefined,
      () => true,
    ),
    0,
    'stopped before the start: nothing runs',
  );
});
