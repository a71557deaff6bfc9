// What a command loads decides how long it takes to start and end (cron jobs and scripts pay it on
// every call): --help loads the command table only; `dommon token list` opens the store and the one
// service it calls; a resource command on the local database builds the services and serves its request
// through the API's route modules (api/local.ts), without koa, any of the daemon's workers or the network's
// packages (HTTP client, WHOIS, DNS codec, OpenID: each loads with the first request that needs it);
// node-postgres loads only for a PostgreSQL database, the passkey (WebAuthn) package with the first
// passkey request. A resolve hook reports every package and src/ folder resolved while the command runs
// from source (the bundle loads the same modules, as chunks).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { cli, ensureBuilt } from '../support/cli.js';

// Each command runs from source under tsx (2-5 s each on a loaded machine), five in all.
t.setTimeout(180_000);

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

// The network's packages a resource command does not send with: the HTTP client (RDAP, webhooks), WHOIS,
// the DNS wire codec and single sign-on. Each loads with the first request that needs it.
const NETWORK = ['undici', 'whoiser', 'dns-packet', 'openid-client'];

t.test(
  'a resource command on the local database serves its request without koa, the workers or the network',
  async (t) => {
    const dir = tempDir();
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    // The team is made by the built command line (what token create loads is the test above's).
    await ensureBuilt();
    t.equal((await cli(['--data-dir', dir, 'token', 'create', '--team', 'ops'])).code, 0);
    // `domains add` stores the domain and schedules its first look-ups for the daemon: it sends nothing itself.
    const added = loads(['--data-dir', dir, '--json', 'domains', 'add', 'example.test']);
    t.equal(added.status, 0, added.stderr);
    t.match(JSON.parse(added.stdout), { domain: 'example.test', is_verified: false });
    const listed = loads(['--data-dir', dir, '--json', 'domains', 'list']);
    t.equal(listed.status, 0, listed.stderr);
    t.match(JSON.parse(listed.stdout), { data: [{ domain: 'example.test' }], total: 1 });
    for (const [name, r] of Object.entries({ 'domains add': added, 'domains list': listed })) {
      t.ok(r.folders.includes('api'), `${name}: the API's routes load (src/: ${r.folders.join(', ')})`);
      t.ok(r.packages.includes('ajv'), `${name}: the request schemas load (${r.packages.join(', ')})`);
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
        `${name}: no koa, body parser, metrics, PostgreSQL, mail or passkey package`,
      );
      t.same(among(r.packages, NETWORK), [], `${name}: no HTTP client, WHOIS, DNS codec or OpenID package`);
      t.same(among(r.folders, ['scheduler']), [], `${name}: no scheduler`);
    }
  },
);
