// The nameserver watch in the running daemon: a real recursive resolver on 127.0.0.1 names the parent
// zone's server (127.0.0.2 on the same port, reached through DOMMON_NAMESERVER_PORT), whose delegation
// of the domain changes between rounds (the clock moved on by the interval). The first look is the
// baseline; each change of the NS or DS set reaches a real webhook receiver once, high severity, with
// before and after; a round without change and a failed look-up alert nobody (the failure is shown);
// the domain's detail answer and `dommon domains show` show the sets and when they last changed.
// A maintenance window over the domain (here its portfolio) records a change without notifying it.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { cli, ensureBuilt } from '../support/cli.js';
import { runningClock } from '../support/clock.js';
import { startDnsServer } from '../support/dns-server.js';
import { startParentDns } from '../support/parent-dns.js';
import { waitFor, sleep } from '../support/wait.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

t.setTimeout(120_000);
const ROUND_MS = 300_000;
const DIGEST = 'ab'.repeat(32);

t.test('a changed delegation alerts once per change; no alert for the baseline or a failure', async (t) => {
  const resolver = await startDnsServer({
    test: { NS: ['ns1.nic.test'] },
    'ns1.nic.test': { A: ['127.0.0.2'] },
  });
  const parent = await startParentDns({
    host: '127.0.0.2',
    port: resolver.port,
    zone: 'test',
    delegations: { 'example.test': { NS: ['ns1.example.net', 'ns2.example.net'] } },
  });
  const rx = await startWebhookReceiver();
  const clock = runningClock();
  const s = await startApp(
    { DOMMON_DNS_SERVERS: resolver.address, DOMMON_NAMESERVER_PORT: String(resolver.port) },
    { clock, notify: { intervalMs: 200 } },
  );
  t.teardown(async () => {
    await s.close();
    await rx.close();
    await parent.close();
    await resolver.close();
  });
  const token = await s.token('watch');
  const api = client(s.url, token);
  t.equal(
    (
      await api.put('/api/v1/notifications/settings/webhook', {
        delivery_class: 'instant',
        config: { webhook_url: rx.url },
      })
    ).status,
    200,
  );
  const d = (await api.post('/api/v1/domains', { domain: 'example.test' })).body;
  const delegation = async () => (await api.get(`/api/v1/domains/${d.id}`)).body.delegation;
  const nsLooks = () => parent.queries.filter((q) => q.name === 'example.test' && q.type === 'NS').length;

  // The first look, at once for a new domain: the baseline.
  const first = await waitFor(async () => (await delegation())?.checked_at && delegation(), 15_000);
  t.same(first, {
    zone: 'example.test',
    parent_zone: 'test',
    nameservers: ['ns1.example.net', 'ns2.example.net'],
    ds: [],
    checked_at: first.checked_at,
    changed_at: null,
    error: null,
    error_at: null,
  });
  t.ok(
    parent.queries.every((q) => !q.rd),
    'the parent is asked without recursion',
  );

  /**
   * Moves the clock on by one interval and waits for the next look; again every 3 s without one (a look
   * still in flight when the clock moved, as on a loaded machine, counts its next from the later time).
   */
  const nextRound = async (check: (x: any) => boolean) => {
    const before = nsLooks();
    clock.advance(ROUND_MS + 1000);
    let moved = Date.now();
    await waitFor(async () => {
      if (nsLooks() > before && check(await delegation())) return true;
      if (Date.now() - moved > 3000) {
        clock.advance(ROUND_MS + 1000);
        moved = Date.now();
      }
      return false;
    }, 15_000);
    return delegation();
  };

  // A round with nothing changed: no alert.
  const same = await nextRound((x) => x.checked_at !== first.checked_at);
  t.same(same.nameservers, first.nameservers);
  t.equal(same.changed_at, null);

  // The NS set changes: one high-severity alert with before and after.
  parent.delegations['example.test']!.NS = ['ns1.attacker.example'];
  const changed = await nextRound((x) => x.changed_at !== null);
  t.same(changed.nameservers, ['ns1.attacker.example']);
  t.equal(changed.changed_at, changed.checked_at);
  const [alert] = await rx.waitFor(1, 15_000);
  t.match(alert!.json, {
    event_type: 'delegation',
    category: 'delegation_change',
    severity: 'high',
    domain: 'example.test',
    domain_id: d.id,
    message:
      'example.test: delegation changed at the test servers: NS ns1.example.net, ns2.example.net -> ns1.attacker.example',
    details: {
      zone: 'example.test',
      parent_zone: 'test',
      nameservers: { before: ['ns1.example.net', 'ns2.example.net'], after: ['ns1.attacker.example'] },
    },
  });
  t.notOk('ds' in alert!.json.details, 'the DS set did not change');

  // The parent stops answering: a failure, shown, no alert; the last sets stand.
  parent.silent = true;
  const failed = await waitFor(
    async () => {
      clock.advance(ROUND_MS + 1000);
      await sleep(1500);
      const x = await delegation();
      return x.error ? x : null;
    },
    30_000,
    0,
  );
  t.match(failed, {
    nameservers: ['ns1.attacker.example'],
    changed_at: changed.changed_at,
    checked_at: changed.checked_at,
    error: /timeout/i,
  });

  // Back, with DS records added: the second alert, about the DS set only.
  parent.silent = false;
  parent.delegations['example.test']!.DS = [{ keyTag: 2371, algorithm: 13, digestType: 2, digest: DIGEST }];
  const withDs = await nextRound((x) => x.error === null && x.ds?.length === 1);
  t.same(withDs.ds, [`2371 13 2 ${DIGEST.toUpperCase()}`]);
  const [, second] = await rx.waitFor(2, 15_000);
  t.match(second!.json, {
    event_type: 'delegation',
    severity: 'high',
    details: { ds: { before: [], after: [`2371 13 2 ${DIGEST.toUpperCase()}`] } },
  });
  t.notOk('nameservers' in second!.json.details);

  // One more round without a change, then the notification worker has had its time: still two alerts.
  await nextRound((x) => x.checked_at !== withDs.checked_at);
  await sleep(1000);
  t.equal(rx.requests.length, 2, 'one alert per change');
  const events = (await api.get(`/api/v1/events?event_type=delegation&domain_id=${d.id}`)).body;
  t.equal(events.total, 2);

  // The command line shows the same, from the same answer.
  await ensureBuilt();
  const shown = await cli(['domains', 'show', 'example.test'], { env: { DOMMON_URL: s.url, DOMMON_TOKEN: token } });
  t.equal(shown.code, 0, shown.stderr);
  t.match(shown.stdout, /delegation \(at the test servers\)\n {2}NS +ns1\.attacker\.example\n {2}DS +2371 13 2 AB/);
  t.match(shown.stdout, new RegExp(`changed +${withDs.changed_at}`));
});

t.test("a maintenance window over the domain's portfolio: the change is recorded, not notified", async (t) => {
  const resolver = await startDnsServer({
    test: { NS: ['ns1.nic.test'] },
    'ns1.nic.test': { A: ['127.0.0.2'] },
  });
  const parent = await startParentDns({
    host: '127.0.0.2',
    port: resolver.port,
    zone: 'test',
    delegations: { 'quiet.test': { NS: ['ns1.example.net'] } },
  });
  const rx = await startWebhookReceiver();
  const clock = runningClock();
  const s = await startApp(
    { DOMMON_DNS_SERVERS: resolver.address, DOMMON_NAMESERVER_PORT: String(resolver.port) },
    { clock, notify: { intervalMs: 200 } },
  );
  t.teardown(async () => {
    await s.close();
    await rx.close();
    await parent.close();
    await resolver.close();
  });
  const api = client(s.url, await s.token('watch'));
  await api.put('/api/v1/notifications/settings/webhook', {
    delivery_class: 'instant',
    config: { webhook_url: rx.url },
  });
  const p = (await api.post('/api/v1/portfolios', { name: 'clients' })).body;
  const d = (await api.post('/api/v1/domains', { domain: 'quiet.test', portfolio_id: p.id })).body;
  const delegation = async () => (await api.get(`/api/v1/domains/${d.id}`)).body.delegation;
  const nsLooks = () => parent.queries.filter((q) => q.name === 'quiet.test' && q.type === 'NS').length;
  const first = await waitFor(async () => (await delegation())?.checked_at && delegation(), 15_000);
  const now = clock.now().getTime();
  const w = await api.post('/api/v1/maintenance-windows', {
    name: 'registrar move',
    starts_at: new Date(now - 60_000).toISOString(),
    ends_at: new Date(now + 20 * 60_000).toISOString(),
    portfolio_ids: [p.id],
  });
  t.equal(w.status, 201);
  const nextRound = async (check: (x: any) => boolean, by = ROUND_MS + 1000) => {
    const before = nsLooks();
    clock.advance(by);
    await waitFor(async () => nsLooks() > before && check(await delegation()), 15_000);
    return delegation();
  };

  // In the window: the change is stored and recorded as an event, and nobody is notified.
  parent.delegations['quiet.test']!.NS = ['ns1.moved.example'];
  const moved = await nextRound((x) => x.changed_at !== null);
  t.same(moved.nameservers, ['ns1.moved.example']);
  t.not(moved.checked_at, first.checked_at);
  const events = (await api.get(`/api/v1/events?event_type=delegation&domain_id=${d.id}`)).body;
  t.equal(events.total, 1);
  t.match(events.data[0], {
    severity: 'high',
    message:
      /NS ns1\.example\.net -> ns1\.moved\.example, during maintenance window "registrar move" \(not notified\)$/,
    details: { maintenance_window_id: w.body.id, nameservers: { after: ['ns1.moved.example'] } },
  });
  await sleep(1500);
  t.equal(rx.requests.length, 0, 'no alert while the window covers the domain');

  // After the window: the next change alerts as always.
  parent.delegations['quiet.test']!.NS = ['ns1.attacker.example'];
  await nextRound((x) => x.nameservers?.[0] === 'ns1.attacker.example', 25 * 60_000);
  const [alert] = await rx.waitFor(1, 15_000);
  t.match(alert!.json, {
    event_type: 'delegation',
    severity: 'high',
    message: 'quiet.test: delegation changed at the test servers: NS ns1.moved.example -> ns1.attacker.example',
  });
  t.notOk('maintenance_window_id' in alert!.json.details);
  await sleep(1000);
  t.equal(rx.requests.length, 1, 'only the change after the window');
});
