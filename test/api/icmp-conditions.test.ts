// icmp checks with conditions, end to end on 127.0.0.1 through the system's ping: a Gatus
// configuration (`url: icmp://host`, `[CONNECTED]`, `[RESPONSE_TIME]`, `[IP]`) converted by the
// importer and applied through the API is judged by the running daemon as written; a failed
// condition is recorded with the value seen; `[PACKET_LOSS]` (dommon's own) works; and the
// placeholders an icmp check has no value for (`[STATUS]`, `[BODY]`) are refused with their position.
import t from 'tap';
import { client, request } from '../support/app.js';
import { startLoopbackApp } from '../support/targets.js';
import { waitFor } from '../support/wait.js';
import { importGatus } from '../../src/services/import/gatus.js';
import { fileText } from '../../src/services/import/index.js';

t.setTimeout(120_000);

const GATUS = `
endpoints:
  - name: gateway
    url: "icmp://gw.example.com"
    interval: 1s
    conditions:
      - "[CONNECTED] == true"
      - "[RESPONSE_TIME] < 300"
  - name: router
    url: "icmp://router.example.com"
    interval: 1s
    conditions:
      - "[CONNECTED] == true"
      - "[IP] == 10.0.0.1"
`;

t.test('a Gatus icmp endpoint, imported and applied, is judged by its conditions', async (t) => {
  const { s } = await startLoopbackApp(t);
  const token = await s.token();
  const api = client(s.url, token);

  const imported = importGatus('gatus.yaml', GATUS);
  t.same(imported.notes, [], 'every condition carried over');
  const applied = await request(s.url, 'POST', '/api/v1/config/apply', {
    token,
    body: {
      file: fileText(imported, {
        tool: 'gatus',
        source: 'gatus.yaml',
        json: false,
        schemaUrl: 'http://127.0.0.1:8080/api/v1/config/schema.json',
      }),
      filename: 'gatus.yaml',
    },
  });
  t.equal(applied.status, 200, JSON.stringify(applied.body.errors ?? ''));

  const endpoints = (await api.get('/api/v1/endpoints')).body.data as { id: string; name: string; full_url: string }[];
  const configs = (await api.get('/api/v1/liveness')).body.configs as {
    id: string;
    endpoint_id: string;
    conditions: string[];
  }[];
  const configOf = (name: string) => {
    const ep = endpoints.find((e) => e.name === name)!;
    return configs.find((c) => c.endpoint_id === ep.id)!;
  };
  t.same(endpoints.map((e) => e.full_url).sort(), ['icmp://gw.example.com', 'icmp://router.example.com']);
  t.same(configOf('gateway').conditions, ['[CONNECTED] == true', '[RESPONSE_TIME] < 300'], 'stored as written');

  const status = async (name: string) => (await api.get(`/api/v1/liveness/${configOf(name).id}/status`)).body;
  const up = await waitFor(async () => {
    const b = await status('gateway');
    return b.status === 'up' && b;
  }, 30_000);
  t.ok(up.response_time_ms >= 0 && up.response_time_ms < 300, `the mean round trip: ${up.response_time_ms} ms`);

  const down = await waitFor(async () => {
    const b = await status('router');
    return b.status === 'down' && b;
  }, 30_000);
  t.equal(down.last_error, 'condition: [IP] (127.0.0.1) == 10.0.0.1', 'the address pinged, as seen');

  await s.app.probing.liveness.flush();
  const results = (await api.get(`/api/v1/liveness/${configOf('router').id}/results?limit=10`)).body.results;
  t.match(
    results[0],
    { error: 'condition: [IP] (127.0.0.1) == 10.0.0.1', icmp: { packets_sent: 3, packets_received: 3 } },
    "a failed condition keeps the echo requests' numbers",
  );
});

t.test('icmp conditions through the API: [PACKET_LOSS], and placeholders an icmp check has not', async (t) => {
  const { s } = await startLoopbackApp(t);
  const token = await s.token();
  const api = client(s.url, token);
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const ep = (
    await api.post('/api/v1/endpoints', {
      domain_id: d.id,
      name: 'gw',
      endpoint_type: 'icmp',
      subdomain: 'gw',
      count: 2,
    })
  ).body;

  for (const [conditions, field, error] of [
    [
      ['[STATUS] == 200'],
      'conditions[0]',
      /^conditions\[0\]: \[STATUS\] is not available on this check type at position 0$/,
    ],
    [
      ['[CONNECTED] == true', 'len([BODY].items) > 0'],
      'conditions[1]',
      /^conditions\[1\]: \[BODY\] is not available on this check type at position 4$/,
    ],
    [['[CONNECTED]==true'], 'conditions[0]', /needs a space on each side .* at position 11$/],
  ] as const) {
    const r = await api.post('/api/v1/liveness', { endpoint_id: ep.id, conditions });
    t.equal(r.status, 400, conditions.join(', '));
    t.match(r.body, { code: 'VALIDATION_ERROR', field, error });
  }

  const web = (await api.post('/api/v1/endpoints', { domain_id: d.id, name: 'web', endpoint_type: 'https' })).body;
  const onWeb = await api.post('/api/v1/liveness', { endpoint_id: web.id, conditions: ['[PACKET_LOSS] == 0'] });
  t.equal(onWeb.status, 400);
  t.match(onWeb.body.error, /^conditions\[0\]: \[PACKET_LOSS\] is not available on this check type at position 0$/);

  const cfg = (
    await api.post('/api/v1/liveness', {
      endpoint_id: ep.id,
      interval_seconds: 1,
      conditions: ['[PACKET_LOSS] == 0', '[IP] == pat(127.*)', '[CONNECTED] == true'],
    })
  ).body;
  t.equal(cfg.conditions.length, 3);
  const status = async () => (await api.get(`/api/v1/liveness/${cfg.id}/status`)).body;
  await waitFor(async () => (await status()).status === 'up', 30_000);

  const strict = await api.put(`/api/v1/liveness/${cfg.id}`, { conditions: ['[PACKET_LOSS] > 0'] });
  t.equal(strict.status, 200);
  const down = await waitFor(async () => {
    const b = await status();
    return b.status === 'down' && b;
  }, 30_000);
  t.equal(down.last_error, 'condition: [PACKET_LOSS] (0) > 0', 'no echo request lost: 0 %');
});
