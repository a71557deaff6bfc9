// Every request body and query is checked against a JSON Schema from schemas/ (loaded once).
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../package.js';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { Invalid } from '../domain/errors.js';
import { nulRefused } from './json-limits.js';
import type { Validator } from '../domain/validator.js';

const addFormats = formatsPlugin.default;

/** schemas/ at the package root, from src/api (tsx) and dist/api (built) alike. */
export const SCHEMA_DIR = path.join(PACKAGE_ROOT, 'schemas');

export function loadSchemas(dir = SCHEMA_DIR): Record<string, object> {
  const out: Record<string, object> = {};
  const walk = (d: string) => {
    for (const ent of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, ent.name);
      if (ent.isDirectory()) walk(p);
      else if (ent.name.endsWith('.json') && ent.name !== 'openapi.json') {
        const schema = JSON.parse(fs.readFileSync(p, 'utf8')) as { $id?: string };
        const id =
          schema.$id ??
          path
            .relative(dir, p)
            .replace(/\.json$/, '')
            .split(path.sep)
            .join('/');
        out[id] = { ...schema, $id: id };
      }
    }
  };
  walk(dir);
  return out;
}

let packageSchemas: Record<string, object> | undefined;

/**
 * schemas/ of the package, read once per process: the files ship with it and do not change, and a
 * process that starts several apps (the tests, `bench/`) read and parsed them for each (5 ms an app).
 */
function shippedSchemas(): Record<string, object> {
  return (packageSchemas ??= loadSchemas());
}

/** At most this many field errors in one 400's `errors` list. */
const MAX_FIELD_ERRORS = 20;

/** One failed check in words: the field it names (dotted path, "" for the whole) and the message. */
function explain(e: ErrorObject, where: string): { field: string; message: string } {
  const field = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
  const under = (name: string) => (field ? `${field}.${name}` : name);
  if (e.keyword === 'additionalProperties')
    return { field: under((e.params as { additionalProperty: string }).additionalProperty), message: 'unknown field' };
  if (e.keyword === 'required')
    return { field: under((e.params as { missingProperty: string }).missingProperty), message: 'is required' };
  if (e.keyword === 'enum')
    return {
      field: field || where,
      message: `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`,
    };
  return { field: field || where, message: e.message ?? 'is invalid' };
}

/** Keywords that only sum up their parts' errors: left out of the list when the parts are in it. */
const SUMMING = new Set(['if', 'anyOf', 'oneOf', 'allOf', 'not']);

/**
 * The 400 for failed checks: the message names the first (as it always has), `errors` lists every
 * one by field (at most MAX_FIELD_ERRORS, one per field and message), so a form can show each at its
 * field.
 */
function invalid(errors: ErrorObject[] | null | undefined, where: string): Invalid {
  const all = errors ?? [];
  const first = all[0];
  if (!first) return new Invalid(`invalid ${where}`, 'VALIDATION_ERROR', { errors: [] });
  const head = explain(first, where);
  const parts = all.filter((e) => !SUMMING.has(e.keyword));
  const list: { field: string; message: string }[] = [];
  const seen = new Set<string>();
  for (const e of parts.length ? parts : all) {
    const x = explain(e, where);
    const key = `${x.field}\n${x.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (list.length < MAX_FIELD_ERRORS) list.push(x);
  }
  return new Invalid(`${head.field}: ${head.message}`, 'VALIDATION_ERROR', {
    errors: list,
    ...(seen.size > list.length && { errors_omitted: seen.size - list.length }),
  });
}

/** The ids a schema names in `$ref` (every reference in schemas/ is a schema's id). */
function refsOf(node: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) for (const x of node) refsOf(x, out);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.add(v.split('#')[0]!);
      else refsOf(v, out);
    }
  return out;
}

/**
 * Schemas are added to the validators when first asked for (with the schemas they reference) and
 * compile then: a process that checks one request (a command on the local database) adds one or two
 * of them, not all of schemas/ twice. `checkSchemas` adds every one at once and validates each against
 * the JSON Schema meta-schema as it is added (the test suite does; at run time it would slow every
 * process start, see docs/benchmarks.md, for files that ship with the package and do not change).
 */
export function createValidator(
  schemas: Record<string, object> = shippedSchemas(),
  opts: { checkSchemas?: boolean } = {},
): Validator {
  const validateSchema = opts.checkSchemas ?? false;
  // meta: without the check, the draft-07 meta-schema is not even loaded (our schemas name no $schema).
  // strictNumbers: Infinity and NaN are not numbers (JSON.parse reads 1e400 as Infinity, and a query's
  // "Infinity" or "1e400" coerces to it); without it ajv lets Infinity pass as an integer.
  const strict = new Ajv({
    allErrors: true,
    strict: false,
    strictNumbers: true,
    validateSchema,
    meta: validateSchema,
  });
  const coercing = new Ajv({
    allErrors: true,
    strict: false,
    strictNumbers: true,
    coerceTypes: true,
    useDefaults: true,
    validateSchema,
    meta: validateSchema,
  });
  addFormats(strict);
  addFormats(coercing);
  const added = new Map<Ajv, Set<string>>([
    [strict, new Set()],
    [coercing, new Set()],
  ]);
  /** Adds schema `id` and those it references to `ajv`; an id not in schemas/ is left for ajv to report. */
  const add = (ajv: Ajv, id: string): void => {
    const have = added.get(ajv)!;
    const schema = schemas[id];
    if (!schema || have.has(id)) return;
    have.add(id);
    ajv.addSchema(schema);
    for (const ref of refsOf(schema)) add(ajv, ref);
  };
  if (validateSchema)
    for (const id of Object.keys(schemas)) {
      add(strict, id);
      add(coercing, id);
    }
  const compiled = new Map<string, ValidateFunction>();
  const get = (ajv: Ajv, id: string, key: string): ValidateFunction => {
    let fn = compiled.get(key);
    if (!fn) {
      add(ajv, id);
      fn = ajv.getSchema(id);
      if (!fn) throw new Error(`no schema "${id}" in schemas/`);
      compiled.set(key, fn);
    }
    return fn;
  };
  return {
    schemas,
    body<T>(id: string, value: unknown): T {
      const fn = get(strict, id, `b:${id}`);
      if (!fn(value)) throw invalid(fn.errors, 'body');
      return value as T;
    },
    query<T>(id: string, value: Record<string, unknown>): T {
      const copy: Record<string, unknown> = {};
      // Repeated parameters (?a=1&a=2) keep the last value rather than becoming arrays.
      const props =
        (schemas[id] as { properties?: Record<string, { type?: unknown; maximum?: number }> } | undefined)
          ?.properties ?? {};
      for (const [k, v] of Object.entries(value)) {
        const last: unknown = Array.isArray(v) ? v[v.length - 1] : v;
        // No parameter takes a NUL character (%00), as no body field does (json-limits.ts).
        if (typeof last === 'string' && last.includes('\u0000')) throw nulRefused(k);
        // Query booleans also take 1/0 (ajv coerces only "true"/"false").
        copy[k] = props[k]?.type === 'boolean' && (last === '1' || last === '0') ? last === '1' : last;
      }
      const fn = get(coercing, id, `q:${id}`);
      if (!fn(copy)) throw invalid(fn.errors, 'query');
      // ajv checks finiteness before coercing, not after: "1e400" and "Infinity" coerce to Infinity,
      // and its minimum/maximum checks skip non-finite numbers. Refuse them here.
      for (const [k, x] of Object.entries(copy)) {
        if (typeof x === 'number' && !Number.isFinite(x)) {
          const max = props[k]?.maximum;
          throw new Invalid(
            `${k}: ${typeof max === 'number' && x > 0 ? `must be <= ${max}` : 'must be a finite number'}`,
          );
        }
      }
      return copy as T;
    },
    check(id: string, value: unknown): string | null {
      const fn = get(strict, id, `b:${id}`);
      return fn(value) ? null : invalid(fn.errors, 'item').message;
    },
  };
}
