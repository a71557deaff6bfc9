import t from 'tap';
import { client, startApp } from '../support/app.js';

t.test('health and token validation', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const api = client(s.url, await s.token('ops'));
  const h = await api.get('/health');
  t.equal(h.status, 200);
  t.equal(h.body.database, 'connected');
  const v = await api.get('/api/v1/validate');
  t.equal(v.body.valid, true);
});
