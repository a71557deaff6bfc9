import fs from 'node:fs';
import net from 'node:net';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { dommon, serveDaemon } from '../support/spawn-dommon.js';

// Child processes and real peers: slower than tap's 30 s per file when the machine is busy.
t.setTimeout(180_000);

t.test('serve on a taken port exits 1 with one clear line', async (t) => {
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => blocker.close(() => r())));
  const port = (blocker.address() as net.AddressInfo).port;
  const dir = tempDir('dommon-serve-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const r = await dommon(['--data-dir', dir, 'serve', '--port', String(port)]);
  t.equal(r.code, 1);
  t.equal(
    r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('dommon:')).length,
    1,
  );
  t.match(r.stderr, new RegExp(`dommon: port ${port} on 127.0.0.1 is already in use`));
  t.notOk(r.stdout.includes('listening on'));
  t.notOk(fs.existsSync(`${dir}/dommon.pid`), 'the lock is released');
});

t.test('serve with a data directory that cannot be written exits 1 with one clear line', async (t) => {
  const dir = tempDir('dommon-serve-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(`${dir}/a-file`, '');
  const r = await dommon(['--data-dir', `${dir}/a-file/data`, 'serve', '--port', '0']);
  t.equal(r.code, 1);
  t.match(r.stderr.trim(), /^dommon: data directory .*a-file\/data is not writable \((ENOTDIR|EEXIST)\)$/);
});

t.test(
  'a second daemon on the same data directory is refused; SIGHUP is logged and harmless; SIGTERM exits 0',
  async (t) => {
    const dir = tempDir('dommon-serve-');
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const d = await serveDaemon(['--data-dir', dir]);
    t.teardown(() => d.child.kill('SIGKILL'));
    t.equal(fs.readFileSync(`${dir}/dommon.pid`, 'utf8').trim(), String(d.child.pid));

    const second = await dommon(['--data-dir', dir, 'serve', '--port', '0']);
    t.equal(second.code, 1);
    t.match(second.stderr, new RegExp(`another dommon daemon \\(pid ${d.child.pid}\\) is serving`));

    d.child.kill('SIGHUP');
    for (let i = 0; i < 50 && !d.stderr().includes('SIGHUP'); i++) await new Promise((r) => setTimeout(r, 100));
    t.match(d.stderr(), /"signal":"SIGHUP".*SIGHUP received: nothing to reopen/);
    const h = await fetch(`${d.url}/health`);
    t.equal(h.status, 200, 'still serving after SIGHUP');
    t.equal(await d.stop(), 0);
    t.notOk(fs.existsSync(`${dir}/dommon.pid`), 'lock released on shutdown');
  },
);
