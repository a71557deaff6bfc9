// What a command loads decides how long it takes to start and end (cron jobs and scripts pay it on
// every call): --help loads the command table only; `dommon token list` opens the store and the one
// service it calls; a resource command on the local database builds the services and serves its request
// through the API's route modules (api/local.ts), without koa or any of the daemon's workers; node-postgres
// loads only for a PostgreSQL database, the passkey (WebAuthn) package with the first passkey request. A resolve hook reports every package and src/ folder resolved while
// the command runs from source (the bundle loads the same modules, as chunks).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { tempDir } from '../support/app.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs src/cli/main.ts with `args`: the exit code and output, the packages and the src/ folders it loaded. */
function loads(args: string[]): {
  status: number | null;
  stdout: string;
  stderr: string;
  packages: string[];
  folders: string[];
} {
  const hook = `export async function resolve(s, c, next) {
    if (!/^(node:|file:|data:|\\.|\\/)/.test(s)) process.stderr.write('PKG ' + s + '\\n');
    const r = await next(s, c);
    const m = /\\/src\\/([^/]+)\\//.exec(r.url);
    if (m && r.url.startsWith(${JSON.stringify(`file://${ROOT}/src/`)})) process.stderr.write('SRC ' + m[1] + '\\n');
    return r;
  }`;
  const register = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(register)}`, 'src/cli/main.ts', ...args],
    { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } },
  );
  const lines = r.stderr.split('\n');
  const tagged = (tag: string) => lines.filter((l) => l.startsWith(tag)).map((l) => l.slice(tag.length));
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: lines.filter((l) => !/^(PKG|SRC) /.test(l)).join('\n'),
    packages: [...new Set(tagged('PKG ').map((p) => p.replace(/^((@[^/]+\/)?[^/]+).*/, '$1')))],
    folders: [...new Set(tagged('SRC '))],
  };
}

const among = (loaded: string[], pkgs: string[]) => loaded.filter((p) => pkgs.includes(p));

// The daemon's and the network's packages: the HTTP API and its validator, metrics, logs,
// mail, HTTP client, DNS wire format, public-suffix list, WHOIS, CSV.
const API = ['koa', '@koa/router', '@koa/bodyparser', 'ajv', 'ajv-formats'];
const WORKERS = ['prom-client', 'nodemailer', 'undici', 'dns-packet', 'whoiser', 'tldts', 'pino'];

t.test('--help loads the command table only', async (t) => {
  const r = loads(['--help']);
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /^Usage: dommon /);
  t.ok(r.packages.includes('commander'), `commander loads (${r.packages.join(', ')})`);
  t.same(
    among(r.packages, [...API, ...WORKERS, 'kysely', 'better-sqlite3', 'pg', 'csv-parse']),
    [],
    'no store, API, network or CSV package',
  );
});

t.test('token create and token list open the store and the access service only', async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const created = loads(['--data-dir', dir, '--json', 'token', 'create', '--team', 'ops']);
  t.equal(created.status, 0, created.stderr);
  const token = JSON.parse(created.stdout) as { id: string; team: string };
  t.equal(token.team, 'ops');
  const listed = loads(['--data-dir', dir, '--json', 'token', 'list']);
  t.equal(listed.status, 0, listed.stderr);
  t.same(
    (JSON.parse(listed.stdout) as { id: string }[]).map((r) => r.id),
    [token.id],
  );
  for (const r of [created, listed]) {
    t.ok(
      r.packages.includes('kysely') && r.packages.includes('better-sqlite3'),
      `the store loads (${r.packages.join(', ')})`,
    );
    t.same(
      among(r.packages, [...API, ...WORKERS, 'pg', 'croner']),
      [],
      'no API, worker, network or PostgreSQL package',
    );
    // (src/probes/registry.ts loads with the command table: the endpoint types are --type's choices)
    t.same(among(r.folders, ['api', 'channels', 'scheduler', 'net', 'web']), [], `src/: ${r.folders.join(', ')}`);
  }
});

t.test('a resource command on the local database serves its request without koa or the workers', async (t) => {
  const dir = tempDir();
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  t.equal(loads(['--data-dir', dir, 'token', 'create', '--team', 'ops']).status, 0);
  const r = loads(['--data-dir', dir, '--json', 'domains', 'list']);
  t.equal(r.status, 0, r.stderr);
  t.match(JSON.parse(r.stdout), { data: [], total: 0 });
  t.ok(r.folders.includes('api'), `the API's routes load (src/: ${r.folders.join(', ')})`);
  t.ok(r.packages.includes('ajv'), `the request schemas load (${r.packages.join(', ')})`);
  t.same(
    among(r.packages, [
      'koa',
      '@koa/router',
      '@koa/bodyparser',
      'prom-client',
      'pg',
      'nodemailer',
      '@simplewebauthn/server',
    ]),
    [],
    'no koa, body parser, metrics, PostgreSQL, mail or passkey package',
  );
  t.same(among(r.folders, ['scheduler']), [], 'no scheduler');
});
