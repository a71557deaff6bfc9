// The layering rules of src/domain/README.md, read from the source: the domain layer is pure (no node:
// module, no transport, nothing from outside src/domain/ but a few pure libraries, no HTTP status in
// its errors), and network I/O happens only where the list below says.
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ERROR_MEANINGS } from '../../src/domain/errors.js';
import { HTTP_STATUS } from '../../src/api/errors.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const DOMAIN = path.join(SRC, 'domain');

/** Pure libraries the domain may import: computation only, no I/O, no runtime (node:) dependency. */
const DOMAIN_LIBRARIES = new Set([
  'tldts', // public suffix list look-ups
  'ipaddr.js', // IP address and CIDR arithmetic
  'croner', // cron expressions in a time zone (maintenance windows)
]);

/** Modules that open sockets or speak a network protocol. */
const NETWORK_MODULES = new Set([
  'net',
  'tls',
  'dgram',
  'dns',
  'dns/promises',
  'http',
  'https',
  'http2',
  'undici',
  'nodemailer',
  'whoiser',
  'openid-client',
]);

/**
 * Where network modules (or fetch) may be used, and why. Everything else reaches the network through
 * these: services call probes, the composition root hands them over.
 */
const NETWORK_ALLOWED: { path: string; why: string }[] = [
  {
    path: 'probes/',
    why: "the network probes: liveness, TLS, DNS, RDAP, WHOIS, the exposure scanner, the doctor's peer checks",
  },
  { path: 'channels/', why: 'notification delivery: webhooks, e-mail, push services' },
  {
    path: 'net/',
    why: 'outbound connections both of the above make: the guarded resolver and HTTP agent, the SMTP transport options; the OpenID Connect client of single sign-on',
  },
  {
    path: 'app.ts',
    why: "the composition root: the daemon's HTTP server (node:http), Node's root CAs for `dommon check --ca` (node:tls)",
  },
  { path: 'api/routes/metrics.ts', why: 'node:net isIPv4/isIPv6 only (the scrape allow-list); no I/O' },
  {
    path: 'cli/http.ts',
    why: "the command line's HTTP client (node:http, node:https): --remote requests to a daemon and dommon run's pings to a push endpoint's URL",
  },
  { path: 'cli/check/targets.ts', why: 'node:net isIP only (reading targets); no I/O' },
];

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return files(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

interface Import {
  specifier: string;
  /** `import type` / `export type` (or only `type` specifiers): erased at build, loads nothing. */
  typeOnly: boolean;
}

/** Static imports, re-exports, side-effect imports, dynamic import() and require() of a source file. */
function importsOf(source: string): Import[] {
  const out: Import[] = [];
  const clause = /^\s*(?:import|export)\s+(type\s+)?([^;'"]*?)\s+from\s+['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(clause)) {
    const braces = /^\{([^}]*)\}$/.exec(m[2]!.trim());
    const allTypes =
      braces !== null &&
      braces[1]!
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .every((s) => s.startsWith('type '));
    out.push({ specifier: m[3]!, typeOnly: Boolean(m[1]) || allTypes });
  }
  for (const m of source.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) out.push({ specifier: m[1]!, typeOnly: false });
  for (const m of source.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g))
    out.push({ specifier: m[1]!, typeOnly: false });
  return out;
}

const bare = (specifier: string) => specifier.replace(/^node:/, '');
const isBuiltin = (specifier: string) =>
  specifier.startsWith('node:') ||
  builtinModules.includes(specifier) ||
  builtinModules.includes(specifier.split('/')[0]!);
/** The package a bare specifier names (`@scope/name` or `name`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
/** Source without whole-line comments (so that a comment may mention fetch() or an import). */
const code = (source: string) =>
  source
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l))
    .join('\n');
const rel = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

t.test('the import reader finds every form', async (t) => {
  const src = [
    "import a from 'node:fs';",
    "import type { B } from './b.js';",
    "import { type C, type D } from '../c.js';",
    "import {\n  e,\n  type F,\n} from 'undici';",
    "export { g } from 'koa';",
    "import 'side-effect';",
    "const h = await import('node:http');",
    '// import x from "commented-out";',
  ].join('\n');
  t.same(importsOf(src), [
    { specifier: 'node:fs', typeOnly: false },
    { specifier: './b.js', typeOnly: true },
    { specifier: '../c.js', typeOnly: true },
    { specifier: 'undici', typeOnly: false },
    { specifier: 'koa', typeOnly: false },
    { specifier: 'side-effect', typeOnly: false },
    { specifier: 'node:http', typeOnly: false },
  ]);
});

t.test('src/domain imports only src/domain and the listed pure libraries', async (t) => {
  const domainFiles = files(DOMAIN);
  t.ok(domainFiles.length > 10, `${domainFiles.length} domain files read`);
  const problems: string[] = [];
  for (const file of domainFiles) {
    const source = fs.readFileSync(file, 'utf8');
    for (const { specifier } of importsOf(source)) {
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier);
        if (target !== DOMAIN && !target.startsWith(DOMAIN + path.sep))
          problems.push(`${rel(file)}: imports ${specifier} (outside src/domain)`);
      } else if (isBuiltin(specifier)) {
        problems.push(`${rel(file)}: imports the Node module ${specifier}`);
      } else if (!DOMAIN_LIBRARIES.has(packageOf(specifier))) {
        problems.push(`${rel(file)}: imports ${specifier} (not a listed pure library)`);
      }
    }
    const body = code(source);
    if (/\bfetch\(|\bprocess\.|\bXMLHttpRequest\b|\bWebSocket\b/.test(body))
      problems.push(`${rel(file)}: touches the network or the process`);
  }
  t.same(problems, [], 'no import or I/O outside the rules');
});

t.test("the domain's errors carry a meaning, never an HTTP status", async (t) => {
  const problems: string[] = [];
  for (const file of files(DOMAIN)) {
    const source = code(fs.readFileSync(file, 'utf8'));
    // Each class that is an error: its header and its body up to the matching brace.
    for (const m of source.matchAll(
      /^(?:export\s+)?class\s+(\w+)\s+extends\s+(?:\w*Error|Invalid|Unauthorized|PlanLimit|Forbidden|NotFound|QuotaExceeded|Conflict)\b[^{]*\{/gm,
    )) {
      let depth = 1;
      let end = m.index + m[0].length;
      for (; end < source.length && depth > 0; end++) {
        if (source[end] === '{') depth++;
        else if (source[end] === '}') depth--;
      }
      const block = source.slice(m.index, end);
      if (/\b(status|statusCode|httpStatus)\b/.test(block)) problems.push(`${rel(file)}: ${m[1]} has a status field`);
      for (const n of block.matchAll(/\b([1-5]\d\d)\b/g))
        problems.push(`${rel(file)}: ${m[1]} holds the number ${n[1]} (an HTTP status?)`);
    }
  }
  t.same(problems, [], 'no HTTP status in an error definition');
  t.same(
    Object.keys(HTTP_STATUS).sort(),
    [...ERROR_MEANINGS].sort(),
    'src/api/errors.ts maps every meaning, and only those',
  );
  const readme = fs.readFileSync(path.join(DOMAIN, 'README.md'), 'utf8');
  for (const [meaning, status] of Object.entries(HTTP_STATUS)) {
    t.match(
      readme,
      new RegExp(`\\|\\s*\`${meaning}\`\\s*\\|\\s*${status}\\b`),
      `README's table: ${meaning} -> ${status}`,
    );
  }
});

t.test(`network modules (${[...NETWORK_MODULES].join(', ')}) and fetch only where allowed`, async (t) => {
  const allowed = (r: string) =>
    NETWORK_ALLOWED.some((a) => (a.path.endsWith('/') ? r.startsWith(a.path) : r === a.path));
  const problems: string[] = [];
  const used = new Set<string>();
  for (const file of files(SRC)) {
    const r = rel(file);
    const source = fs.readFileSync(file, 'utf8');
    const network = importsOf(source).filter(
      (i) => !i.typeOnly && NETWORK_MODULES.has(isBuiltin(i.specifier) ? bare(i.specifier) : packageOf(i.specifier)),
    );
    const fetches = /\bfetch\(/.test(code(source));
    if (!network.length && !fetches) continue;
    for (const a of NETWORK_ALLOWED) if (a.path.endsWith('/') ? r.startsWith(a.path) : r === a.path) used.add(a.path);
    if (!allowed(r))
      problems.push(`${r}: ${[...network.map((i) => i.specifier), ...(fetches ? ['fetch()'] : [])].join(', ')}`);
  }
  t.same(problems, [], 'network I/O outside probes/, channels/, net/ and the listed transport files');
  // The list stays truthful: every entry is still needed.
  t.same(
    NETWORK_ALLOWED.map((a) => a.path).filter((p) => !used.has(p)),
    [],
    'no stale entry in NETWORK_ALLOWED',
  );
});
