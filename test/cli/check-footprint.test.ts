// app.ts is the one composition root, also of `dommon check`: importing it and building the check
// engine loads none of the database modes' packages (koa, Kysely, SQLite, pino, prom-client), which
// app.ts imports only when the daemon or a local database command asks.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HEAVY = [
  'koa',
  '@koa/router',
  '@koa/bodyparser',
  'kysely',
  'better-sqlite3',
  'pino',
  'prom-client',
  'ajv',
  'nodemailer',
];

t.test('the check engine loads no database-mode package', async (t) => {
  // A resolve hook reports every bare specifier resolved while app.ts loads and the engine is built.
  const hook = `export async function resolve(s, c, next) { if (!/^(node:|file:|data:|\\.|\\/)/.test(s)) process.stderr.write('PKG ' + s + '\\n'); return next(s, c); }`;
  const register = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
  const main = `const { createCheckEngine } = await import('./src/app.ts'); const { loadConfig } = await import('./src/config/index.ts');
    createCheckEngine(loadConfig({}, { DOMMON_DATA_DIR: '/nonexistent-dommon' })).close();`;
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      '--input-type=module',
      '-e',
      main,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  t.equal(
    r.status,
    0,
    r.stderr
      .split('\n')
      .filter((l) => !l.startsWith('PKG '))
      .join('\n'),
  );
  const loaded = [
    ...new Set(
      r.stderr
        .split('\n')
        .filter((l) => l.startsWith('PKG '))
        .map((l) => l.slice(4)),
    ),
  ];
  t.ok(loaded.includes('tldts'), `the probes' packages load (${loaded.join(', ')})`);
  t.same(
    loaded.filter((p) => HEAVY.some((h) => p === h || p.startsWith(`${h}/`))),
    [],
    "none of the database modes' packages",
  );
});
