// Push (heartbeat) endpoints through the real app: a cron job simulated with pings that come in time,
// fail, come late or never come, over Healthchecks.io's ping URLs; the state and the down/recovery
// events follow, once per transition. test/pg/api-push.test.ts runs it again on PostgreSQL.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { waitFor } from '../support/wait.js';
import { createRetentionService } from '../../src/services/retention.js';
import type { PingKind } from '../../src/domain/push.js';

// Real time: periods and grace times of seconds, waited out.
t.setTimeout(120_000);

async function ping(url: string, body?: string): Promise<{ status: number; text: string }> {
  const r = await fetch(url, body === undefined ? {} : { method: 'POST', body });
  return { status: r.status, text: await r.text() };
}

t.test('a cron job pinging in time, failing, late and never', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('push'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const created = await api.post('/api/v1/endpoints', {
    domain_id: domain.id,
    name: 'backup',
    endpoint_type: 'push',
    subdomain: 'db',
    period_seconds: 2,
    grace_seconds: 1,
  });
  t.equal(created.status, 201);
  const ep = created.body;
  t.equal(ep.full_url, 'push://db.example.com');
  t.match(ep.ping_url, new RegExp(`^${s.url}/ping/[0-9a-f-]{36}$`));
  t.equal(ep.ping_url, `${s.url}/ping/${ep.ping_key}`);
  t.same([ep.period_seconds, ep.grace_seconds, ep.schedule, ep.tz], [2, 1, null, null], "the type's fields, flat");
  t.ok(ep.liveness?.id, 'a push endpoint gets its liveness configuration');
  const status = async () => (await api.get(`/api/v1/liveness/${ep.liveness.id}/status`)).body;
  const events = async () =>
    (await api.get(`/api/v1/events?endpoint_id=${ep.id}&event_type=liveness`)).body.events as {
      category: string;
      message: string;
    }[];

  // Unknown keys and actions answer as Healthchecks.io does.
  t.same(await ping(`${s.url}/ping/00000000-0000-4000-8000-000000000000`), { status: 404, text: 'not found' });
  t.same(await ping(`${ep.ping_url}/256`), { status: 404, text: 'not found' });
  t.same(await ping(`${ep.ping_url}/nope`), { status: 404, text: 'not found' });
  t.same(await ping(`${s.url}/ping/short`), { status: 404, text: 'not found' });
  // A path below /ping/ that is no ping URL (an over-long action, more segments) is the same plain 404,
  // whatever its body: never the JSON API's body parser or error body.
  for (const path of [`${ep.ping_url}/${'x'.repeat(40)}`, `${ep.ping_url}/start/more`]) {
    const r = await fetch(path, { method: 'POST', body: '{"a":', headers: { 'content-type': 'application/json' } });
    t.same(
      [r.status, r.headers.get('content-type'), await r.text()],
      [404, 'text/plain; charset=utf-8', 'not found'],
      path,
    );
  }

  // A run: start, then success 300 ms later: up at once, with the run's duration.
  t.same(await ping(`${ep.ping_url}/start`), { status: 200, text: 'OK' });
  await new Promise((r) => setTimeout(r, 300));
  t.same(await ping(ep.ping_url), { status: 200, text: 'OK' });
  t.equal((await status()).status, 'up');
  const run = (await api.get(`/api/v1/endpoints/${ep.id}/pings`)).body;
  t.equal(run.ping_url, ep.ping_url);
  t.same(
    run.pings.map((p: { kind: string }) => p.kind),
    ['success', 'start'],
  );
  const took = run.pings[0].duration_ms;
  t.ok(took >= 300 && took < 5000, `the run took ${took} ms (start to success)`);

  // A failure with its output as the body (POST): down at once, one event naming the failure.
  t.same(await ping(`${ep.ping_url}/fail`, 'disk full\n'), { status: 200, text: 'OK' });
  const down = await status();
  t.equal(down.status, 'down');
  t.match(down.last_error, /^failed: the job reported a failure/);
  // A second failure (exit status 3) changes nothing more: still one down event.
  t.same(await ping(`${ep.ping_url}/3`, 'still full'), { status: 200, text: 'OK' });
  t.equal((await events()).filter((e) => e.category === 'endpoint_down').length, 1);
  // The body is the run's log, kept up to 100,000 bytes (its full size counted).
  t.same(await ping(`${ep.ping_url}/1`, 'x'.repeat(150_000)), { status: 200, text: 'OK' });
  const [big, three, fail] = (await api.get(`/api/v1/endpoints/${ep.id}/pings?limit=3`)).body.pings;
  t.same([big.kind, big.exit_status, big.body.length, big.body_bytes], ['fail', 1, 100_000, 150_000]);
  t.same([three.kind, three.exit_status, three.body], ['fail', 3, 'still full']);
  t.same([fail.kind, fail.exit_status, fail.body], ['fail', null, 'disk full\n']);

  // Success by exit status 0: up again, one recovery.
  t.same(await ping(`${ep.ping_url}/0`), { status: 200, text: 'OK' });
  t.equal((await status()).status, 'up');
  t.equal((await events()).filter((e) => e.category === 'endpoint_recovered').length, 1);

  // Pinged every second for a while: stays up past several periods.
  let stopped = 0;
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    stopped = Date.now();
    t.equal((await ping(ep.ping_url)).status, 200);
  }
  t.equal((await status()).status, 'up', 'pings in time keep it up');
  t.equal((await events()).filter((e) => e.category === 'endpoint_down').length, 1);

  // Then the job stops: down once the period and the grace time have passed since the last ping
  // (timed from when it was sent: the reads above may take a while on a loaded machine).
  const late = await waitFor(async () => {
    const b = await status();
    return b.status === 'down' && b;
  }, 15_000);
  const after = Date.now() - stopped;
  t.ok(after >= 2500, `down ${after} ms after the last ping (period 2 s + grace 1 s)`);
  t.match(late.last_error, /^late: no ping since .*: one was expected by/);
  const downs = (await events()).filter((e) => e.category === 'endpoint_down');
  t.equal(downs.length, 2, 'one more down event');
  t.match(downs[0]!.message, /backup \(push:\/\/db\.example\.com\) is DOWN/);

  // A log ping changes nothing; a start that never finishes is down after the grace time.
  t.same(await ping(`${ep.ping_url}/log`, 'hello'), { status: 200, text: 'OK' });
  t.equal((await status()).status, 'down');
  t.same(await ping(ep.ping_url), { status: 200, text: 'OK' });
  t.equal((await status()).status, 'up');
  t.same(await ping(`${ep.ping_url}/start`), { status: 200, text: 'OK' });
  const hung = await waitFor(async () => {
    const b = await status();
    return b.status === 'down' && b;
  }, 15_000);
  t.match(hung.last_error, /^late: the run started at .* did not finish within 1 s/);
});

t.test('a ping while a check of the same config is in flight yields no stale result', async (t) => {
  // Late, the check runs every second and its result waits for the results batch (1 s on SQLite, 3 s
  // on PostgreSQL): a success ping mostly comes while one is in flight. The ping revokes that run's
  // lease, so its "down", computed before the ping, is not written after the recovery (a second down
  // event). The next deadline is 5 s after the ping: no down before it. Three jobs, three rounds each.
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('push'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.edu' })).body;
  const jobs = [];
  for (const name of ['a', 'b', 'c'])
    jobs.push(
      (
        await api.post('/api/v1/endpoints', {
          domain_id: domain.id,
          name,
          endpoint_type: 'push',
          period_seconds: 1,
          grace_seconds: 4,
        })
      ).body as { id: string; ping_url: string; liveness: { id: string } },
    );
  const ROUNDS = 3;
  const pinged = await Promise.all(
    jobs.map(async (ep, j) => {
      const at: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        await waitFor(
          async () => (await api.get(`/api/v1/liveness/${ep.liveness.id}/status`)).body.status === 'down',
          20_000,
        );
        // A few checks while late, the last one's result in flight or not (the phases differ per job).
        await new Promise((r) => setTimeout(r, 1200 + 250 * j));
        at.push(Date.now());
        t.equal((await ping(ep.ping_url)).status, 200);
      }
      return at;
    }),
  );
  // Past the slowest batch (PostgreSQL's 3 s) after the last ping, inside its 5 s to the deadline.
  await new Promise((r) => setTimeout(r, 3500));
  for (const [j, ep] of jobs.entries()) {
    const events = (await api.get(`/api/v1/events?endpoint_id=${ep.id}&event_type=liveness`)).body.events as {
      category: string;
      created_at: string;
    }[];
    const recovered = events.filter((e) => e.category === 'endpoint_recovered');
    t.equal(recovered.length, ROUNDS, 'each ping recovered it once');
    const stale = events.filter(
      (e) =>
        e.category === 'endpoint_down' &&
        pinged[j]!.some((at) => Date.parse(e.created_at) >= at && Date.parse(e.created_at) < at + 4000),
    );
    t.same(stale, [], 'no down event within 4 s after a ping (its deadline is 5 s after it)');
  }
});

t.test('a job that never pings is down one period and grace after its creation', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('push'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.org' })).body;
  const t0 = Date.now();
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: domain.id,
      name: 'nightly',
      endpoint_type: 'push',
      period_seconds: 1,
      grace_seconds: 1,
    })
  ).body;
  const down = await waitFor(async () => {
    const b = (await api.get(`/api/v1/liveness/${ep.liveness.id}/status`)).body;
    return b.status === 'down' && b;
  }, 15_000);
  t.ok(Date.now() - t0 >= 1900, 'not before period + grace');
  t.match(down.last_error, /^late: no ping yet: one was expected by/);
});

t.test('push settings are checked', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('push'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.net' })).body;
  const make = (name: string, extra: Record<string, unknown>) =>
    api.post('/api/v1/endpoints', { domain_id: domain.id, name, ...extra });
  const bad = await make('a', { endpoint_type: 'push', schedule: 'not a cron line' });
  t.equal(bad.status, 400);
  t.match(bad.body.error, /^schedule: /);
  t.equal((await make('b', { endpoint_type: 'push', schedule: '0 3 * * *', tz: 'Mars/Olympus' })).status, 400);
  t.equal((await make('b', { endpoint_type: 'push', tz: 'Europe/Berlin' })).status, 400, 'a zone needs a schedule');
  const http = await make('h', { endpoint_type: 'http' });
  t.equal((await api.get(`/api/v1/endpoints/${http.body.id}/pings`)).status, 404, 'no pings for an http endpoint');
  t.equal((await make('c', { endpoint_type: 'http', period_seconds: 60 })).status, 400);
  const cron = await make('d', { endpoint_type: 'push', schedule: '0 3 * * *', tz: 'Europe/Berlin' });
  t.equal(cron.status, 201);
  t.same([cron.body.schedule, cron.body.tz, cron.body.grace_seconds], ['0 3 * * *', 'Europe/Berlin', 3600]);
  // The fields change by an update, checked the same way.
  const moved = await api.put(`/api/v1/endpoints/${cron.body.id}`, { schedule: '15 4 * * 1-5', grace_seconds: 600 });
  t.same([moved.status, moved.body.schedule, moved.body.grace_seconds], [200, '15 4 * * 1-5', 600]);
  t.equal((await api.put(`/api/v1/endpoints/${cron.body.id}`, { schedule: '99 * * * *' })).status, 400);
  // A push endpoint stays one.
  t.equal((await api.put(`/api/v1/endpoints/${cron.body.id}`, { endpoint_type: 'https' })).status, 400);
});

t.test('pings are pruned as results are, in bounded batches; the last start and finish stay', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('push'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.net' })).body;
  const make = async (name: string) =>
    (
      await api.post('/api/v1/endpoints', {
        domain_id: domain.id,
        name,
        endpoint_type: 'push',
        period_seconds: 2_592_000,
      })
    ).body.id as string;
  const [hourly, monthly] = [await make('hourly'), await make('monthly')];
  const now = Date.now();
  const DAY = 86_400_000;
  const add = (id: string, kind: PingKind, daysAgo: number, n = 0) =>
    s.app.store.push.addPing(id, {
      kind,
      at: now - daysAgo * DAY + n,
      exit_status: null,
      duration_ms: null,
      body: kind === 'log' ? 'note' : null,
      body_bytes: kind === 'log' ? 4 : 0,
    });
  // The hourly job: 10 old runs (start + success) and 3 log pings, 2 fails, then recent runs.
  for (let i = 0; i < 10; i++) {
    await add(hourly, 'start', 20 - i);
    await add(hourly, 'success', 20 - i, 1000);
  }
  for (let i = 0; i < 3; i++) await add(hourly, 'log', 15 + i);
  for (let i = 0; i < 2; i++) await add(hourly, 'fail', 12 + i);
  for (let i = 0; i < 3; i++) {
    await add(hourly, 'start', 3 - i);
    await add(hourly, 'success', 3 - i, 1000);
  }
  // The monthly job ran 20 days ago, and once before: its last start and finish are older than
  // the results' window, and its check judges by them.
  await add(monthly, 'start', 50);
  await add(monthly, 'success', 50, 1000);
  await add(monthly, 'start', 20);
  await add(monthly, 'fail', 20, 1000);
  const kinds = async (id: string) =>
    ((await api.get(`/api/v1/endpoints/${id}/pings?limit=100`)).body.pings as { kind: string; at: string }[]).map(
      (p) => `${p.kind}@${Math.round((now - Date.parse(p.at)) / DAY)}`,
    );

  const retention = createRetentionService({
    store: s.app.store,
    clock: { now: () => new Date(now) },
    resultRetentionDays: 7,
    batchSize: 4,
  });
  const report = await retention.runOnce();
  t.equal(report.deleted.push_pings, 10 + 10 + 3 + 2 + 2, 'every old ping but the monthly job last run');
  t.same(await kinds(hourly), ['success@1', 'start@1', 'success@2', 'start@2', 'success@3', 'start@3']);
  t.same(await kinds(monthly), ['fail@20', 'start@20'], 'the last start and finish stay, however old');
  t.ok(report.batches >= 5 + 2, 'the 10 old starts went in batches of at most 4');
  const again = await retention.runOnce();
  t.equal(again.deleted.push_pings, 0);
});

t.test('DOMMON_PUBLIC_URL: ping URLs are written on it, not on the address the request came to', async (t) => {
  const s = await startApp({ DOMMON_RATE_LIMIT: '1000000', DOMMON_PUBLIC_URL: 'https://dommon.example.com/monitor/' });
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('push'));
  const domain = (await api.post('/api/v1/domains', { domain: 'example.org' })).body;
  const ep = (await api.post('/api/v1/endpoints', { domain_id: domain.id, name: 'job', endpoint_type: 'push' })).body;
  t.equal(ep.ping_url, `https://dommon.example.com/monitor/ping/${ep.ping_key}`);
  t.equal((await api.get(`/api/v1/endpoints/${ep.id}/pings`)).body.ping_url, ep.ping_url);
  const bulk = await api.post('/api/v1/endpoints/bulk', {
    endpoints: [{ domain_id: domain.id, name: 'job2', endpoint_type: 'push' }],
  });
  t.match(bulk.body.data[0].ping_url, /^https:\/\/dommon\.example\.com\/monitor\/ping\/[0-9a-f-]{36}$/);
  // The key is what finds the endpoint: a ping on the daemon's own address still counts.
  t.equal((await fetch(`${s.url}/ping/${ep.ping_key}`)).status, 200);
});
