// What a configuration file manages, as the API's reads show it (docs/configuration-file.md#managed-objects):
// every list and single read of portfolios, channels, domains, endpoints, liveness checks, status pages
// and maintenance windows carries `managed_by` ("config" or null) and `editable`. The file is applied
// the way `dommon serve --config` applies it (marking what it names); the read caches see a change of
// the marks alone (`editable: true`). With `editable: true` the API may change a managed object, and the
// file's next apply puts the file's values back.
// test/pg/api-managed-reads.test.ts runs it again on PostgreSQL.
import t from 'tap';
import { client, startApp } from '../support/app.js';
import { managedConfig, serveApply } from '../support/managed.js';

t.setTimeout(120_000);

t.test(
  'reads carry managed_by and editable; editable: true lets the API change, the next apply puts it back',
  async (t) => {
    const s = await startApp();
    t.teardown(() => s.close());
    const api = client(s.url, await s.token('gitops', 'owner@example.com'));
    await serveApply(s, managedConfig(false));
    // Made by hand, next to the file's objects: not managed.
    const pf = (await api.post('/api/v1/portfolios', { name: 'Hand' })).body;
    const hand = (await api.post('/api/v1/domains', { domain: 'hand.example.org', portfolio_id: pf.id })).body;
    const handEp = (await api.post('/api/v1/endpoints', { domain_id: hand.id, name: 'web', endpoint_type: 'http' }))
      .body;
    t.equal(
      (
        await api.put('/api/v1/notifications/settings/slack', {
          delivery_class: 'instant',
          config: { webhook_url: 'https://h.example/x' },
        })
      ).status,
      200,
    );
    await api.post('/api/v1/liveness', { endpoint_id: handEp.id, interval_seconds: 3600 });
    await api.post('/api/v1/status-pages', { portfolio_id: pf.id, slug: 'hand-page', title: 'Hand' });
    await api.post('/api/v1/maintenance-windows', {
      name: 'Hand window',
      cron: '0 4 * * 0',
      duration_minutes: 30,
      domain_ids: [hand.id],
    });

    const MANAGED = { managed_by: 'config', editable: false };
    const FREE = { managed_by: null, editable: true };
    // Each list, by the name of its object: the file's ones managed, the hand-made ones free.
    const lists: [string, string, (x: any) => string, string, string][] = [
      ['/api/v1/portfolios', 'data', (x) => x.name, 'Web', 'Hand'],
      ['/api/v1/domains', 'data', (x) => x.domain, 'example.com', 'hand.example.org'],
      ['/api-domains', 'data', (x) => x.domain, 'example.com', 'hand.example.org'],
      ['/api/v1/endpoints', 'data', (x) => x.domain + '/' + x.name, 'example.com/www', 'hand.example.org/web'],
      ['/api/v1/liveness', 'data', (x) => x.endpoint_id, '', handEp.id],
      ['/api/v1/status-pages', 'data', (x) => x.slug, 'managed-public', 'hand-page'],
      ['/api/v1/maintenance-windows', 'data', (x) => x.name, 'Patching', 'Hand window'],
    ];
    const byName = async (p: string, key: string, name: (x: any) => string) => {
      const r = await api.get(p);
      t.equal(r.status, 200, p);
      return new Map<string, any>(r.body[key].map((x: any) => [name(x), x]));
    };
    const ids: Record<string, { managed: string; free: string }> = {};
    for (const [p, key, name, managed, free] of lists) {
      const m = await byName(p, key, name);
      const mine = managed ? m.get(managed) : [...m.values()].find((x) => x.endpoint_id !== handEp.id);
      t.match(mine, MANAGED, `${p}: the file's object`);
      t.match(m.get(free), FREE, `${p}: the hand-made object`);
      ids[p] = { managed: mine.id, free: m.get(free).id };
    }
    // Channels (the user's settings rows).
    const settings = new Map<string, any>(
      (await api.get('/api/v1/notifications/settings')).body.map((x: any) => [x.notification_type, x]),
    );
    t.match(settings.get('email'), MANAGED, "the file's channel");
    t.match(settings.get('slack'), FREE, 'a channel set up by hand');
    // Single reads.
    for (const p of [
      '/api/v1/portfolios',
      '/api/v1/domains',
      '/api/v1/endpoints',
      '/api/v1/liveness',
      '/api/v1/status-pages',
      '/api/v1/maintenance-windows',
    ]) {
      t.match((await api.get(`${p}/${ids[p]!.managed}`)).body, MANAGED, `${p}/:id of the file's object`);
      t.match((await api.get(`${p}/${ids[p]!.free}`)).body, FREE, `${p}/:id of a hand-made one`);
    }
    const withEndpoints = (await api.get(`/api/v1/domains/${ids['/api/v1/domains']!.managed}?include_endpoints=true`))
      .body;
    t.match(withEndpoints, MANAGED);
    t.match(withEndpoints.endpoints, [{ name: 'www', ...MANAGED }], "a domain's endpoints too");
    const domainId = ids['/api/v1/domains']!.managed;
    const refused = await api.put(`/api/v1/domains/${domainId}`, { notes: 'by hand' });
    t.equal(refused.status, 409);
    t.equal(refused.body.code, 'MANAGED_BY_CONFIG');

    // `editable: true`: only the marks change (no object does); the cached lists see it at once.
    const plan = await serveApply(s, managedConfig(true));
    t.equal(plan.steps.length, 0, 'no object changes');
    for (const [p, key, name, managed] of lists) {
      if (!managed) continue;
      t.match(
        (await byName(p, key, name)).get(managed),
        { managed_by: 'config', editable: true },
        `${p}: editable now`,
      );
    }
    t.match((await api.get(`/api/v1/domains/${domainId}`)).body, { managed_by: 'config', editable: true });

    // The API may change it now...
    const put = await api.put(`/api/v1/domains/${domainId}`, { notes: 'by hand' });
    t.equal(put.status, 200, JSON.stringify(put.body));
    t.equal((await api.get(`/api/v1/domains/${domainId}`)).body.notes, 'by hand');
    const www = ids['/api/v1/liveness']!.managed;
    t.equal((await api.put(`/api/v1/liveness/${www}`, { interval_seconds: 600 })).status, 200);
    // ...and the file's next apply (SIGHUP, or any change of the file) sets the fields it names back.
    const back = await serveApply(s, managedConfig(true));
    t.same(back.steps.map((x) => `${x.action} ${x.kind} ${x.name}`).sort(), [
      'update domain example.com',
      'update liveness example.com/www',
    ]);
    t.equal((await api.get(`/api/v1/domains/${domainId}`)).body.notes, 'from the file');
    t.equal((await api.get(`/api/v1/liveness/${www}`)).body.interval_seconds, 3600);
    // A field the file does not name keeps the API's value.
    t.equal((await api.put(`/api/v1/domains/${domainId}`, { dkim_selectors: ['s1'] })).status, 200);
    t.equal((await serveApply(s, managedConfig(true))).steps.length, 0, 'dkim_selectors: not in the file, kept');
    t.same((await api.get(`/api/v1/domains/${domainId}`)).body.dkim_selectors, ['s1']);

    // Back to `editable: false`: read-only again.
    await serveApply(s, managedConfig(false));
    t.match((await api.get(`/api/v1/domains/${domainId}`)).body, MANAGED);
    t.equal((await api.put(`/api/v1/domains/${domainId}`, { notes: 'again' })).status, 409);
  },
);

t.test('the home rows, and the answers of creates, updates and bulk creates, carry the marks', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('gitops', 'owner@example.com'));
  await serveApply(s, managedConfig(true));
  const MANAGED = { managed_by: 'config', editable: true };
  const FREE = { managed_by: null, editable: true };

  // Bulk creates: each item of `data` (made by hand, so not managed).
  const domains = await api.post('/api/v1/domains/bulk', { domains: [{ domain: 'a.example.org' }, { domain: 'bad' }] });
  t.equal(domains.status, 201);
  t.equal(domains.body.data.length, 1);
  t.match(domains.body.data, [{ domain: 'a.example.org', ...FREE }]);
  const endpoints = await api.post('/api/v1/endpoints/bulk', {
    endpoints: [{ domain_id: domains.body.data[0].id, name: 'web', endpoint_type: 'https' }],
  });
  t.equal(endpoints.status, 201);
  t.match(endpoints.body.data, [{ name: 'web', ...FREE }]);
  const liveness = await api.post('/api/v1/liveness/bulk', {
    liveness: [{ endpoint_id: endpoints.body.data[0].id, interval_seconds: 3600 }],
  });
  t.equal(liveness.status, 201);
  t.match(liveness.body.data, [{ endpoint_id: endpoints.body.data[0].id, ...FREE }]);
  const one = await api.post('/api/v1/endpoints', {
    domain_id: domains.body.data[0].id,
    name: 'api',
    endpoint_type: 'https',
  });
  t.equal(one.status, 201);
  t.match(one.body, FREE, 'a single create');

  // An update of the file's endpoint (the file allows it): its answer says the file manages it.
  const home = await api.get('/api/v1/home?limit=100');
  t.equal(home.status, 200);
  const rows = new Map<string, any>(home.body.data.map((r: any) => [`${r.kind} ${r.domain} ${r.name}`, r]));
  t.match(rows.get('domain example.com example.com'), MANAGED, "the file's domain");
  t.match(rows.get('endpoint example.com www'), MANAGED, "the file's endpoint");
  t.match(rows.get('domain a.example.org a.example.org'), FREE, 'a hand-made domain');
  t.match(rows.get('endpoint a.example.org web'), FREE, 'a hand-made endpoint');
  const www = rows.get('endpoint example.com www').id;
  const put = await api.put(`/api/v1/endpoints/${www}`, { notes: 'by hand' });
  t.equal(put.status, 200, JSON.stringify(put.body));
  t.match(put.body, MANAGED, 'an update');

  // Read-only again: the home says so.
  await serveApply(s, managedConfig(false));
  const again = await api.get('/api/v1/home?limit=100');
  t.match(
    again.body.data.find((r: any) => r.id === www),
    { managed_by: 'config', editable: false },
  );
});
