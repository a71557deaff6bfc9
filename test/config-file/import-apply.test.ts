// The importers' files applied: each Gatus example and the Uptime Kuma 2.5.3 data file, converted by
// `dommon import`, applied to an empty team (its secrets' variables set) creates every object the
// file holds, the export of that team holds as many, and applying the file again changes nothing; the
// push URL of a Kuma push monitor reports to the endpoint it became.
import fs from 'node:fs';
import t from 'tap';
import { parse } from 'yaml';
import { request, startApp } from '../support/app.js';
import { importGatus } from '../../src/services/import/gatus.js';
import { importUptimeKuma } from '../../src/services/import/uptime-kuma.js';
import { fileText } from '../../src/services/import/index.js';
import type { ImportResult } from '../../src/services/import/file.js';

type Json = Record<string, any>;
const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

const endpointsOf = (f: Json): Json[] => (f.domains ?? []).flatMap((d: Json) => d.endpoints ?? []);
/** The objects of a file, per kind; `liveness` counts the checks the file sets itself. */
const counts = (f: Json) => ({
  portfolios: f.portfolios?.length ?? 0,
  channels: f.channels?.length ?? 0,
  domains: f.domains?.length ?? 0,
  endpoints: endpointsOf(f).length,
  liveness: endpointsOf(f).filter((e) => e.liveness).length,
  status_pages: f.status_pages?.length ?? 0,
  maintenance_windows: f.maintenance_windows?.length ?? 0,
});

/** A value for each variable the file reads (its secrets, and references Gatus had): a URL where the name says so. */
const valuesFor = (text: string) =>
  Object.fromEntries(
    [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map(([, name]) => [
      name!,
      /URL/.test(name!) ? 'https://hooks.example.test/x' : 'EXAMPLE-1',
    ]),
  );

const cases: [string, () => ImportResult][] = [
  ...['config.yaml', 'features.yaml', ...fs.readdirSync(`${FIXTURES}gatus/examples`).map((f) => `examples/${f}`)].map(
    (f): [string, () => ImportResult] => [
      `gatus ${f}`,
      () => importGatus(f, fs.readFileSync(`${FIXTURES}gatus/${f}`, 'utf8'), { pushDomain: 'example.com' }),
    ],
  ),
  ['uptime-kuma kuma.db', () => importUptimeKuma(`${FIXTURES}uptime-kuma-2.5.3/kuma.db`)],
];

t.test('imported files apply whole to an empty team', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  let n = 0;
  const created = new Map<string, number>();
  for (const [name, load] of cases) {
    const res = load();
    const text = fileText(res, {
      tool: 'test',
      source: name,
      json: false,
      schemaUrl: 'http://127.0.0.1:8080/api/v1/config/schema.json',
    });
    const token = await s.token(`import-${n++}`);
    const env = valuesFor(text);
    const applied = await request(s.url, 'POST', '/api/v1/config/apply', {
      token,
      body: { file: text, filename: name, env },
    });
    t.equal(applied.status, 200, `${name}: applied (${JSON.stringify(applied.body.errors ?? '')})`);
    if (applied.status !== 200) continue;
    const want = counts(res.file);
    created.set(name, want.endpoints);
    const plan = applied.body.summary as Record<string, { create: number }>;
    t.same(
      {
        portfolios: plan.portfolio!.create,
        channels: plan.channel!.create,
        domains: plan.domain!.create,
        endpoints: plan.endpoint!.create,
        liveness: plan.liveness!.create,
        status_pages: plan.status_page!.create,
        maintenance_windows: plan.maintenance_window!.create,
      },
      want,
      `${name}: every object of the file created`,
    );
    const exported = await request(s.url, 'GET', '/api/v1/config/export', { token });
    // A push endpoint always has its liveness check (made with it), which the export writes.
    const pushes = endpointsOf(res.file).filter((e) => e.type === 'push' && !e.liveness).length;
    t.same(
      counts(parse(exported.body.file)),
      { ...want, liveness: want.liveness + pushes },
      `${name}: the export holds as many`,
    );
    const again = await request(s.url, 'POST', '/api/v1/config/apply', {
      token,
      body: { file: text, filename: name, env },
    });
    t.same(again.body.steps, [], `${name}: applied again, nothing changes`);
    if (name === 'uptime-kuma kuma.db') {
      // The push URL Kuma shows for its push monitor, with dommon's address as the base, reports the run.
      const url = `${s.url}/api/push/ExAmPlEpUsHtOkEnNiGhTlYbAcKuP001?status=up&msg=OK&ping=`;
      const pushed = await request(s.url, 'GET', url.slice(s.url.length));
      t.same([pushed.status, pushed.body], [200, { ok: true }], "Kuma's push URL of the imported monitor answers");
    }
    if (name === 'gatus features.yaml') {
      // Gatus's external-endpoint URL, with dommon's address as the base and the external endpoint's token.
      const pushed = await fetch(`${s.url}/api/v1/endpoints/backend_nightly-backup/external?success=true`, {
        method: 'POST',
        headers: { authorization: 'Bearer EXAMPLE-TOKEN-2' },
      });
      t.same(
        [pushed.status, await pushed.text()],
        [200, ''],
        "Gatus's external-endpoint URL of the imported monitor answers",
      );
    }
  }
  t.ok((created.get('uptime-kuma kuma.db') ?? 0) > 10, 'the Kuma file made its endpoints');
  t.ok((created.get('gatus config.yaml') ?? 0) > 0, "Gatus's example made its endpoints");
});
