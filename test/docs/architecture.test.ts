// docs/architecture.md against the code. The layer table is LAYERS in eslint.config.js (the single
// source of the layer picture): the table shows exactly LAYERS, every relative import in src/ keeps to
// it, every folder and top-level file of src/ has a row, the rows make no loop, and the lint rule built
// from LAYERS refuses exactly what LAYERS leaves out. The channel recipe names what the code declares.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { ESLint } from 'eslint';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = path.join(ROOT, 'src');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');

type Layers = Record<string, string[]>;
const { LAYERS } = (await import(pathToFileURL(path.join(ROOT, 'eslint.config.js')).href)) as { LAYERS: Layers };

/** How a layer is written in the docs: `domain/` for a folder, `app.ts` for a top-level file. */
const TOP_LEVEL = new Set(
  fs
    .readdirSync(SRC)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3)),
);
const shown = (layer: string) => (TOP_LEVEL.has(layer) ? `${layer}.ts` : `${layer}/`);

/** The rows of the table after the `<!-- layers: ... -->` marker: layer -> what it may import. */
function docTable(doc: string): Layers {
  const at = doc.indexOf('<!-- layers:');
  if (at < 0) return {};
  const out: Layers = {};
  const lines = doc.slice(at).split('\n').slice(1);
  for (const line of lines.slice(lines.findIndex((l) => l.startsWith('|')))) {
    if (!line.startsWith('|')) break;
    const m = /^\| `([a-z-]+)(?:\/|\.ts)` \| (.*) \|$/.exec(line);
    if (!m) continue;
    out[m[1]!] = m[2] === 'nothing from `src/`' ? [] : [...m[2]!.matchAll(/`([a-z-]+)(?:\/|\.ts)`/g)].map((x) => x[1]!);
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** The layer a file of src/ belongs to: its top folder, or the top-level file's name. */
function layerOf(file: string): string {
  const [first, ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length ? first! : first!.replace(/\.(?:tsx?|js)$/, '');
}

/** Every relative import, re-export and dynamic import() of a file, resolved to the layer it reaches. */
function reached(file: string): { specifier: string; layer: string }[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: { specifier: string; layer: string }[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm)) {
    const target = path.resolve(path.dirname(file), m[1]!);
    if (path.relative(SRC, target).startsWith('..')) continue;
    out.push({ specifier: m[1]!, layer: layerOf(target) });
  }
  return out;
}

t.test('the table in docs/architecture.md is LAYERS of eslint.config.js', async (t) => {
  const table = docTable(DOC);
  t.ok(Object.keys(table).length > 0, 'the table follows the <!-- layers: --> marker');
  t.same(Object.keys(table).sort(), Object.keys(LAYERS).sort(), 'the same layers');
  for (const [layer, allowed] of Object.entries(LAYERS))
    t.same([...(table[layer] ?? [])].sort(), [...allowed].sort(), `${shown(layer)} may import the same`);
});

t.test('every folder and top-level file of src/ is a layer; every layer named exists', async (t) => {
  const present = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory() || /\.tsx?$/.test(e.name))
    .map((e) => (e.isDirectory() ? e.name : e.name.replace(/\.tsx?$/, '')))
    .sort();
  t.same(Object.keys(LAYERS).sort(), present);
  for (const [layer, allowed] of Object.entries(LAYERS))
    for (const a of allowed) t.ok(a in LAYERS && a !== layer, `${layer} -> ${a}: a layer other than itself`);
});

t.test('the layers make no loop', async (t) => {
  const loops: string[] = [];
  const walk = (layer: string, trail: string[]) => {
    if (trail.includes(layer)) {
      loops.push([...trail.slice(trail.indexOf(layer)), layer].join(' -> '));
      return;
    }
    for (const next of LAYERS[layer] ?? []) walk(next, [...trail, layer]);
  };
  for (const layer of Object.keys(LAYERS)) walk(layer, []);
  t.same([...new Set(loops)], []);
});

t.test('every import in src/ keeps to LAYERS', async (t) => {
  const broken: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const layer = layerOf(file);
    for (const r of reached(file))
      if (r.layer !== layer && !(LAYERS[layer] ?? []).includes(r.layer))
        broken.push(`${path.relative(ROOT, file)}: '${r.specifier}' (${shown(layer)} -> ${shown(r.layer)})`);
  }
  t.same(broken, [], 'no import reaches a layer its row does not list');
});

t.test('the lint rule built from LAYERS refuses exactly the layers a row leaves out', async (t) => {
  const eslint = new ESLint({ cwd: ROOT });
  for (const [layer, allowed] of Object.entries(LAYERS)) {
    const top = TOP_LEVEL.has(layer);
    const config = (await eslint.calculateConfigForFile(top ? `src/${layer}.ts` : `src/${layer}/x.ts`)) as {
      rules?: Record<string, [unknown, { patterns: { regex: string }[] }]>;
    };
    const rule = config.rules?.['@typescript-eslint/no-restricted-imports'];
    t.ok(rule, `${shown(layer)} has the layer rule`);
    const regexes = (rule?.[1].patterns ?? []).map((p) => new RegExp(p.regex));
    const refused = (specifier: string) => regexes.some((r) => r.test(specifier));
    for (const other of Object.keys(LAYERS).filter((l) => l !== layer)) {
      const specifier = `${top ? './' : '../'}${TOP_LEVEL.has(other) ? `${other}.js` : `${other}/x.js`}`;
      t.equal(refused(specifier), !allowed.includes(other), `${shown(layer)} -> ${shown(other)}: '${specifier}'`);
    }
    if (!top) t.notOk(refused('./sibling.js'), `${shown(layer)} imports its own files`);
  }
});

t.test('the channel recipe names what the code declares', async (t) => {
  const recipe = DOC.slice(DOC.indexOf('## Adding a notification channel'), DOC.indexOf('## Adding an endpoint type'));
  t.ok(recipe.length > 0, 'the recipe is there');
  // `Name` (`src/file.ts`): the file declares Name.
  const named = [...recipe.matchAll(/`([A-Za-z_]\w*)`\s+\(`(src\/[^`]+\.ts)`/g)];
  for (const [, name, file] of named) {
    const text = fs.existsSync(path.join(ROOT, file!)) ? fs.readFileSync(path.join(ROOT, file!), 'utf8') : '';
    t.match(text, new RegExp(`\\b(?:const|function|interface|type|class)\\s+${name}\\b`), `${file} declares ${name}`);
  }
  // The registry's compile-time check, quoted as it is written.
  const index = fs.readFileSync(path.join(SRC, 'channels/index.ts'), 'utf8');
  for (const [, quoted] of recipe.matchAll(/`(satisfies [^`]+)`/g))
    t.ok(index.includes(quoted!), `src/channels/index.ts has \`${quoted}\``);
  // The generated files are named as generated, with what generates them.
  for (const generated of ['schemas/channels/', 'channels.md'])
    if (recipe.includes(generated))
      t.match(recipe, /`npm run build` \(`scripts\/channels\.mjs`\)/, `${generated}: generated`);
  t.notMatch(recipe, /the kind in `CHANNELS`/, 'no second list of kinds to extend');
});

t.test('comments in src/ state rules and reasons, not which issue changed them', async (t) => {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const rel = path.relative(ROOT, file);
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const comment = /(?:\/\/|\/\*|^\s*\*)(.*)$/.exec(line)?.[1] ?? '';
        if (/\bissue\s*#?\d+|\bitem \d+ of issue\b/i.test(comment)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
  }
  t.same(found, [], 'no "issue N" in a comment: say the rule and its reason');
});
