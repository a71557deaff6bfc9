// /metrics names every team's domains and endpoints: a daemon listening beyond loopback serves it only
// with DOMMON_METRICS_TOKEN, and says so at start.
import http from 'node:http';
import t from 'tap';
import { request, startApp, tempDir } from '../support/app.js';
import { serve } from '../support/cli.js';
import { isLoopbackHost } from '../../src/api/routes/metrics.js';

const local = (url: string) => url.replace('//0.0.0.0:', '//127.0.0.1:');

t.test('listening on 0.0.0.0 without a token: 403 and a warning at start', async (t) => {
  const d = await serve(tempDir(), { DOMMON_HOST: '0.0.0.0', DOMMON_LOG_LEVEL: 'warn' });
  t.teardown(() => d.stop());
  const res = await request(local(d.url), 'GET', '/metrics');
  t.equal(res.status, 403);
  t.match(res.body, {
    code: 'METRICS_TOKEN_REQUIRED',
    error: /listens on 0\.0\.0\.0.*DOMMON_METRICS_TOKEN/,
    path: '/metrics',
  });
  t.notMatch(res.text, /dommon_/, 'no metric in the answer');
  t.match(d.stderr(), /\/metrics answers 403: the daemon listens on 0\.0\.0\.0/);
  t.equal((await request(local(d.url), 'GET', '/health')).status, 200, 'the rest is served');
});

t.test('listening on 0.0.0.0 with a token: served to the token only', async (t) => {
  const d = await serve(tempDir(), {
    DOMMON_HOST: '0.0.0.0',
    DOMMON_METRICS_TOKEN: 'm-token-0123456789',
    DOMMON_LOG_LEVEL: 'warn',
  });
  t.teardown(() => d.stop());
  t.equal((await request(local(d.url), 'GET', '/metrics')).status, 401);
  const ok = await request(local(d.url), 'GET', '/metrics', { token: 'm-token-0123456789' });
  t.equal(ok.status, 200);
  t.match(ok.text, /dommon_/);
  t.notMatch(d.stderr(), /metrics answers 403/);
});

t.test('which listen addresses count as loopback', async (t) => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])
    t.ok(isLoopbackHost(h), h);
  for (const h of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '::ffff:10.0.0.1'])
    t.notOk(isLoopbackHost(h), h);
});

/** GET /metrics with a Host header of our choosing (fetch does not let a caller set Host). */
function getWithHost(base: string, host: string): Promise<{ status: number; body: string }> {
  const u = new URL('/metrics', base);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: u.hostname, port: u.port, path: u.pathname, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
}

t.test(
  'without a token, /metrics answers only to addresses, localhost and DOMMON_PUBLIC_HOSTS (no DNS rebinding)',
  async (t) => {
    const s = await startApp({ DOMMON_PUBLIC_HOSTS: 'Mon.Example.test' });
    t.teardown(() => s.close());
    const port = new URL(s.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `mon.example.test:${port}`,
      'mon.example.test.',
    ]) {
      t.equal((await getWithHost(s.url, host)).status, 200, `Host: ${host}`);
    }
    const evil = await getWithHost(s.url, `rebind.attacker.example:${port}`);
    t.equal(evil.status, 403);
    t.match(JSON.parse(evil.body), {
      code: 'HOST_NOT_ALLOWED',
      error: /"rebind\.attacker\.example".*DOMMON_PUBLIC_HOSTS/,
    });
    t.notMatch(evil.body, /dommon_/);
  },
);

t.test('with a token, any Host may present it', async (t) => {
  const s = await startApp({ DOMMON_METRICS_TOKEN: 'm-token-0123456789' });
  t.teardown(() => s.close());
  const res = await request(s.url, 'GET', '/metrics', {
    token: 'm-token-0123456789',
    headers: { 'x-forwarded-host': 'ignored' },
  });
  t.equal(res.status, 200);
});
