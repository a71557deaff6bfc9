// Reading a configuration file (docs/configuration-file.md): YAML or JSON text -> the checked document,
// or every error found, each as `file:line:col: rule`. Three passes, all errors of a pass reported
// together: the YAML syntax, the file's JSON Schema (schemas/config/dommon.schema.json, generated
// from the API's schemas), then the rules the schema cannot say (names unique in the file) and the
// `${NAME}` references (an unset variable is an error at the reference). A later step (the apply
// service) reports its own errors by path, placed in the file by `locate`.
import { createRequire } from 'node:module';
import type { Document, LineCounter, Node } from 'yaml';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { CONFIG_SCHEMA_ID, ENV_REF } from './config-schema.js';
import type { ConfigDocument, ConfigPath } from '../domain/config-file.js';

const addFormats = formatsPlugin.default;

// Two readers, loaded when a file is first read (apply, serve --config), not at every command's start.
// js-yaml reads the file: a file of 10,000 endpoints in a tenth of the second the yaml library takes.
// The yaml library is the reference: it reads a file js-yaml refuses (its errors are the ones reported,
// with their line and column), a file with aliases (its alias limit applies), and, only when an error is
// to be placed, every file's positions. Both read YAML 1.2's core schema.
let yamlLib: typeof import('yaml') | undefined;
const yaml = (): typeof import('yaml') => (yamlLib ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));
let jsYamlLib: typeof import('js-yaml') | undefined;
const jsYaml = (): typeof import('js-yaml') =>
  (jsYamlLib ??= createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml'));

/** The file's data by js-yaml, or undefined when it refuses it (or it has aliases): the yaml library reads it then. */
function quickRead(text: string): { value: unknown } | undefined {
  const j = jsYaml();
  try {
    return { value: j.load(text, { schema: j.CORE_SCHEMA, maxAliases: 0 }) };
  } catch (err) {
    if (err instanceof j.YAMLException) return undefined;
    throw err;
  }
}

interface FileError {
  line: number;
  col: number;
  message: string;
}

interface ParsedFile {
  file: string;
  doc?: ConfigDocument;
  errors: FileError[];
  /** Where a path of the document is in the file (1-based line and column; the file's start when unknown). */
  locate(path: ConfigPath): { line: number; col: number };
}

export const formatError = (file: string, e: FileError): string => `${file}:${e.line}:${e.col}: ${e.message}`;

let compiled: ValidateFunction | undefined;
function validator(schemas: Record<string, object>): ValidateFunction {
  if (compiled) return compiled;
  const ajv = new Ajv({ allErrors: true, strict: false, strictNumbers: true, validateSchema: false, meta: false });
  addFormats(ajv);
  const schema = schemas[CONFIG_SCHEMA_ID];
  if (!schema) throw new Error(`schema "${CONFIG_SCHEMA_ID}" is not in schemas/: run npm run build`);
  return (compiled = ajv.compile(schema));
}

/** `/domains/0/endpoints/2` -> ['domains', 0, 'endpoints', 2]. */
function pointerPath(pointer: string): ConfigPath {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function describe(e: ErrorObject): { path: ConfigPath; key?: string; message: string } {
  const path = pointerPath(e.instancePath);
  const at = path.length ? path.join('.') : 'the file';
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      return { path, key, message: `${path.length ? `${at}.` : ''}${key}: unknown field` };
    }
    case 'required':
      return { path, message: `${at}: ${String(params.missingProperty)} is required` };
    case 'enum':
      return { path, message: `${at}: must be one of ${(params.allowedValues as unknown[]).join(', ')}` };
    case 'const':
      return { path, message: `${at}: must be ${JSON.stringify(params.allowedValue)}` };
    case 'pattern':
      if (String(params.pattern).startsWith('^\\$\\{'))
        return { path, message: `${at}: a secret, so only a \${NAME} reference to an environment variable` };
      return { path, message: `${at}: must match ${String(params.pattern)}` };
    default:
      return { path, message: `${at}: ${e.message ?? 'is invalid'}` };
  }
}

/** Secrets stay `${NAME}` until the schema saw them (it accepts only a reference there). */
function isSecretPath(path: ConfigPath, secretKeys: ReadonlyMap<string, ReadonlySet<string>>, doc: unknown): boolean {
  if (path[0] === 'channels' && path.length === 3) {
    const row = (doc as { channels?: Record<string, unknown>[] }).channels?.[path[1] as number];
    return secretKeys.get(String(row?.type))?.has(String(path[2])) ?? false;
  }
  return (
    path[0] === 'domains' &&
    path[2] === 'endpoints' &&
    path[4] === 'liveness' &&
    path[5] === 'auth' &&
    (path[6] === 'password' || path[6] === 'token')
  );
}

/** The channel kinds' secret config keys (`writeOnly` in their schemas). */
function secretKeysOf(schemas: Record<string, object>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [id, s] of Object.entries(schemas)) {
    if (!id.startsWith('channels/')) continue;
    const props = (s as { properties?: Record<string, { writeOnly?: boolean }> }).properties ?? {};
    out.set(id.slice('channels/'.length), new Set(Object.keys(props).filter((k) => props[k]!.writeOnly)));
  }
  return out;
}

/**
 * A copy of the document with each string replaced by `fn(string, its path)`. The path is one array,
 * changed as the walk goes: `fn` copies it to keep it.
 */
function walkStrings(v: unknown, fn: (s: string, path: ConfigPath) => string, path: (string | number)[] = []): unknown {
  if (typeof v === 'string') return fn(v, path);
  if (Array.isArray(v))
    return v.map((x, i) => {
      path.push(i);
      const out = walkStrings(x, fn, path);
      path.pop();
      return out;
    });
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      path.push(k);
      out[k] = walkStrings(x, fn, path);
      path.pop();
    }
    return out;
  }
  return v;
}

/** The `${NAME}` references of a file's text (what `--remote` sends the values of). */
export function referencedNames(text: string): string[] {
  return [...new Set([...text.matchAll(ENV_REF)].map((m) => m[1]!))].sort();
}

/**
 * Reads and checks a file. `env`: the variables `${NAME}` references read (the CLI's environment, or
 * the values `--remote` sent); `schemas`: the loaded schemas/ (the file's schema among them).
 */
export function parseConfigFile(
  text: string,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
  schemas: Record<string, object>,
): ParsedFile {
  let read: { ydoc: Document.Parsed; lines: LineCounter } | undefined;
  /** The yaml library's document (with positions), read at the first need. */
  const full = () => {
    if (read) return read;
    const { parseDocument, LineCounter: Lines } = yaml();
    const lines: LineCounter = new Lines();
    const ydoc: Document.Parsed = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    return (read = { ydoc, lines });
  };
  const errors: FileError[] = [];
  const pos = (offset: number | undefined) => {
    const p = full().lines.linePos(offset ?? 0);
    return { line: p.line, col: p.col };
  };
  const nodeAt = (path: ConfigPath): Node | undefined => {
    const { ydoc } = full();
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? ydoc.contents : (ydoc.getIn(path.slice(0, n), true) as Node | undefined);
      if (node && typeof node === 'object' && 'range' in node && node.range) return node;
    }
    return undefined;
  };
  const locate = (path: ConfigPath) => pos(nodeAt(path)?.range?.[0]);
  /** The position of a key of the mapping at `path`, else of the mapping. */
  const locateKey = (path: ConfigPath, key: string) => {
    const map = nodeAt(path) as
      { items?: { key?: { value?: unknown; range?: [number, number, number] } }[] } | undefined;
    const pair = map?.items?.find((p) => p.key?.value === key);
    return pair?.key?.range ? pos(pair.key.range[0]) : locate(path);
  };
  const result = (doc?: ConfigDocument): ParsedFile => ({
    file,
    doc: errors.length ? undefined : doc,
    errors: errors.sort((a, b) => a.line - b.line || a.col - b.col),
    locate,
  });

  let raw: unknown;
  const quick = quickRead(text);
  if (quick) raw = quick.value;
  else {
    const { ydoc } = full();
    for (const e of [...ydoc.errors, ...ydoc.warnings])
      errors.push({ ...pos(e.pos[0]), message: e.message.split('\n')[0]! });
    if (errors.length) return result();
    raw = ydoc.toJS({ maxAliasCount: 1000 });
  }
  if (raw === null || raw === undefined || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push({ line: 1, col: 1, message: 'the file must be a mapping with at least `version: 1`' });
    return result();
  }

  // Variables first (a reference is checked with its value), except in secret fields, which the schema
  // checks are references and which are resolved after it.
  const secretKeys = secretKeysOf(schemas);
  const unset = new Map<string, ConfigPath>();
  const substitute = (s: string, path: ConfigPath, secret: boolean): string =>
    secret !== isSecretPath(path, secretKeys, raw)
      ? s
      : s.replace(ENV_REF, (m, name: string) => {
          const v = env[name];
          if (v === undefined) {
            if (!unset.has(`${name} ${path.join('.')}`)) unset.set(`${name} ${path.join('.')}`, [...path]);
            return m;
          }
          return v;
        });
  const resolved = walkStrings(raw, (s, path) => substitute(s, path, false));
  const validate = validator(schemas);
  if (!validate(resolved)) {
    // Nested keywords (the channels' if/then) report `if` failures of their own: not the user's error.
    for (const e of validate.errors ?? []) {
      if (e.keyword === 'if') continue;
      const d = describe(e);
      errors.push({ ...(d.key ? locateKey(d.path, d.key) : locate(d.path)), message: d.message });
    }
  }
  const doc = walkStrings(resolved, (s, path) => substitute(s, path, true)) as ConfigDocument;
  for (const [key, path] of unset) {
    const name = key.split(' ')[0]!;
    errors.push({ ...locate(path), message: `${path.join('.')}: the variable ${name} is not set` });
  }
  if (!errors.length) for (const e of uniqueNames(doc)) errors.push({ ...locate(e.path), message: e.message });
  return result(doc);
}

/** Names are the file's keys: each at most once per kind (endpoints: per domain; channels: per type and class). */
function uniqueNames(doc: ConfigDocument): { path: ConfigPath; message: string }[] {
  const out: { path: ConfigPath; message: string }[] = [];
  const once = (kind: string, items: { key: string; name?: string; path: ConfigPath }[]) => {
    const seen = new Map<string, ConfigPath>();
    for (const it of items) {
      const first = seen.get(it.key);
      if (first)
        out.push({ path: it.path, message: `${kind} "${it.name ?? it.key}" is already defined at ${first.join('.')}` });
      else seen.set(it.key, it.path);
    }
  };
  once(
    'portfolio',
    (doc.portfolios ?? []).map((p, i) => ({ key: p.name, path: ['portfolios', i] })),
  );
  once(
    'channel',
    (doc.channels ?? []).map((c, i) => ({
      key: `${c.type} ${c.delivery_class ?? 'instant'}`,
      path: ['channels', i],
    })),
  );
  once(
    'domain',
    (doc.domains ?? []).map((d, i) => ({
      key: d.name.trim().toLowerCase().replace(/\.$/, ''),
      name: d.name,
      path: ['domains', i],
    })),
  );
  (doc.domains ?? []).forEach((d, i) =>
    once(
      `endpoint of ${d.name}`,
      (d.endpoints ?? []).map((e, j) => ({ key: e.name, path: ['domains', i, 'endpoints', j] })),
    ),
  );
  once(
    'status page',
    (doc.status_pages ?? []).map((s, i) => ({ key: s.slug, path: ['status_pages', i] })),
  );
  once(
    'maintenance window',
    (doc.maintenance_windows ?? []).map((m, i) => ({ key: m.name, path: ['maintenance_windows', i] })),
  );
  return out;
}
