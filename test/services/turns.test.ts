// takeTurns: a key's reads run back to back within its budget; past it, the key's next read waits
// for a later event-loop iteration (after a poll for I/O), while other keys' reads go ahead.
import t from 'tap';
import { takeTurns } from '../../src/services/turns.js';

const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));

t.test('within the budget a key reads at once, back to back', async (t) => {
  const turn = takeTurns(60_000);
  const order: string[] = [];
  setImmediate(() => order.push('immediate'));
  await Promise.all(['a1', 'a2', 'a3'].map((name) => turn('a', async () => order.push(name))));
  t.same(order, ['a1', 'a2', 'a3'], 'no read waited for the loop');
});

t.test("past its budget a key waits for a later iteration; other keys' reads do not", async (t) => {
  const turn = takeTurns(0);
  const order: string[] = [];
  const reads = [
    turn('a', async () => order.push('a1')),
    turn('a', async () => order.push('a2')),
    turn('b', async () => order.push('b1')),
  ];
  // Queued once a1 has run: a2 runs after it, in a later iteration.
  await Promise.resolve();
  setImmediate(() => order.push('next iteration'));
  await Promise.all(reads);
  t.same(order, ['a1', 'b1', 'next iteration', 'a2']);
  // Every read ran through: nothing is left waiting, and the key reads at once again two iterations on.
  await immediate();
  await immediate();
  order.length = 0;
  setImmediate(() => order.push('immediate'));
  await turn('a', async () => order.push('a3'));
  t.same(order, ['a3']);
});

t.test('a failed read is spent like any other and fails only its caller', async (t) => {
  const turn = takeTurns(0);
  await t.rejects(
    turn('a', async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  t.equal(await turn('a', async () => 'after'), 'after');
});
