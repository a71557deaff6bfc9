import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import Database from 'better-sqlite3';
import { openStore } from '../../src/store/index.js';
import { createServices } from '../../src/services/index.js';
import { systemClock } from '../../src/domain/clock.js';
import { backupDatabase, inspectDatabase, restoreDatabase } from '../../src/store/maintenance.js';
import { tempDir } from '../support/app.js';
import { dommon, serveDaemon } from '../support/spawn-dommon.js';
import { noExposure } from '../support/no-exposure.js';

// Child processes and real peers: slower than tap's 30 s per file when the machine is busy.
t.setTimeout(180_000);

async function seed(dir: string): Promise<string> {
  const store = await openStore(path.join(dir, 'dommon.db'));
  const services = createServices({
    store,
    clock: systemClock,
    limits: { maxDomains: null, maxEndpoints: null },
    exposure: noExposure(),
  });
  const { token } = await services.access.createToken({ team: 'ops' });
  await store.close();
  return token;
}

t.test(
  'backup while the daemon writes; restore refused while it serves, accepted once it stopped',
  { timeout: 120_000 },
  async (t) => {
    const dir = tempDir('dommon-backup-');
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const token = await seed(dir);
    const d = await serveDaemon(['--data-dir', dir], { DOMMON_RATE_LIMIT: '1000000' });
    t.teardown(() => d.child.kill('SIGKILL'));
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    // A writer loop: two clients creating a domain and one of its endpoints, one after another.
    let stop = false;
    let created = 0;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const res = await fetch(`${d.url}/api/v1/domains`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ domain: `w${w}-${i}.example.com` }),
        });
        const dom = (await res.json()) as { id: string };
        if (res.status !== 201) throw new Error(`domain create answered ${res.status}`);
        const ep = await fetch(`${d.url}/api/v1/endpoints`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ domain_id: dom.id, name: 'web', endpoint_type: 'https' }),
        });
        await ep.arrayBuffer();
        if (ep.status === 201) created++;
      }
    };
    const writers = [0, 1].map(writer);
    while (created < 20) await new Promise((r) => setTimeout(r, 20));

    const before = created;
    const file = path.join(dir, 'backup.db');
    const b = await dommon(['--data-dir', dir, '--json', 'backup', file]);
    const after = created;
    t.equal(b.code, 0, b.stderr);
    const out = JSON.parse(b.stdout);
    t.equal(out.integrity, 'ok');
    t.ok(
      out.counts.domains >= before && out.counts.domains <= after + 2,
      `backup holds ${out.counts.domains} domains, ${before}..${after} created around it`,
    );
    t.ok(after > before, `the daemon kept writing during the backup (${after - before} domains)`);

    // The copy is one self-contained, consistent file.
    t.notOk(fs.existsSync(`${file}-wal`));
    const info = inspectDatabase(file);
    t.equal(info.integrity.join(), 'ok');
    t.equal(info.journal_mode, 'delete');
    t.equal(info.counts.domains, out.counts.domains);
    const copy = new Database(file, { readonly: true });
    const orphans = copy
      .prepare('select count(*) as n from endpoints e left join domains d on d.id = e.domain_id where d.id is null')
      .get() as { n: number };
    copy.close();
    t.equal(orphans.n, 0, 'no endpoint without its domain');

    await t.rejects(
      backupDatabase(path.join(dir, 'dommon.db'), file),
      { message: /already exists \(use --force to overwrite\)/, status: 409 },
      'an existing file is not overwritten without --force',
    );

    const refused = await dommon(['--data-dir', dir, 'restore', file]);
    t.equal(refused.code, 4);
    t.equal(
      refused.stderr.trim(),
      `dommon: a dommon daemon (pid ${d.child.pid}) is serving ${dir}: stop it before restoring`,
    );

    stop = true;
    await Promise.all(writers);
    t.equal(await d.stop(), 0);
    const live = inspectDatabase(path.join(dir, 'dommon.db')).counts.domains!;
    t.ok(live > out.counts.domains, 'the live database moved on after the backup');

    const r = await dommon(['--data-dir', dir, '--json', 'restore', file]);
    t.equal(r.code, 0, r.stderr);
    const restored = JSON.parse(r.stdout);
    t.equal(restored.counts.domains, out.counts.domains, 'the restored database holds the backup');
    t.equal(restored.previous, path.join(dir, 'dommon.db.pre-restore'));
    t.equal(inspectDatabase(restored.previous).counts.domains, live, 'the replaced database is kept');
    t.equal(inspectDatabase(path.join(dir, 'dommon.db')).counts.domains, out.counts.domains);
    t.notOk(fs.existsSync(path.join(dir, 'dommon.pid')), 'restore released its lock');
  },
);

t.test(
  'restore refuses a corrupt file, a foreign SQLite file and a missing one; nothing is replaced',
  { timeout: 60_000 },
  async (t) => {
    const dir = tempDir('dommon-restore-');
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    await seed(dir);
    const db = path.join(dir, 'dommon.db');
    const good = path.join(dir, 'good.db');
    await backupDatabase(db, good);

    const corrupt = path.join(dir, 'corrupt.db');
    const bytes = fs.readFileSync(good);
    bytes.fill(0xab, 4096 * 3, 4096 * 6); // overwrite a few pages after the header
    fs.writeFileSync(corrupt, bytes);
    await t.rejects(
      restoreDatabase(corrupt, db),
      /refusing to restore .*corrupt\.db: integrity check failed|cannot open|malformed/,
    );

    const foreign = path.join(dir, 'foreign.db');
    const f = new Database(foreign);
    f.exec('create table notes (x text)');
    f.close();
    await t.rejects(restoreDatabase(foreign, db), /not a dommon database/);
    const cli = await dommon(['--data-dir', dir, 'restore', foreign]);
    t.equal(cli.code, 2);
    t.match(cli.stderr, /^dommon: refusing to restore .*not a dommon database/);
    t.equal((await dommon(['--data-dir', dir, 'restore', path.join(dir, 'missing.db')])).code, 3);

    t.notOk(fs.existsSync(`${db}.pre-restore`), 'the live database was never touched');
    t.equal(inspectDatabase(db).counts.teams, 1);
  },
);
