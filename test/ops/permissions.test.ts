// The data directory holds webhook secrets and chat URLs: 0700, every file 0600. A fresh start makes
// it so; an older install's 0755/0644 files are fixed on start, and the daemon says so.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { serve } from '../support/cli.js';

const mode = (p: string) => fs.statSync(p).mode & 0o777;

t.test('a fresh data directory is private', { skip: process.platform === 'win32' && 'POSIX modes only' }, async (t) => {
  const dir = path.join(tempDir(), 'data');
  t.teardown(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));
  const d = await serve(dir, { DOMMON_LOG_LEVEL: 'warn' });
  const files = fs.readdirSync(dir);
  t.ok(
    files.includes('dommon.db') && files.includes('dommon.pid'),
    `database and pid file written: ${files.join(', ')}`,
  );
  t.equal(mode(dir), 0o700, 'directory 0700');
  for (const f of files) t.equal(mode(path.join(dir, f)), 0o600, `${f} 0600`);
  t.notMatch(d.stderr(), /readable by other users/, 'nothing to fix, nothing said');
  t.equal(await d.stop(), 0);
});

t.test(
  'an older install with 0755/0644 is fixed on start, and the daemon says so',
  { skip: process.platform === 'win32' && 'POSIX modes only' },
  async (t) => {
    const dir = path.join(tempDir(), 'data');
    t.teardown(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));
    // First start creates the database; then loosen everything as an older version left it.
    const first = await serve(dir);
    t.equal(await first.stop(), 0);
    fs.mkdirSync(path.join(dir, 'backups'));
    fs.writeFileSync(path.join(dir, 'backups', 'old.db'), 'x');
    fs.writeFileSync(path.join(dir, 'rdap-bootstrap.json'), '{}');
    for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), f === 'backups' ? 0o755 : 0o644);
    fs.chmodSync(path.join(dir, 'backups', 'old.db'), 0o644);
    fs.chmodSync(dir, 0o755);

    const d = await serve(dir, { DOMMON_LOG_LEVEL: 'warn' });
    t.equal(mode(dir), 0o700);
    t.equal(mode(path.join(dir, 'backups')), 0o700);
    t.equal(mode(path.join(dir, 'backups', 'old.db')), 0o600);
    for (const f of fs.readdirSync(dir).filter((f) => f !== 'backups'))
      t.equal(mode(path.join(dir, f)), 0o600, `${f} 0600`);
    const line = d
      .stderr()
      .split('\n')
      .find((l) => l.includes('readable by other users'));
    t.ok(line, 'a warning in the log');
    const entry = JSON.parse(line!);
    t.equal(entry.level, 40, 'level warn');
    t.ok(entry.files.includes(path.join(dir, 'dommon.db')) && entry.files.includes(dir), 'it names what it changed');
    t.equal(await d.stop(), 0);
  },
);
