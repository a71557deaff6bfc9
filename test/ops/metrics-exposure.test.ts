// /metrics names every team's domains and endpoints: a daemon listening beyond loopback serves it only
// with DOMMON_METRICS_TOKEN, and says so at start.
import t from 'tap';
import { request, tempDir } from '../support/app.js';
import { serve } from '../support/cli.js';
import { isLoopbackHost } from '../../src/api/routes/metrics.js';

const local = (url: string) => url.replace('//0.0.0.0:', '//127.0.0.1:');

t.test('listening on 0.0.0.0 without a token: 403 and a warning at start', async (t) => {
  const d = await serve(tempDir(), { DOMMON_HOST: '0.0.0.0', DOMMON_LOG_LEVEL: 'warn' });
  t.teardown(() => d.stop());
  const res = await request(local(d.url), 'GET', '/metrics');
  t.equal(res.status, 403);
  t.match(res.body, { code: 'METRICS_TOKEN_REQUIRED', error: /listens on 0\.0\.0\.0.*DOMMON_METRICS_TOKEN/, path: '/metrics' });
  t.notMatch(res.text, /dommon_/, 'no metric in the answer');
  t.match(d.stderr(), /\/metrics answers 403: the daemon listens on 0\.0\.0\.0/);
  t.equal((await request(local(d.url), 'GET', '/health')).status, 200, 'the rest is served');
});

t.test('listening on 0.0.0.0 with a token: served to the token only', async (t) => {
  const d = await serve(tempDir(), { DOMMON_HOST: '0.0.0.0', DOMMON_METRICS_TOKEN: 'm-token-0123456789', DOMMON_LOG_LEVEL: 'warn' });
  t.teardown(() => d.stop());
  t.equal((await request(local(d.url), 'GET', '/metrics')).status, 401);
  const ok = await request(local(d.url), 'GET', '/metrics', { token: 'm-token-0123456789' });
  t.equal(ok.status, 200);
  t.match(ok.text, /dommon_/);
  t.notMatch(d.stderr(), /metrics answers 403/);
});

t.test('which listen addresses count as loopback', async (t) => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) t.ok(isLoopbackHost(h), h);
  for (const h of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '::ffff:10.0.0.1']) t.notOk(isLoopbackHost(h), h);
});
