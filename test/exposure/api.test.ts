// The exposure API's rules: 403 unless verified and enabled, team scoping, user-added names,
// the scheduled cycle's cadence, and a domain delete taking its scans and findings with it.
import t from 'tap';
import { startWorld, ZONE } from '../support/exposure-world.js';
import { loadConfig } from '../../src/config/index.js';

t.test('exposure API rules', async (t) => {
  const w = await startWorld();
  t.teardown(() => w.close());
  const { token, team_id } = await w.token();
  const api = w.api(token);
  const other = w.api((await w.token('other-team')).token);
  const id: string = (await api.post('/api/v1/domains', { domain: ZONE })).body.id;

  t.test('403 unless verified and enabled', async (t) => {
    const unverified = await api.post(`/api/v1/domains/${id}/exposure/scans`);
    t.equal(unverified.status, 403);
    t.equal(unverified.body.code, 'DOMAIN_NOT_VERIFIED');
    t.match(unverified.body, { error: String, timestamp: String, path: `/api/v1/domains/${id}/exposure/scans` });
    await w.app.store.domains.update(team_id, id, { is_verified: true });
    const disabled = await api.post(`/api/v1/domains/${id}/exposure/scans`);
    t.equal(disabled.status, 403);
    t.equal(disabled.body.code, 'EXPOSURE_NOT_ENABLED');
    t.equal((await api.get(`/api/v1/domains/${id}/exposure/scans`)).body.pagination.total, 0, 'no scan was recorded');
    t.equal(await w.app.services.exposure.cycle(60), 0, 'the worker skips a domain that is not enabled');
    await w.app.store.domains.update(team_id, id, { exposure_monitoring_enabled: true });
  });

  t.test('scans: one at a time, team scoped', async (t) => {
    const [a, b] = await Promise.all([
      api.post(`/api/v1/domains/${id}/exposure/scans`),
      api.post(`/api/v1/domains/${id}/exposure/scans`),
    ]);
    t.equal(a.status, 202);
    t.equal(b.status, 202);
    t.equal(b.body.id, a.body.id, 'two requests at once start one scan');
    const c = await api.post(`/api/v1/domains/${id}/exposure/scans`);
    t.equal(c.body.id, a.body.id, 'a request while one runs returns the running scan');
    await w.app.services.exposure.drain();
    t.equal((await api.get(`/api/v1/exposure/scans/${a.body.id}`)).body.status, 'completed');
    const row = await w.app.store.db
      .selectFrom('exposure_scans')
      .select('node')
      .where('id', '=', a.body.id)
      .executeTakeFirstOrThrow();
    t.equal(row.node, w.app.config.node.name, 'the scan names the node that ran it');

    t.equal((await other.get(`/api/v1/exposure/scans/${a.body.id}`)).status, 404);
    t.equal((await other.post(`/api/v1/domains/${id}/exposure/scans`)).status, 404);
    t.equal((await other.get(`/api/v1/domains/${id}/exposure/scans`)).status, 404);
    t.equal((await other.get(`/api/v1/domains/${id}/exposure/findings`)).status, 404);
    const theirs = await other.get('/api/v1/exposure/findings');
    t.equal(theirs.status, 200);
    t.equal(theirs.body.pagination.total, 0);
    t.ok((await api.get('/api/v1/exposure/findings')).body.pagination.total > 0);
    const finding = (await api.get('/api/v1/exposure/findings')).body.data[0];
    t.equal((await other.get(`/api/v1/exposure/findings/${finding.id}`)).status, 404);
    t.equal((await api.get('/api/v1/exposure/scans/not-a-uuid')).status, 404);
    t.equal((await api.get(`/api/v1/exposure/findings?domain_id=${id}&status=closed`)).status, 400);
  });

  t.test('scheduled cycle honours DOMMON_EXPOSURE_INTERVAL', async (t) => {
    // Names the TLS inspector saw in a certificate join the inventory (wildcards and foreign names do not).
    const ep = await api.post('/api/v1/endpoints', {
      domain_id: id,
      name: 'site',
      endpoint_type: 'https',
      subdomain: 'www',
    });
    await w.app.store.db
      .insertInto('endpoint_certificates')
      .values({
        endpoint_id: ep.body.id,
        ssl_status: 'unknown',
        sans: JSON.stringify([`www.${ZONE}`, `cdn.${ZONE}`, `*.${ZONE}`, 'other.example']),
      })
      .execute();
    t.equal(await w.app.services.exposure.cycle(3600), 0, 'scanned less than an hour ago');
    w.clock.advance(3601_000);
    t.equal(await w.app.services.exposure.cycle(3600), 1);
    const latest = (await api.get(`/api/v1/domains/${id}/exposure/scans`)).body.data[0];
    t.equal(latest.trigger, 'schedule');
    t.equal(latest.status, 'completed');
    t.ok(latest.hosts.includes(`cdn.${ZONE}`), 'a SAN is scanned even where only the wildcard answers');
    t.notOk(latest.hosts.some((h: string) => h.includes('*') || h === 'other.example'));
    t.notOk(latest.hosts.includes(`api.${ZONE}`));
  });

  t.test('user-added names', async (t) => {
    const full = await api.post(`/api/v1/domains/${id}/exposure/subdomains`, { name: `Legacy.${ZONE}.` });
    t.equal(full.status, 201);
    t.equal(full.body.name, `legacy.${ZONE}`);
    t.equal((await api.post(`/api/v1/domains/${id}/exposure/subdomains`, { name: 'legacy' })).status, 409);
    t.equal(
      (await api.post(`/api/v1/domains/${id}/exposure/subdomains`, { name: 'evil.example.org.' })).body.name,
      `evil.example.org.${ZONE}`,
      'a foreign name becomes a label under the domain',
    );
    for (const bad of [{ name: '*.x' }, { name: 'a b' }, { name: '' }, {}, { name: 'ok', extra: 1 }]) {
      t.equal((await api.post(`/api/v1/domains/${id}/exposure/subdomains`, bad)).status, 400, JSON.stringify(bad));
    }
    const list = await api.get(`/api/v1/domains/${id}/exposure/subdomains`);
    t.same(
      list.body.data.map((s: { name: string }) => s.name),
      [`evil.example.org.${ZONE}`, `legacy.${ZONE}`],
    );
    t.equal((await other.get(`/api/v1/domains/${id}/exposure/subdomains`)).status, 404);
    t.equal((await api.delete(`/api/v1/domains/${id}/exposure/subdomains/${full.body.id}`)).status, 200);
    t.equal((await api.delete(`/api/v1/domains/${id}/exposure/subdomains/${full.body.id}`)).status, 404);
  });

  t.test('a domain delete removes its scans and findings', async (t) => {
    const count = async (table: 'exposure_scans' | 'exposure_findings' | 'exposure_subdomains') =>
      Number(
        (
          await w.app.store.db
            .selectFrom(table)
            .select((e) => e.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    t.ok((await count('exposure_scans')) > 0);
    t.ok((await count('exposure_findings')) > 0);
    t.equal((await api.delete(`/api/v1/domains/${id}`)).status, 200);
    t.equal(await count('exposure_scans'), 0);
    t.equal(await count('exposure_findings'), 0);
    t.equal(await count('exposure_subdomains'), 0);
  });
});

t.test('DOMMON_EXPOSURE_INTERVAL', async (t) => {
  t.equal(loadConfig({}, {}).exposureInterval, 86400, 'daily by default');
  t.equal(loadConfig({}, { DOMMON_EXPOSURE_INTERVAL: '3600' }).exposureInterval, 3600);
  t.throws(
    () => loadConfig({}, { DOMMON_EXPOSURE_INTERVAL: 'hourly' }),
    /DOMMON_EXPOSURE_INTERVAL must be a whole number/,
  );
  t.throws(() => loadConfig({}, { DOMMON_EXPOSURE_INTERVAL: '10' }), /DOMMON_EXPOSURE_INTERVAL must be between 60/);
});
