// domains.chunks(): every domain exactly once, in (team, created_at, id) order, across chunk edges
// where many rows share a created_at; the unverified and exposure filters.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../support/app.js';
import { domainRow } from '../support/rows.js';

t.test('chunks walk every domain once, in index order, with filters', async (t) => {
  const dir = tempDir();
  const store = await openStore(path.join(dir, 'dommon.db'));
  t.teardown(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const teams = [
    await store.teams.create('a', '2026-01-01T00:00:00.000Z'),
    await store.teams.create('b', '2026-01-01T00:00:00.000Z'),
  ];
  const made: { id: string; team: string; created: string; verified: boolean; exposure: boolean }[] = [];
  await store.transaction(async (tx) => {
    for (let i = 0; i < 257; i++) {
      const team = teams[i % 2]!.id;
      // Only three distinct times: chunk edges fall inside runs of equal created_at.
      const created = `2026-01-0${1 + (i % 3)}T00:00:00.000Z`;
      const verified = i % 5 === 0;
      const exposure = verified && i % 10 === 0;
      const id = crypto.randomUUID();
      made.push({ id, team, created, verified, exposure });
      await tx.domains.insert(
        domainRow(
          { id, team_id: team, domain: `d${i}.example.com`, token: `dommon-verify-${i}`, at: created },
          { is_verified: verified, exposure_monitoring_enabled: exposure },
        ),
      );
    }
  });
  const order = [...made].sort((x, y) =>
    x.team < y.team
      ? -1
      : x.team > y.team
        ? 1
        : x.created < y.created
          ? -1
          : x.created > y.created
            ? 1
            : x.id < y.id
              ? -1
              : 1,
  );
  const walk = async (size: number, only?: 'unverified' | 'exposure') => {
    const sizes: number[] = [];
    const ids: string[] = [];
    for await (const c of store.domains.chunks(size, only)) {
      sizes.push(c.length);
      ids.push(...c.map((d) => d.id));
    }
    return { sizes, ids };
  };
  const all = await walk(20);
  t.same(
    all.ids,
    order.map((m) => m.id),
    'all 257, each once, in (team, created_at, id) order',
  );
  t.same(all.sizes, [...Array(12).fill(20), 17]);
  t.same((await walk(257)).sizes, [257], 'an exact fit: one chunk, no empty one after');
  t.same((await walk(1000)).ids.length, 257);
  const unverified = await walk(7, 'unverified');
  t.same(
    unverified.ids,
    order.filter((m) => !m.verified).map((m) => m.id),
  );
  const exposure = await walk(3, 'exposure');
  t.same(
    exposure.ids,
    order.filter((m) => m.exposure).map((m) => m.id),
  );
  t.ok(exposure.ids.length > 3, `several chunks of exposure domains (${exposure.ids.length})`);
  const inTx = await store.transaction(async (tx) => {
    const out: number[] = [];
    for await (const c of tx.domains.chunks(10, 'exposure')) out.push(c.length);
    return out;
  });
  t.ok(inTx.length > 0, 'also inside a transaction');
});
