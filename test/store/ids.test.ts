// Row ids are UUIDv7 (RFC 9562): they still read as UUIDs to every client, and consecutive ids sort
// in creation order, which is what keeps new index entries on the last page of each id index.
import t from 'tap';
import { newId } from '../../src/store/repos/util.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('newId: version 7, RFC variant, unique and increasing', async (t) => {
  const before = Date.now();
  const ids = Array.from({ length: 10_000 }, () => newId());
  const after = Date.now();
  t.equal(ids.filter((id) => !V7.test(id)).length, 0, 'every id is a version-7 UUID');
  t.equal(new Set(ids).size, ids.length, 'no duplicates');
  // Many fall in the same millisecond: the generator's counter still orders them.
  t.equal(
    ids.findIndex((id, i) => i > 0 && id <= ids[i - 1]!),
    -1,
    'each id sorts after the one before it',
  );
  // The first 48 bits are the creation time in milliseconds.
  const ms = parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16);
  t.ok(ms >= before && ms <= after, `timestamp ${ms} within [${before}, ${after}]`);
});

t.test('randomBytesPooled: fresh bytes on every draw, across refills of the pool', async (t) => {
  const { randomBytesPooled } = await import('../../src/platform/random.js');
  // 1,000 draws of 16 bytes cross the 4 KiB pool's refill three times.
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) seen.add(randomBytesPooled(16).toString('hex'));
  t.equal(seen.size, 1000, 'no draw repeats another');
  const big = randomBytesPooled(4096);
  t.equal(big.length, 4096);
  t.ok(new Set(big).size > 200, 'a whole pool of bytes takes most of the 256 values');
  t.throws(() => randomBytesPooled(0), RangeError);
  t.throws(() => randomBytesPooled(4097), RangeError);
});
