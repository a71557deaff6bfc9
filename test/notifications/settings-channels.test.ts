// PUT /notifications/settings/:type for every registered channel: the example config is accepted,
// wrong configs are 400 (never 500), instant-only channels refuse digests, secrets come back masked.
import t from 'tap';
import { CHANNELS, channels } from '../../src/channels/index.js';
import type { ChannelPlugin } from '../../src/channels/types.js';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { channelSchema } from '../../src/channels/artifacts.js';
import { startNotifyApp } from './harness.js';

const ajv = new Ajv({ strict: false, strictNumbers: true });
formatsPlugin.default(ajv);

t.setTimeout(90_000);

t.test('every channel through the API', async (t) => {
  const s = await startNotifyApp({ env: { DOMMON_RATE_LIMIT: '100000' } });
  t.teardown(() => s.close());
  const m = await s.team('every-channel');
  const put = (kind: string, body: unknown) => m.api.put(`/api/v1/notifications/settings/${kind}`, body);
  for (const kind of CHANNELS) {
    const p: ChannelPlugin<unknown> = channels[kind];
    const ok = await put(kind, { delivery_class: 'instant', config: p.example });
    t.equal(ok.status, 200, `${kind}: example accepted ${ok.text}`);
    for (const k of p.secrets)
      if (k in p.example)
        t.equal(ok.body.config[k], `********${String(p.example[k]).slice(-4)}`, `${kind}: ${k} masked`);
    for (const k of p.secrets)
      if (typeof p.example[k] === 'string')
        t.notOk(ok.text.includes(p.example[k] as string), `${kind}: ${k} not echoed`);
    const digest = await put(kind, { delivery_class: 'digest', config: p.example });
    t.equal(digest.status, p.instantOnly ? 400 : 200, `${kind}: digest ${p.instantOnly ? 'refused' : 'allowed'}`);
    const props = Object.keys((p.configSchema.properties ?? {}) as object);
    const bad: unknown[] = [
      { ...p.example, unknown_key: 1 },
      ...props.map((k) => ({ ...p.example, [k]: 12345 })),
      ...props.map((k) => ({ ...p.example, [k]: { nested: ['x'] } })),
      ...props.map((k) => ({ ...p.example, [k]: 'x'.repeat(30_000) })),
      'not an object',
      [p.example],
    ];
    const validate = ajv.compile(channelSchema(kind));
    for (const config of bad) {
      const r = await put(kind, { delivery_class: 'instant', config });
      // What the schema accepts (e.g. an object as webhook template) is stored; everything else is a 400.
      const want = typeof config === 'object' && !Array.isArray(config) && validate(config) ? 200 : 400;
      t.equal(r.status, want, `${kind}: ${JSON.stringify(config).slice(0, 80)} -> ${want}`);
      if (want === 400) t.type(r.body.error, 'string');
    }
    const required = (p.configSchema.required as string[] | undefined) ?? [];
    if (required.length) {
      const fresh = await s.team(`every-channel-${kind}`);
      const r = await fresh.api.put(`/api/v1/notifications/settings/${kind}`, { delivery_class: 'instant' });
      t.equal(r.status, 400, `${kind}: an enabled row without config`);
      t.match(r.body.error, `config.${required[0]}`);
    }
  }
});
