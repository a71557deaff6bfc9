// ssl_expiry events over time with an injected clock: each window 30/14/7/1 once per certificate,
// expired once, renewal and issuer change as events, history of certificates seen.
import t from 'tap';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { issue, makeCa } from '../support/certs.js';
import { mutableClock, openTestStore } from '../support/probing.js';
import { inspectTls } from '../../src/probes/index.js';

const DAY = 86_400_000;

t.test('expiry windows, expired, renewal, issuer change', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa('Window CA');
  const otherCa = makeCa('Other CA');
  const first = await startHttpTarget({ tls: issue({ ca, cn: 'www.example.com', toDays: 20 }) });
  const renewed = await startHttpTarget({ tls: issue({ ca, cn: 'www.example.com', toDays: 90 }) });
  const moved = await startHttpTarget({ tls: issue({ ca: otherCa, cn: 'www.example.com', toDays: 90 }) });
  const clock = mutableClock();
  const s = await openTestStore({ DOMMON_DNS_SERVERS: dns.server }, clock);
  const probes = { ...s.probes, ca: [ca.cert, otherCa.cert] };
  t.teardown(async () => {
    for (const x of [first, renewed, moved]) await x.close();
    await dns.close();
    await s.close();
  });
  const d = await s.services.domains.create(s.teamId, { domain: 'example.com' });
  const ep = await s.services.endpoints.create(s.teamId, {
    domain_id: d.id,
    name: 'site',
    endpoint_type: 'https',
    subdomain: 'www',
    port: first.port,
  });
  const inspect = (port: number) =>
    inspectTls({ host: 'www.example.com', port, timeoutMs: 2000 }, probes, new AbortController().signal);
  const r1 = await inspect(first.port);
  const sslEvents = async () =>
    (await s.store.events.list(s.teamId)).filter((e) => e.event_type === 'ssl_expiry').reverse();
  const seen: string[] = [];
  const step = async (advanceDays: number, expectStatus: string) => {
    clock.advance(advanceDays * DAY);
    const st = await s.services.certificates.record(ep, r1);
    t.equal(st.ssl_status, expectStatus, `after ${advanceDays} more day(s): ${expectStatus}`);
    const ev = await sslEvents();
    seen.push(
      ev
        .map((e) => `${e.category}:${JSON.parse(e.details).window_days ?? ''}`)
        .slice(seen.length ? ev.length - 1 : 0)
        .join('|'),
    );
    return ev;
  };
  let ev = await step(0, 'expiring_soon');
  t.same(
    ev.map((e) => JSON.parse(e.details).window_days),
    [30],
    'enters the 30-day window',
  );
  ev = await step(1, 'expiring_soon');
  t.equal(ev.length, 1, 'same window again: no new event');
  ev = await step(6, 'expiring_soon'); // 13 days left
  t.same(
    ev.map((e) => JSON.parse(e.details).window_days),
    [30, 14],
  );
  ev = await step(6, 'expiring_soon'); // 7 days left
  t.same(
    ev.map((e) => JSON.parse(e.details).window_days),
    [30, 14, 7],
  );
  t.equal(ev[2]!.severity, 'high');
  ev = await step(6, 'expiring_soon'); // 1 day left
  t.same(
    ev.map((e) => JSON.parse(e.details).window_days),
    [30, 14, 7, 1],
  );
  t.equal(ev[3]!.severity, 'critical');
  ev = await step(2, 'expired');
  t.equal(ev.length, 5);
  t.equal(ev[4]!.category, 'certificate_expired');
  t.equal(ev[4]!.severity, 'critical');
  ev = await step(1, 'expired');
  t.equal(ev.length, 5, 'expired is raised once');
  t.match(ev[0], { endpoint_id: ep.id, domain_id: d.id, team_id: s.teamId });
  t.match(ev[0]!.message, /site \(https:\/\/www\.example\.com:\d+\/\) certificate expires in 20 day/);

  clock.set(Date.now());
  const r2 = await inspect(renewed.port);
  let st = await s.services.certificates.record(ep, r2);
  t.equal(st.ssl_status, 'valid');
  // (the clock went back to today, so find the new events by category rather than by time)
  ev = await sslEvents();
  const renewal = ev.filter((e) => e.category === 'certificate_renewed');
  t.equal(renewal.length, 1);
  t.equal(renewal[0]!.severity, 'info');
  t.equal(ev.length, 6, 'the renewed certificate (90 days) is in no window');
  const r3 = await inspect(moved.port);
  st = await s.services.certificates.record(ep, r3);
  ev = await sslEvents();
  const moved1 = ev.filter((e) => e.category === 'issuer_changed');
  t.equal(moved1.length, 1);
  t.equal(moved1[0]!.severity, 'medium');
  t.match(JSON.parse(moved1[0]!.details), { issuer: 'CN=Other CA', previous_issuer: 'CN=Window CA' });
  const h = await s.services.certificates.history(s.teamId, ep.id);
  t.equal(h.history.length, 3, 'every certificate seen is kept');
  t.equal(h.current?.issuer, 'CN=Other CA');
  t.equal(h.current?.protocol?.startsWith('TLSv1'), true);
  t.same(h.current?.sans, ['www.example.com']);

  // A failed handshake is `error` but keeps the last certificate's dates.
  st = await s.services.certificates.record(ep, { ok: false, reason: 'refused', error: 'refused: connection refused' });
  t.equal(st.ssl_status, 'error');
  t.equal(st.not_after, r3.ok ? r3.leaf.not_after : null);
  t.equal(st.error, 'refused: connection refused');
});

t.test('the TLS cycle picks new endpoints at once and due ones on DOMMON_CHECK_INTERVAL', async (t) => {
  const dns = await startLoopbackDns();
  const target = await startHttpTarget({ tls: issue({ cn: 'example.com', toDays: 90 }) });
  const clock = mutableClock();
  const s = await openTestStore({ DOMMON_DNS_SERVERS: dns.server, DOMMON_CHECK_INTERVAL: '3600' }, clock);
  t.teardown(async () => {
    await target.close();
    await dns.close();
    await s.close();
  });
  const d = await s.services.domains.create(s.teamId, { domain: 'example.com' });
  await s.services.endpoints.create(s.teamId, {
    domain_id: d.id,
    name: 'a',
    endpoint_type: 'https',
    port: target.port,
  });
  await s.services.endpoints.create(s.teamId, {
    domain_id: d.id,
    name: 'plain',
    endpoint_type: 'http',
    port: target.port,
  });
  await s.services.endpoints.create(s.teamId, { domain_id: d.id, name: 'ssh', endpoint_type: 'port', port: 22 });
  t.equal(await s.services.certificates.cycle(), 1, 'only the https endpoint is inspected');
  t.equal(await s.services.certificates.cycle(), 0, 'not again before the interval');
  clock.advance(3601_000);
  t.equal(await s.services.certificates.cycle(), 1, 'due again after DOMMON_CHECK_INTERVAL');
  t.equal(target.connections, 2);

  // An endpoint deleted while its handshake ran: the result is dropped, nothing is written, no error.
  const gone = await s.services.endpoints.create(s.teamId, {
    domain_id: d.id,
    name: 'gone',
    endpoint_type: 'https',
    port: target.port,
  });
  const r = await inspectTls(
    { host: 'example.com', port: target.port, timeoutMs: 2000 },
    s.probes,
    new AbortController().signal,
  );
  await s.services.endpoints.remove(s.teamId, gone.id);
  const st = await s.services.certificates.record(gone, r);
  t.equal(st.ssl_status, 'unknown');
  t.equal(await s.store.certificates.get(gone.id), undefined);
});
