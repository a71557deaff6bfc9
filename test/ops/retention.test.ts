import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { openStore } from '../../src/store/index.js';
import { createServices } from '../../src/services/index.js';
import { createRetentionService, RETENTION_WINDOWS } from '../../src/services/retention.js';
import type { Clock } from '../../src/domain/clock.js';
import { tempDir } from '../support/app.js';
import { noExposure } from '../support/no-exposure.js';

// Child processes and real peers: slower than tap's 30 s per file when the machine is busy.
t.setTimeout(180_000);

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

async function setup(t: { teardown(fn: () => unknown): void }, configs = 4) {
  const dir = tempDir('dommon-retention-');
  const file = path.join(dir, 'dommon.db');
  let now = START;
  const clock: Clock = { now: () => new Date(now) };
  const store = await openStore(file);
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
  const { team_id: teamId } = await services.access.createToken({ team: 'ops' });
  const domain = await services.domains.create(teamId, { domain: 'example.com' });
  const seqs: number[] = [];
  for (let i = 0; i < configs; i++) {
    const ep = await services.endpoints.create(teamId, {
      domain_id: domain.id,
      name: `ep${i}`,
      endpoint_type: 'https',
      subdomain: `s${i}`,
    });
    seqs.push((await services.liveness.create(teamId, { endpoint_id: ep.id, interval_seconds: 120 })).seq);
  }
  return {
    dir,
    file,
    store,
    services,
    teamId,
    seqs,
    clock,
    setNow: (ms: number) => {
      now = ms;
    },
    getNow: () => now,
  };
}

/** One day of raw results every `everySec` seconds for each configuration, from `dayStart`. */
async function writeDay(
  store: Awaited<ReturnType<typeof openStore>>,
  seqs: number[],
  dayStart: number,
  everySec: number,
) {
  const rows: { cfg: number; ts: number; ok: number; ms: number; status: number | null; error: string | null }[] = [];
  for (const cfg of seqs) {
    for (let ts = dayStart; ts < dayStart + DAY; ts += everySec * 1000) {
      const ok = (ts / 1000) % 7 !== 0;
      rows.push({
        cfg,
        ts,
        ok: ok ? 1 : 0,
        ms: 20 + (ts % 97),
        status: ok ? 200 : null,
        error: ok ? null : 'connect ECONNREFUSED 127.0.0.1:443',
      });
    }
  }
  for (let i = 0; i < rows.length; i += 400)
    await store.db
      .insertInto('liveness_results')
      .values(rows.slice(i, i + 400))
      .execute();
  return rows.length;
}

const fileBytes = (file: string) =>
  ['', '-wal'].reduce((n, s) => n + (fs.existsSync(file + s) ? fs.statSync(file + s).size : 0), 0);

t.test(
  'with an injected clock, day after day of results: raw rows stay within the window and the file levels off',
  async (t) => {
    const ctx = await setup(t, 2);
    const retention = createRetentionService({
      store: ctx.store,
      clock: ctx.clock,
      resultRetentionDays: 7,
      batchSize: 500,
    });
    t.equal(await ctx.store.retention.autoVacuumMode(), 2, 'new databases use incremental auto-vacuum');
    const sizes: number[] = [];
    const dbSizes: number[] = [];
    let written = 0;
    const DAYS = 30;
    for (let d = 0; d < DAYS; d++) {
      written += await writeDay(ctx.store, ctx.seqs, START + d * DAY, 120);
      ctx.setNow(START + (d + 1) * DAY);
      const report = await retention.runOnce();
      if (d >= 8) t.ok(report.deleted.liveness_results > 0, `day ${d}: old results deleted`);
      t.equal(await ctx.store.retention.freePages(), 0, `day ${d}: no free pages left after the incremental vacuum`);
      sizes.push(fileBytes(ctx.file));
      dbSizes.push(fs.statSync(ctx.file).size);
    }
    const { n } = await ctx.store.db
      .selectFrom('liveness_results')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const perDay = ctx.seqs.length * 720;
    t.equal(written, DAYS * perDay);
    t.equal(Number(n), 7 * perDay, 'exactly the last 7 days of raw results are kept');
    const { oldest } = await ctx.store.db
      .selectFrom('liveness_results')
      .select((e) => e.fn.min<number>('ts').as('oldest'))
      .executeTakeFirstOrThrow();
    t.equal(Number(oldest), START + (DAYS - 7) * DAY);

    const kib = (list: number[]) => list.map((s) => Math.round(s / 1024)).join(' ');
    t.comment(`database file by day, KiB: ${kib(dbSizes)}`);
    t.comment(`database + WAL by day, KiB: ${kib(sizes)}`);
    const growth = dbSizes[8]! - dbSizes[0]!;
    t.ok(growth > 7 * perDay * 20, `the file grows while the window fills (${growth} B in 8 days)`);
    const plateau = dbSizes[10]!;
    const after = Math.max(...dbSizes.slice(10));
    t.ok(
      after - plateau < growth / 8,
      `then levels off: day 10 ${plateau} B, largest after ${after} B (less than one day of growth)`,
    );
    t.ok(Math.max(...sizes.slice(10)) <= sizes[10]! * 1.1, 'the WAL stays bounded too');

    // Stop writing: once everything ages out the file shrinks (freed pages go back to the file system).
    ctx.setNow(START + (DAYS + 8) * DAY);
    const final = await retention.runOnce();
    t.equal(final.deleted.liveness_results, 7 * perDay);
    t.ok(final.freed_pages > 50, `freed ${final.freed_pages} pages`);
    const bytes = fs.statSync(ctx.file).size;
    t.ok(bytes < dbSizes[0]!, `the file shrank to ${bytes} B, below its size after the first day (${dbSizes[0]} B)`);
  },
);

t.test('retention runs in batches and lets probe writes through while it works', async (t) => {
  const ctx = await setup(t, 2);
  for (let d = 0; d < 3; d++) await writeDay(ctx.store, ctx.seqs, START + d * DAY, 30);
  ctx.setNow(START + 40 * DAY);
  const retention = createRetentionService({
    store: ctx.store,
    clock: ctx.clock,
    resultRetentionDays: 30,
    batchSize: 500,
  });
  const [target] = await ctx.services.monitor.targets();
  let recorded = 0;
  let done = false;
  const run = retention.runOnce().finally(() => {
    done = true;
  });
  // A probe writer: one recorded outcome after another, as the scheduler does.
  const writer = (async () => {
    let ts = START + 40 * DAY;
    while (!done) {
      await ctx.services.monitor.record([
        { ...target!, outcome: { ok: true, responseTimeMs: 5, statusCode: 200, error: null }, at: ts++ },
      ]);
      recorded++;
      // A real probe waits on the network between results.
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const report = await run;
  await writer;
  t.equal(report.deleted.liveness_results, 3 * 2 * 2880);
  t.ok(report.batches > 20, `${report.batches} batches`);
  t.ok(recorded > 5, `${recorded} probe writes went through during the run`);
  const kept = await ctx.store.db
    .selectFrom('liveness_results')
    .select((e) => e.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  t.equal(Number(kept.n), recorded, 'only the new results remain');
});

t.test('delivery logs, fanned-out events, history: each window, and pending work is kept', async (t) => {
  const ctx = await setup(t, 1);
  const now = START + 1000 * DAY;
  ctx.setNow(now);
  const ago = (days: number) => new Date(now - days * DAY).toISOString();
  const db = ctx.store.db;
  const domainId = (await db.selectFrom('domains').select('id').executeTakeFirstOrThrow()).id;
  const endpointId = (await db.selectFrom('endpoints').select('id').executeTakeFirstOrThrow()).id;
  const event = async (id: string, created: string, fanned: boolean, dedupe: string | null = null) =>
    db
      .insertInto('events')
      .values({
        id,
        team_id: ctx.teamId,
        event_type: 'liveness',
        severity: 'high',
        message: 'm',
        details: '{}',
        created_at: created,
        fanned_out_at: fanned ? created : null,
        dedupe_key: dedupe,
      })
      .execute();
  const delivery = async (id: string, eventId: string | null, created: string, status: string) => {
    await db
      .insertInto('deliveries')
      .values({
        id,
        team_id: ctx.teamId,
        event_id: eventId,
        channel: 'webhook',
        status,
        attempts: 1,
        lease_token: 0,
        next_attempt_at: created,
        created_at: created,
        request: '{}',
        is_test: 0,
      })
      .execute();
    await db
      .insertInto('delivery_attempts')
      .values({
        id: `${id}-a1`,
        delivery_id: id,
        attempt: 1,
        at: created,
        outcome: status === 'success' ? 'success' : 'transient',
      })
      .execute();
  };
  await event('e-old', ago(100), true);
  await event('e-old-pending', ago(100), true);
  await event('e-old-unfanned', ago(100), false);
  await event('e-old-dedupe', ago(100), true, 'cert:30');
  await event('e-very-old-dedupe', ago(500), true, 'cert:7');
  await event('e-new', ago(10), true);
  await delivery('d-old-success', 'e-old', ago(100), 'success');
  await delivery('d-old-failed', null, ago(95), 'failed');
  await delivery('d-old-queued', 'e-old-pending', ago(100), 'queued');
  await delivery('d-old-partial', null, ago(100), 'partial');
  await delivery('d-new', 'e-new', ago(10), 'success');
  for (const [id, days] of [
    ['h-old', 800],
    ['h-new', 100],
  ] as const) {
    await db
      .insertInto('registration_history')
      .values({ id, domain_id: domainId, field: 'registrar', old_value: 'a', new_value: 'b', observed_at: ago(days) })
      .execute();
    await db
      .insertInto('certificate_history')
      .values({ id, endpoint_id: endpointId, fingerprint256: id, first_seen: ago(days + 90), last_seen: ago(days) })
      .execute();
  }
  // Audit entries: one past the window given (kept 200 days here), one inside it.
  for (const [id, days] of [
    ['a-old', 201],
    ['a-new', 199],
  ] as const)
    await db
      .insertInto('audit_log')
      .values({
        id,
        team_id: ctx.teamId,
        at: ago(days),
        via: 'token',
        action: 'update',
        object_kind: 'domain',
        object_id: domainId,
      })
      .execute();
  // TLS schedule rows of an endpoint that is gone, and of one still served (kept).
  for (const target of ['gone-endpoint', endpointId])
    await db
      .insertInto('check_schedule')
      .values({ kind: 'tls', target_id: target, next_run_at: ago(1) })
      .execute();
  const retention = createRetentionService({
    store: ctx.store,
    clock: ctx.clock,
    resultRetentionDays: 30,
    auditRetentionDays: 200,
    batchSize: 2,
  });
  const report = await retention.runOnce();
  t.same(
    (await db.selectFrom('audit_log').select('id').execute()).map((r) => r.id),
    ['a-new'],
    'audit entries past DOMMON_AUDIT_RETENTION_DAYS go',
  );
  const ids = async (table: 'events' | 'deliveries' | 'registration_history' | 'certificate_history') =>
    (await db.selectFrom(table).select('id').orderBy('id').execute()).map((r) => r.id);
  t.same(
    await ids('deliveries'),
    ['d-new', 'd-old-partial', 'd-old-queued'],
    `finished deliveries older than ${RETENTION_WINDOWS.deliveryLogDays} days go`,
  );
  t.same(
    (await db.selectFrom('delivery_attempts').select('delivery_id').orderBy('delivery_id').execute()).map(
      (r) => r.delivery_id,
    ),
    ['d-new', 'd-old-partial', 'd-old-queued'],
    'attempts go with them',
  );
  t.same(
    await ids('events'),
    ['e-new', 'e-old-dedupe', 'e-old-pending', 'e-old-unfanned'],
    'fanned-out events without pending deliveries go; dedupe keys stay longer',
  );
  t.same(await ids('registration_history'), ['h-new']);
  t.same(await ids('certificate_history'), ['h-new']);
  t.same(report.deleted, {
    liveness_results: 0,
    liveness_aggregates: 0,
    deliveries: 2,
    events: 2,
    registration_history: 1,
    certificate_history: 1,
    exposure_scans: 0,
    tls_schedules: 1,
    web_sessions: 0,
    push_pings: 0,
    audit_log: 1,
  });
  t.same(
    (await db.selectFrom('check_schedule').select('target_id').where('kind', '=', 'tls').execute()).map(
      (r) => r.target_id,
    ),
    [endpointId],
  );

  t.equal(await retention.runIfDue(), null, 'not due again the same day');
  ctx.setNow(now + DAY + 1);
  t.ok(await retention.runIfDue(), 'due a day later');
  t.equal(await retention.lastRun(), new Date(now + DAY + 1).toISOString());

  // The daemon's shutdown stops a pass between batches; it does not count as done.
  const stop = new AbortController();
  stop.abort();
  ctx.setNow(now + 3 * DAY);
  const cut = await retention.runOnce(stop.signal);
  t.equal(cut.aborted, true);
  t.equal(cut.batches, 0, 'no batch after the abort');
  t.equal(
    await retention.lastRun(),
    new Date(now + DAY + 1).toISOString(),
    'an aborted pass is not recorded: it runs again at the next start',
  );
});
