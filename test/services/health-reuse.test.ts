// A recompute whose cause is not liveness (registration, DNS security, verification) reuses the
// domain's liveness input read in the last minute; one whose cause is liveness reads it afresh, and
// a read inside a transaction (which may roll back) is never reused.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { openStore } from '../../src/store/index.js';
import { createServices } from '../../src/services/index.js';
import type { Clock } from '../../src/domain/clock.js';
import { tempDir } from '../support/app.js';
import { noExposure } from '../support/no-exposure.js';

t.test('intelligence recomputes reuse the liveness input for a minute; liveness causes read it', async (t) => {
  const dir = tempDir('dommon-health-reuse-');
  let now = Date.UTC(2026, 0, 1, 12);
  const clock: Clock = { now: () => new Date(now) };
  const store = await openStore(path.join(dir, 'dommon.db'));
  t.teardown(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const services = createServices({
    store,
    clock,
    limits: { maxDomains: null, maxEndpoints: null },
    exposure: noExposure(),
  });
  const { team_id: teamId } = await services.access.createToken({ team: 'health' });
  const domain = await services.domains.create(teamId, { domain: 'example.com' });
  const configs: string[] = [];
  for (let i = 0; i < 3; i++) {
    const ep = await services.endpoints.create(teamId, {
      domain_id: domain.id,
      name: `ep${i}`,
      endpoint_type: 'https',
      subdomain: `s${i}`,
    });
    configs.push((await services.liveness.create(teamId, { endpoint_id: ep.id })).id);
  }
  // Counts the liveness-input reads of the real repository.
  let reads = 0;
  const real = store.livenessData.healthInputs.bind(store.livenessData);
  store.livenessData.healthInputs = (...a) => {
    reads++;
    return real(...a);
  };
  const state = (status: 'up' | 'down') => ({
    status,
    consecutive_failures: status === 'down' ? 3 : 0,
    last_check: new Date(now).toISOString(),
    last_check_successful: status === 'up',
    response_time_ms: 5,
    status_code: 200,
    last_error: null,
    alerted_down: false,
  });
  for (const id of configs) await store.livenessData.saveState(id, state('up'));

  const { health } = services.intel;
  const up = await health.recompute(store, domain.id);
  t.equal(reads, 1, 'a liveness cause reads');
  for (let i = 0; i < 5; i++) t.same(await health.recomputeNotLiveness(store, domain.id), up);
  t.equal(reads, 1, 'five intelligence recomputes within the minute read nothing more');

  // A liveness flip recomputed by the monitor (outside a transaction) reads, and is what the next reuse sees.
  await store.livenessData.saveState(configs[0]!, state('down'));
  const down = await health.recompute(store, domain.id);
  t.equal(reads, 2);
  t.not(down?.score, up?.score, 'the down endpoint moved the score');
  t.same(await health.recomputeNotLiveness(store, domain.id), down, 'reuse carries the fresh input');
  t.equal(reads, 2);

  // A recompute inside a transaction reads (through the transaction's own repositories, not counted
  // here) and drops what was kept: its writes may roll back.
  await store
    .transaction(async (tx) => {
      await tx.livenessData.saveState(configs[1]!, state('down'));
      await health.recompute(tx, domain.id);
      throw new Error('rolled back');
    })
    .catch(() => undefined);
  t.equal(reads, 2);
  t.same(await health.recomputeNotLiveness(store, domain.id), down, 'the rolled-back state is not used');
  t.equal(reads, 3, 'after a transaction the input is read again');

  // Past a minute it is read again.
  now += 61_000;
  await health.recomputeNotLiveness(store, domain.id);
  t.equal(reads, 4);
  await health.recomputeNotLiveness(store, domain.id);
  t.equal(reads, 4);
});
