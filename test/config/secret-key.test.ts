// DOMMON_SECRET_KEY / DOMMON_SECRET_KEY_FILE: parsed and validated at load (a bad value is a ConfigError).
import t from 'tap';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/index.js';

const B64 = Buffer.alloc(32, 7).toString('base64');
const HEX = Buffer.alloc(32, 9).toString('hex');

t.test('default: DIR/secret.key, created on first use', async (t) => {
  const c = loadConfig({ dataDir: '/tmp/dd' }, {});
  t.same(c.secretKey, { keys: null, file: path.join('/tmp/dd', 'secret.key'), defaultFile: true });
});

t.test('DOMMON_SECRET_KEY: base64 or hex, a comma list (the first seals)', async (t) => {
  const c = loadConfig({ dataDir: '/tmp/dd' }, { DOMMON_SECRET_KEY: `${B64}, ${HEX}` });
  t.equal(c.secretKey.keys!.length, 2);
  t.same(c.secretKey.keys![0], Buffer.alloc(32, 7));
  t.same(c.secretKey.keys![1], Buffer.alloc(32, 9));
});

t.test('DOMMON_SECRET_KEY_FILE: a path', async (t) => {
  const c = loadConfig({ dataDir: '/tmp/dd' }, { DOMMON_SECRET_KEY_FILE: '/etc/dommon/key' });
  t.same(c.secretKey, { keys: null, file: '/etc/dommon/key', defaultFile: false });
});

t.test('invalid values are one-line ConfigErrors', async (t) => {
  for (const [env, msg] of [
    [{ DOMMON_SECRET_KEY: 'short' }, /DOMMON_SECRET_KEY: key 1 is not 32 bytes/],
    [{ DOMMON_SECRET_KEY: `${B64},${'ab'.repeat(31)}` }, /key 2 is not 32 bytes/],
    [{ DOMMON_SECRET_KEY: Buffer.alloc(16).toString('base64') }, /key 1 is not 32 bytes/],
    [{ DOMMON_SECRET_KEY: B64, DOMMON_SECRET_KEY_FILE: '/k' }, /not both/],
  ] as const) {
    t.throws(() => loadConfig({ dataDir: '/tmp/dd' }, env), { constructor: ConfigError, message: msg });
  }
});
