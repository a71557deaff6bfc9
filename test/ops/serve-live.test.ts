// `dommon serve` with a dashboard's live stream open (GET /ui/live): SIGTERM still exits 0 at once,
// and the stream ends with the daemon (the stream would otherwise hold its HTTP server open).
import fs from 'node:fs';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { dommon, serveDaemon } from '../support/spawn-dommon.js';

t.setTimeout(180_000);

t.test('SIGTERM with a live stream open exits promptly', async (t) => {
  const dir = tempDir('dommon-serve-live-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const d = await serveDaemon(['--data-dir', dir]);
  t.teardown(() => d.child.kill('SIGKILL'));
  const made = await dommon(['--data-dir', dir, '--json', 'token', 'create', '--team', 'live']);
  t.equal(made.code, 0, made.stderr);
  const token = (JSON.parse(made.stdout) as { token: string }).token;
  const signIn = await fetch(`${d.url}/ui/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  t.equal(signIn.status, 201);
  await signIn.text();
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  const res = await fetch(`${d.url}/ui/live`, { headers: { cookie } });
  t.equal(res.status, 200);
  const reader = res.body!.getReader();
  t.match(new TextDecoder().decode((await reader.read()).value), /event: ready/);
  const ended = (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return Date.now();
  })();
  const t0 = Date.now();
  t.equal(await d.stop(), 0, 'exit status 0');
  const took = Date.now() - t0;
  t.ok(took < 10_000, `exited ${took} ms after SIGTERM with a stream open`);
  t.ok((await ended) - t0 < 10_000, 'the stream ended with the daemon');
});
