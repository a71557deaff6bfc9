// The documentation keeps up with the code: every DOMMON_* variable that appears in src/, every
// command of the commander program and every documented API operation (src/api/openapi/operations.ts,
// which test/api/openapi.test.ts holds equal to what the router serves) is mentioned somewhere in
// docs/; the CLI reference in docs/cli.md is what `npm run docs` would write; README.md stays a
// front door; and every relative link in README.md and docs/ points at a file (and heading) that exists.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { OPERATIONS } from '../../src/api/openapi/operations.js';
import { cliReference, withReference, CLI_DOC } from '../../scripts/cli-reference.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README_MAX_LINES = 220;
/**
 * Pages other branches are writing at the same time (channels, endpoint types). A link to one of
 * them may point ahead of the merge; once the file exists, its links and headings are checked too.
 */
const PENDING_PAGES = new Set<string>();

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(file, keep));
    else if (keep(file)) out.push(file);
  }
  return out.sort();
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');
const docFiles = walk(path.join(ROOT, 'docs'), (f) => f.endsWith('.md'));
const docs = docFiles.map((f) => fs.readFileSync(f, 'utf8')).join('\n');

t.test('every DOMMON_* variable in src/ is documented in docs/', async (t) => {
  const used = new Map<string, string>();
  for (const file of walk(path.join(ROOT, 'src'), () => true)) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/DOMMON_[A-Z0-9_]+/g)) {
      // `DOMMON_FOO_` is a prefix a name is built from; the full names must be documented.
      const name = m[0].replace(/_+$/, '');
      if (name !== 'DOMMON' && !used.has(name)) used.set(name, rel(file));
    }
  }
  t.ok(used.size >= 20, `found ${used.size} variables in src/`);
  const missing = [...used]
    .filter(([name]) => !new RegExp(`\\b${name}\\b`).test(docs))
    .map(([name, file]) => `${name} (${file})`);
  t.same(missing, [], 'variables used in src/ but mentioned nowhere in docs/');
});

function commandNames(cmd: Command, prefix: string): string[] {
  const out: string[] = [];
  for (const sub of cmd.commands) {
    if (sub.name() === 'help') continue;
    const name = `${prefix} ${sub.name()}`;
    out.push(name, ...commandNames(sub, name));
  }
  return out;
}

t.test('every CLI command is documented in docs/, and the generated reference is current', async (t) => {
  const program = buildProgram();
  const names = commandNames(program, 'dommon');
  t.ok(names.length >= 40, `found ${names.length} commands`);
  const missing = names.filter((n) => !new RegExp(`${n.replace(/[-]/g, '\\$&')}(?![\\w-])`).test(docs));
  t.same(missing, [], 'commands of src/cli/program.ts mentioned nowhere in docs/');

  const current = fs.readFileSync(path.join(ROOT, CLI_DOC), 'utf8');
  t.ok(/<!-- cli:start -->[\s\S]*<!-- cli:end -->/.test(current), `${CLI_DOC} has the cli:start / cli:end markers`);
  t.equal(withReference(current, cliReference(program)), current, `${CLI_DOC} is stale: run \`npm run docs\``);
});

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
/** `/api/v1/domains/:domainId`, `/api-domains/{domainId}` and `/x/<id>` all become `/api/v1/domains/{}`. */
const normalise = (p: string) =>
  p
    .trim()
    .replace(/\?.*$/, '')
    .replace(/\/(:[^/]+|\{[^/}]+\}|<[^/>]+>)/g, '/{}')
    .replace(/\/$/, '') || '/';

/** "METHOD path" pairs the docs mention: table rows `| GET, POST | \`/path\` | ...` and inline `` `GET /path` ``. */
function documentedRoutes(text: string): Set<string> {
  const found = new Set<string>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (line.trim().startsWith('|') && cells.length > 3) {
      const methods = cells[1]!.split(/[,/ ]+/).filter(Boolean);
      const route = /^`([^`\s]+)`/.exec(cells[2]!);
      if (route && methods.length && methods.every((m) => METHODS.includes(m))) {
        for (const m of methods) found.add(`${m} ${normalise(route[1]!)}`);
      }
    }
    for (const m of line.matchAll(/`(GET|POST|PUT|DELETE|PATCH) (\/[^`\s]*)`/g))
      found.add(`${m[1]} ${normalise(m[2]!)}`);
  }
  return found;
}

t.test('every API operation is documented in docs/ with its method', async (t) => {
  const found = documentedRoutes(docs);
  const wanted = OPERATIONS.flatMap((op) =>
    [op.path, ...(op.alias ? [op.alias] : [])].map((p) => `${op.method.toUpperCase()} ${normalise(p)}`),
  );
  t.ok(wanted.length >= 80, `found ${wanted.length} operations`);
  const missing = [...new Set(wanted)].filter((r) => !found.has(r));
  t.same(
    missing,
    [],
    'operations of src/api/openapi/operations.ts not in a docs/ route table (| METHOD | `path` |) nor as `METHOD /path`',
  );
});

t.test(`README.md is a front door of at most ${README_MAX_LINES} lines`, async (t) => {
  const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
  t.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`);
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown).split('\n')) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = h[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Fenced code blocks dropped: a `# comment` in a shell example is not a heading. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1\s*$/gm, '');
}

/** Inline code spans dropped too: links inside them are examples. */
function withoutCode(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '');
}

t.test('every relative link in README.md and docs/ points at an existing file and heading', async (t) => {
  const pages = [path.join(ROOT, 'README.md'), ...docFiles];
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages) {
    const text = fs.readFileSync(page, 'utf8');
    for (const m of withoutCode(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const href = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:, ...
      checked++;
      const [target, anchor] = href.split('#') as [string, string | undefined];
      const file = target ? path.resolve(path.dirname(page), decodeURIComponent(target)) : page;
      if (!fs.existsSync(file)) {
        if (!PENDING_PAGES.has(rel(file))) broken.push(`${rel(page)}: ${href} (no such file)`);
        continue;
      }
      if (
        anchor &&
        file.endsWith('.md') &&
        !anchors(fs.readFileSync(file, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())
      ) {
        broken.push(`${rel(page)}: ${href} (no such heading in ${rel(file)})`);
      }
    }
  }
  t.ok(checked > 50, `checked ${checked} links`);
  t.same(broken, [], 'broken relative links');
});
