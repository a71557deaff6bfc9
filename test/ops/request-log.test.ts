// The daemon's debug request log records the status the client received: the logger sits outside
// the error middleware, so a request refused by a thrown error (400, 413, 415, 401) is logged with
// that status, not koa's default 404 it carried before the error middleware answered (issue 18.5).
import fs from 'node:fs';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { serveDaemon } from '../support/spawn-dommon.js';

t.setTimeout(180_000);

t.test('debug request log lines carry the final status', async (t) => {
  const dir = tempDir('dommon-reqlog-');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const d = await serveDaemon(['--data-dir', dir], { DOMMON_LOG_LEVEL: 'debug' });
  t.teardown(() => d.child.kill('SIGKILL'));
  const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(d.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  // Each request has its own path, so its log line is easy to find.
  const answered = new Map<string, number>();
  answered.set('/api/v1/domains', (await post('/api/v1/domains', '{"domain": ')).status); // malformed JSON, thrown by the body parser
  answered.set('/api/v1/portfolios', (await post('/api/v1/portfolios', '{}', { 'content-encoding': 'x-foo' })).status);
  answered.set('/api/v1/endpoints', (await post('/api/v1/endpoints', Buffer.alloc(2 * 1024 * 1024, 0x20))).status);
  answered.set('/api/v1/liveness', (await post('/api/v1/liveness', '{}')).status); // no token: thrown by auth
  answered.set('/api/v1/nowhere', (await fetch(`${d.url}/api/v1/nowhere`)).status);
  answered.set('/health', (await fetch(`${d.url}/health`)).status);
  t.same(Object.fromEntries(answered), {
    '/api/v1/domains': 400,
    '/api/v1/portfolios': 415,
    '/api/v1/endpoints': 413,
    '/api/v1/liveness': 401,
    '/api/v1/nowhere': 404,
    '/health': 200,
  });

  const logged = new Map<string, number>();
  for (let i = 0; i < 50 && logged.size < answered.size; i++) {
    for (const line of d.stderr().split('\n')) {
      if (!line.startsWith('{')) continue;
      const rec = JSON.parse(line) as { msg?: string; path?: string; status?: number; level?: number };
      if (rec.msg === 'request' && rec.path && answered.has(rec.path)) logged.set(rec.path, rec.status!);
    }
    if (logged.size < answered.size) await new Promise((r) => setTimeout(r, 100));
  }
  t.same(
    Object.fromEntries(logged),
    Object.fromEntries(answered),
    'each request is logged with the status it was answered',
  );
  t.equal(await d.stop(), 0);
});
