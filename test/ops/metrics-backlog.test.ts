// /metrics shows the backlog of scheduled domain checks: what a large import has queued and how
// fast it drains (dommon_check_backlog{kind, state}).
import t from 'tap';
import fs from 'node:fs';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/index.js';
import { createApp } from '../../src/app.js';
import { OFFLINE_ENV, tempDir } from '../support/app.js';
import { parseExposition } from '../support/prometheus.js';

t.test('dommon_check_backlog counts due and never-checked registration and security checks', async (t) => {
  const dataDir = tempDir();
  // Built, not started: no worker drains the queue while the test looks at it.
  const app = await createApp(loadConfig({ dataDir, port: 0 }, { DOMMON_LOG_LEVEL: 'error', ...OFFLINE_ENV }), {
    log: pino({ level: 'silent' }),
  });
  t.teardown(async () => {
    await app.store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const { team_id } = await app.services.access.createToken({ team: 'import' });
  const domains = [];
  for (let i = 0; i < 5; i++)
    domains.push(await app.services.domains.create(team_id, { domain: `import-${i}.example` } as never));
  const scrape = async () => parseExposition((await app.metrics.render()).body);

  const m = await scrape();
  t.equal(m.types.get('dommon_check_backlog'), 'gauge');
  for (const kind of ['registration', 'security']) {
    t.equal(m.value('dommon_check_backlog', { kind, state: 'due' }), 5, `${kind}: five due at once after an import`);
    t.equal(m.value('dommon_check_backlog', { kind, state: 'never_checked' }), 5);
  }

  // Two registration checks done (next run a day on), one more pushed into the future unchecked.
  const now = new Date();
  const tomorrow = new Date(now.getTime() + 86_400_000).toISOString();
  await app.store.schedule.done('registration', domains[0]!.id, {
    at: now.toISOString(),
    next: tomorrow,
    outcome: 'ok',
  });
  await app.store.schedule.done('registration', domains[1]!.id, {
    at: now.toISOString(),
    next: tomorrow,
    outcome: 'ok',
  });
  await app.store.schedule.dueAt('registration', domains[2]!.id, tomorrow);
  const m2 = await scrape();
  t.equal(m2.value('dommon_check_backlog', { kind: 'registration', state: 'due' }), 2);
  t.equal(m2.value('dommon_check_backlog', { kind: 'registration', state: 'never_checked' }), 3);
  t.equal(m2.value('dommon_check_backlog', { kind: 'security', state: 'due' }), 5, 'the other kind is counted apart');

  await app.services.domains.remove(team_id, domains[4]!.id);
  const m3 = await scrape();
  t.equal(m3.value('dommon_check_backlog', { kind: 'security', state: 'due' }), 4, 'a deleted domain leaves the queue');
});
