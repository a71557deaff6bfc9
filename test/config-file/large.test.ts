// POST /api/v1/config/apply takes a whole file: its body limit is 32 MB, not the API's 1 MB (a file of
// 10,000 endpoints is about 2 MB; bench/config.ts), and other routes keep theirs.
import t from 'tap';
import { request, startApp } from '../support/app.js';

t.setTimeout(120_000);

t.test('a configuration file over 1 MB is applied; other bodies keep the 1 MB limit', async (t) => {
  const s = await startApp();
  t.teardown(() => s.close());
  const token = await s.token('ops');
  // 300 endpoints with long notes: over 1 MB, yet few objects to plan.
  const endpoints = Array.from(
    { length: 300 },
    (_, i) =>
      `      - name: endpoint-${i}\n        type: https\n        subdomain: s${i}\n        notes: ${'n'.repeat(4000)}\n`,
  ).join('');
  const file = `version: 1\ndomains:\n  - name: example.com\n    endpoints:\n${endpoints}`;
  t.ok(file.length > 1_000_000, `the file is ${file.length} bytes`);
  const r = await request(s.url, 'POST', '/api/v1/config/apply?dry_run=true', {
    token,
    body: { file, filename: 'big.yaml' },
  });
  t.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
  t.equal(r.body.summary.endpoint.create, 300);

  const big = await request(s.url, 'POST', '/api/v1/portfolios', {
    token,
    body: { name: 'x', description: 'y'.repeat(1_100_000) },
  });
  t.equal(big.status, 413);
  t.equal(big.body.code, 'PAYLOAD_TOO_LARGE');
});
