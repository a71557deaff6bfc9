// Conditions in Gatus's syntax (`[STATUS] == 200`, `len([BODY].items) > 0`, `[IP] == pat(10.*)`): the
// parser that answers an invalid expression with the position of its error, and the evaluator that
// judges one answer. Pure: a probe type hands over the values of its placeholders as a context
// object (an HTTP check its status, time and body; a DNS check its rcode and answers), and reads
// `uses` to learn which ones a set of conditions needs (the body is read only when one names it).
//
// Gatus's meaning is kept (docs/conditions.md lists the few places where it is not): an expression
// is two operands around one operator written with a space on each side; values compare as Go
// integers when both sides read as one (0x, 0o, 0b and 0-octal prefixes, `_` separators), else as
// strings; < <= > >= compare numbers, where a Go duration (`48h`, `1h30m`, `300ms`) counts as its
// milliseconds and a decimal is cut to its integer part; pat() is a wildcard match (`*`, `?`,
// `[a-z]`; `/` ignored on both sides), any() a list of exact alternatives; `[*]` in a body path
// means every element of the array.
import { goDurationMs } from './go-duration.js';

/** The placeholders a condition may name. */
export const PLACEHOLDERS = [
  'STATUS',
  'RESPONSE_TIME',
  'BODY',
  'CONNECTED',
  'IP',
  'CERTIFICATE_EXPIRATION',
  'DOMAIN_EXPIRATION',
  'DNS_RCODE',
  // dommon's own (Gatus has no such placeholder): an icmp check's share of unanswered echo requests.
  'PACKET_LOSS',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/**
 * The values a probe saw, one per placeholder. Numbers are integers: RESPONSE_TIME and the two
 * expirations in milliseconds, PACKET_LOSS in percent. A placeholder left out reads as Gatus's zero value (0, '', false).
 * BODY is the answer's text (at most the probe's read bound); JSON paths parse it, once per evaluation.
 */
export type ConditionContext = Partial<Record<Placeholder, string | number | boolean>>;

type ConditionOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';
/** Gatus looks for the operators in this order and splits at the first one found. */
const OPERATORS: readonly ConditionOperator[] = ['==', '!=', '<=', '>=', '>', '<'];

/** Most conditions on one check, and the longest one (characters). */
export const MAX_CONDITIONS = 32;
export const MAX_CONDITION_LENGTH = 1024;
/** The longest value a failure records (characters): enough to see what was wrong, never a whole body. */
export const MAX_SEEN_LENGTH = 64;

type PathSegment = { key: string } | { index: number } | { wildcard: true };

type Operand =
  | { kind: 'literal'; text: string }
  | {
      kind: 'placeholder';
      name: Placeholder;
      path: PathSegment[] | null;
      fn: 'len' | 'has' | null;
      text: string;
      /** A [BODY] operand's key in a BodyMemo ('' for the others): made once, not on every check. */
      key: string;
      /** The index of the path's first `[*]`, or -1. */
      wildcard: number;
    }
  | { kind: 'pattern'; pattern: string; text: string }
  | { kind: 'any'; options: string[]; text: string };

export interface ParsedCondition {
  /** The expression as written. */
  readonly source: string;
  readonly operator: ConditionOperator;
  readonly left: Operand;
  readonly right: Operand;
}

/** A set of parsed conditions and the placeholders they read. */
export interface ConditionSet {
  readonly conditions: readonly ParsedCondition[];
  readonly uses: ReadonlySet<Placeholder>;
}

/** An expression that does not parse: `position` is the 0-based character offset of the error in it. */
export class ConditionSyntaxError extends Error {
  readonly position: number;
  /** Which condition of a list (0-based); -1 for a single expression. */
  readonly index: number;
  constructor(message: string, position: number, index = -1) {
    super(message);
    this.name = 'ConditionSyntaxError';
    this.position = position;
    this.index = index;
  }
}

export interface ParseOptions {
  /** The placeholders the probe type supplies; another one is an error. Default: all. */
  placeholders?: readonly Placeholder[];
}

const FUNCTION_CALL = /^(len|has|age|pat|any)\(/;

/** Parses one expression; throws ConditionSyntaxError with the position of the first error. */
export function parseCondition(source: string, options: ParseOptions = {}): ParsedCondition {
  if (source.length > MAX_CONDITION_LENGTH)
    throw new ConditionSyntaxError(`longer than ${MAX_CONDITION_LENGTH} characters`, MAX_CONDITION_LENGTH);
  if (source.trim() === '') throw new ConditionSyntaxError('empty condition', 0);
  let operator: ConditionOperator | null = null;
  let at = -1;
  for (const op of OPERATORS) {
    at = source.indexOf(` ${op} `);
    if (at >= 0) {
      operator = op;
      break;
    }
  }
  if (operator === null) {
    const bare = /[=!<>]=|[<>]/.exec(source);
    if (bare)
      throw new ConditionSyntaxError(
        `operator "${bare[0]}" needs a space on each side (as in "[STATUS] == 200")`,
        bare.index,
      );
    throw new ConditionSyntaxError('expected an operator: ==, !=, <, <=, > or >=', source.length);
  }
  const rightStart = at + operator.length + 2;
  const again = source.indexOf(` ${operator} `, rightStart - 1);
  if (again >= 0) throw new ConditionSyntaxError(`a second "${operator}": one operator per condition`, again + 1);
  const allowed = new Set(options.placeholders ?? PLACEHOLDERS);
  const left = parseOperand(source, 0, at, allowed, operator);
  const right = parseOperand(source, rightStart, source.length, allowed, operator);
  const matcher = (o: Operand) => o.kind === 'pattern' || o.kind === 'any';
  if (matcher(left) && matcher(right))
    throw new ConditionSyntaxError('pat() and any() compare with a value, not with each other', rightStart);
  return { source, operator, left, right };
}

/** Parses a list; the error names the condition (its `index`) and the position within it. */
export function parseConditions(sources: readonly string[], options: ParseOptions = {}): ConditionSet {
  if (sources.length > MAX_CONDITIONS) throw new ConditionSyntaxError(`at most ${MAX_CONDITIONS} conditions`, 0, 0);
  const conditions = sources.map((s, i) => {
    try {
      return parseCondition(s, options);
    } catch (e) {
      if (e instanceof ConditionSyntaxError) throw new ConditionSyntaxError(e.message, e.position, i);
      throw e;
    }
  });
  const uses = new Set<Placeholder>();
  for (const c of conditions) for (const o of [c.left, c.right]) if (o.kind === 'placeholder') uses.add(o.name);
  return { conditions, uses };
}

/** The condition `[STATUS] == N` that `expected_status_code` is the short form of. */
export const statusCondition = (code: number): string => `[STATUS] == ${code}`;

function parseOperand(
  source: string,
  from: number,
  to: number,
  allowed: ReadonlySet<Placeholder>,
  operator: ConditionOperator,
): Operand {
  const numeric = operator !== '==' && operator !== '!=';
  const raw = source.slice(from, to);
  const lead = raw.length - raw.trimStart().length;
  const text = raw.trim();
  const start = from + lead;
  if (text === '') throw new ConditionSyntaxError('expected a value or a placeholder', from);
  const fn = FUNCTION_CALL.exec(text);
  if (fn) {
    const name = fn[1];
    if (!text.endsWith(')')) throw new ConditionSyntaxError(`missing ")" closing ${name}(`, start + text.length);
    const inner = text.slice(name.length + 1, -1);
    const innerStart = start + name.length + 1;
    if (name === 'age') throw new ConditionSyntaxError('age() is not supported', start);
    if (name === 'pat' || name === 'any') {
      if (numeric) throw new ConditionSyntaxError(`${name}() compares only with == and !=`, start);
      return name === 'pat'
        ? { kind: 'pattern', pattern: inner, text }
        : { kind: 'any', options: inner.split(',').map((s) => s.trim()), text };
    }
    const innerLead = inner.length - inner.trimStart().length;
    const ph = parsePlaceholder(inner.trim(), innerStart + innerLead, allowed);
    if (!ph) throw new ConditionSyntaxError(`${name}() takes a placeholder, such as ${name}([BODY].items)`, innerStart);
    return placeholderOperand(ph, name as 'len' | 'has', text);
  }
  const ph = parsePlaceholder(text, start, allowed);
  if (ph) return placeholderOperand(ph, null, text);
  if (numeric && numberOf(text) === null)
    throw new ConditionSyntaxError(
      `"${text}" is not a number or a duration (such as 300, 1.5, 48h, 500ms): ${operator} compares numbers`,
      start,
    );
  return { kind: 'literal', text };
}

function placeholderOperand(
  ph: { name: Placeholder; path: PathSegment[] | null },
  fn: 'len' | 'has' | null,
  text: string,
): Operand {
  const { name, path } = ph;
  return {
    kind: 'placeholder',
    name,
    path,
    fn,
    text,
    key: name === 'BODY' ? memoKey(fn, path) : '',
    wildcard: path ? wildcardAt(path) : -1,
  };
}

/** `[NAME]` or `[BODY]` with a path; null for a literal. Unknown `[UPPER_CASE]` names are errors. */
function parsePlaceholder(
  text: string,
  start: number,
  allowed: ReadonlySet<Placeholder>,
): { kind: 'placeholder'; name: Placeholder; path: PathSegment[] | null } | null {
  const m = /^\[([A-Za-z_]+)\]/.exec(text);
  if (!m) return null;
  const upper = m[1].toUpperCase();
  const name = PLACEHOLDERS.find((p) => p === upper);
  if (!name) {
    if (m[1] !== upper) return null; // [lowercase] that names nothing: a literal, as Gatus reads it
    throw new ConditionSyntaxError(
      `unknown placeholder [${upper}]; known: ${PLACEHOLDERS.map((p) => `[${p}]`).join(' ')}`,
      start,
    );
  }
  if (!allowed.has(name)) throw new ConditionSyntaxError(`[${name}] is not available on this check type`, start);
  const rest = text.slice(m[0].length);
  if (rest === '') return { kind: 'placeholder', name, path: null };
  if (name !== 'BODY') throw new ConditionSyntaxError(`unexpected "${rest}" after [${name}]`, start + m[0].length);
  return { kind: 'placeholder', name, path: parsePath(rest, start + m[0].length) };
}

/** `.data[0].name`, `[0].id`, `.items[*].state`. */
function parsePath(path: string, start: number): PathSegment[] {
  const segments: PathSegment[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      let j = i + 1;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      if (j === i + 1) throw new ConditionSyntaxError('expected a key after "."', start + i + 1);
      const key = path.slice(i + 1, j);
      const bad = key.search(/[\]\s]/);
      if (bad >= 0) throw new ConditionSyntaxError(`unexpected "${key[bad]}" in a body path`, start + i + 1 + bad);
      segments.push({ key });
      i = j;
    } else if (c === '[') {
      const close = path.indexOf(']', i);
      if (close < 0) throw new ConditionSyntaxError('missing "]"', start + path.length);
      const inner = path.slice(i + 1, close);
      if (inner === '*') segments.push({ wildcard: true });
      else if (/^\d{1,9}$/.test(inner)) segments.push({ index: Number(inner) });
      else throw new ConditionSyntaxError('an array index is a number or *', start + i + 1);
      i = close + 1;
    } else {
      throw new ConditionSyntaxError('a body path goes on with "." or "["', start + i);
    }
  }
  return segments;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** A condition that did not hold, and what was seen. */
export interface ConditionFailure {
  /** Its place in the list (0-based). */
  index: number;
  /** As written. */
  condition: string;
  /** Gatus's display: each placeholder followed by its value, e.g. `[STATUS] (503) == 200`; values cut at MAX_SEEN_LENGTH. */
  seen: string;
}

export interface ConditionsOutcome {
  readonly ok: boolean;
  /** Every condition that failed, in list order. */
  readonly failures: readonly ConditionFailure[];
}

/** The outcome of every passing evaluation: one object, as a passing check allocates nothing for it. */
const PASSED: ConditionsOutcome = Object.freeze({ ok: true, failures: Object.freeze([]) });

/**
 * The values of [BODY] operands (a path's value, `len()`, `has()`, the length of an array under a
 * `[*]`) that one body gave, kept by a probe between the checks of one configuration so that a body
 * identical to the last one (the same bytes: equal digests) is neither decoded nor parsed again.
 * Every other placeholder ([STATUS], [RESPONSE_TIME]...) is read fresh on every check: only what
 * the bytes alone decide is kept. At most MAX_BODY_MEMO characters of values are kept; past that a
 * value is worked out again on each check.
 */
export interface BodyMemo {
  digest: string | null;
  values: Map<string, string | number | null>;
  size: number;
}

/** The most a BodyMemo keeps (characters of keys and values, each value counted at least 16). */
export const MAX_BODY_MEMO = 4096;

export const bodyMemo = (): BodyMemo => ({ digest: null, values: new Map(), size: 0 });

/** A body handed over as bytes rather than in the context: decoded only when a value is not in the memo. */
export interface BodySource {
  /** The body as text (UTF-8 decoded), asked for at most once. */
  text: () => string;
  /** A digest of the body's bytes (collision-resistant: equal digests are taken as equal bytes). */
  digest: string;
  memo: BodyMemo;
}

/**
 * Judges every condition of the set against one probe's values; all must hold. With `source`, the
 * body comes from it (and from its memo when the digest is the last one's) instead of context.BODY.
 */
export function evaluateConditions(
  set: ConditionSet,
  context: ConditionContext,
  source?: BodySource,
): ConditionsOutcome {
  const body = new BodyCache(context, source);
  const list = set.conditions;
  let failures: ConditionFailure[] | null = null;
  for (let index = 0; index < list.length; index++) {
    const c = list[index];
    const seen = evaluate(c, c.left, c.right, context, body);
    if (seen !== null) (failures ??= []).push({ index, condition: c.source, seen });
  }
  return failures === null ? PASSED : { ok: false, failures };
}

class BodyCache {
  private parsed: { ok: true; value: unknown } | { ok: false } | undefined;
  private text: string | undefined;
  private readonly memo: BodyMemo | null;
  constructor(
    private readonly context: ConditionContext,
    private readonly source?: BodySource,
  ) {
    this.memo = source?.memo ?? null;
    if (source && source.memo.digest !== source.digest) {
      // Another body: the values of the last one no longer hold.
      source.memo.digest = source.digest;
      source.memo.values = new Map();
      source.memo.size = 0;
    }
  }
  get raw(): string {
    if (this.text === undefined) {
      const b = this.source ? this.source.text() : this.context.BODY;
      this.text = b === undefined ? '' : String(b);
    }
    return this.text;
  }
  get json(): { ok: true; value: unknown } | { ok: false } {
    if (this.parsed === undefined) {
      try {
        this.parsed = { ok: true, value: JSON.parse(this.raw) as unknown };
      } catch {
        this.parsed = { ok: false };
      }
    }
    return this.parsed;
  }
  /** A value the body alone decides, kept for this body (undefined: not kept, work it out). */
  kept(key: string): string | number | null | undefined {
    return this.memo?.values.get(key);
  }
  /** Keeps a value worked out from this body, if it fits in the memo. */
  keep(key: string, v: string | number | null): void {
    const m = this.memo;
    if (!m) return;
    const size = key.length + Math.max(16, typeof v === 'string' ? v.length : 0);
    if (m.size + size <= MAX_BODY_MEMO) {
      m.values.set(key, v);
      m.size += size;
    }
  }
}

/** A [BODY] operand's key in a memo: its function and path as written. */
const memoKey = (fn: 'len' | 'has' | null, path: readonly PathSegment[] | null): string =>
  `${fn ?? ''}:${pathText(path)}`;

/** A body path as written (`.data[0].name`, `[*]`): the memo's key for what it leads to. */
function pathText(path: readonly PathSegment[] | null): string {
  if (!path) return '';
  let out = '';
  for (const s of path) out += 'key' in s ? `.${s.key}` : 'index' in s ? `[${s.index}]` : '[*]';
  return out;
}

/** The index of a path's `[*]`, or -1. */
function wildcardAt(path: readonly PathSegment[]): number {
  for (let i = 0; i < path.length; i++) if ('wildcard' in path[i]) return i;
  return -1;
}

/** null when the condition holds, else its display with the values seen. */
function evaluate(
  c: ParsedCondition,
  left: Operand,
  right: Operand,
  context: ConditionContext,
  body: BodyCache,
): string | null {
  // `[*]`: the condition holds for every element, and fails on an empty or missing array. (Two plain
  // checks of the sides rather than a list of them: this runs on every check, and allocates nothing.)
  for (let side = 0; side < 2; side++) {
    const operand = side === 0 ? left : right;
    if (operand.kind !== 'placeholder' || !operand.path) continue;
    const w = operand.wildcard;
    if (w < 0) continue;
    const prefix = operand.path.slice(0, w);
    const lengthKey = `#${pathText(prefix)}`;
    let length = body.kept(lengthKey) as number | undefined;
    if (length === undefined) {
      const array = body.json.ok ? walk(body.json.value, prefix) : undefined;
      length = Array.isArray(array) ? array.length : 0;
      body.keep(lengthKey, length);
    }
    if (length === 0) return `${c.source} (no elements matched)`;
    for (let i = 0; i < length; i++) {
      const path = operand.path.map((s, k) => (k === w ? { index: i } : s));
      const expanded: Operand = {
        ...operand,
        path,
        text: operand.text,
        key: memoKey(operand.fn, path),
        wildcard: wildcardAt(path),
      };
      const failed =
        side === 0 ? evaluate(c, expanded, right, context, body) : evaluate(c, left, expanded, context, body);
      if (failed !== null) return `${failed} (element ${i})`;
    }
    return null;
  }
  const l = resolve(left, context, body);
  const r = resolve(right, context, body);
  let holds: boolean;
  if (l === null || r === null) holds = false;
  else if (c.operator === '==' || c.operator === '!=') {
    const equal = isEqual(left, l, right, r);
    holds = c.operator === '==' ? equal : !equal;
  } else {
    const order = compareNumbers(l, r);
    if (order === null) holds = false;
    else if (c.operator === '<') holds = order < 0;
    else if (c.operator === '<=') holds = order <= 0;
    else if (c.operator === '>') holds = order > 0;
    else holds = order >= 0;
  }
  if (holds) return null;
  return `${show(left, l)} ${c.operator} ${show(right, r)}`;
}

/** The order of two numeric operands (negative, 0, positive), or null when either is not a number. */
function compareNumbers(l: string, r: string): number | null {
  // Plain decimals (a count, a status, a time in ms) are exact as doubles: no BigInt per check.
  if (PLAIN_DECIMAL.test(l) && PLAIN_DECIMAL.test(r)) return Number(l) - Number(r);
  const a = numberOf(l);
  const b = numberOf(r);
  if (a === null || b === null) return null;
  return a < b ? -1 : a > b ? 1 : 0;
}

function show(o: Operand, text: string | null): string {
  if (o.kind !== 'placeholder') return o.text;
  if (text === null) return `${o.text} (INVALID)`;
  const duration = o.fn === null && (o.name === 'CERTIFICATE_EXPIRATION' || o.name === 'DOMAIN_EXPIRATION');
  const value = duration ? formatDuration(Number(text)) : text;
  return `${o.text} (${cut(value)})`;
}

function cut(s: string): string {
  const chars = Array.from(s);
  return chars.length <= MAX_SEEN_LENGTH ? s : `${chars.slice(0, MAX_SEEN_LENGTH).join('')}...(truncated)`;
}

/** An operand's text, or null when the named value is missing (a body path that leads nowhere). */
function resolve(o: Operand, context: ConditionContext, body: BodyCache): string | null {
  if (o.kind !== 'placeholder') return o.text;
  if (o.name === 'BODY') {
    const kept = body.kept(o.key);
    if (kept !== undefined) return kept as string | null;
    const v = resolveBody(o.path, o.fn, body);
    body.keep(o.key, v);
    return v;
  }
  const v = context[o.name];
  const text =
    v === undefined
      ? o.name === 'CONNECTED'
        ? 'false'
        : o.name === 'IP' || o.name === 'DNS_RCODE'
          ? ''
          : '0'
      : typeof v === 'number'
        ? String(Math.trunc(v))
        : String(v);
  if (o.fn === 'has') return String(text !== '');
  if (o.fn === 'len') return String(utf8Length(text));
  return text;
}

/** The text a [BODY] operand stands for, or null when its path leads nowhere. */
function resolveBody(path: PathSegment[] | null, fn: 'len' | 'has' | null, body: BodyCache): string | null {
  if (path === null) {
    const raw = body.raw;
    const trimmed = raw.trim();
    if (fn === 'has') return String(trimmed !== '');
    if (fn === 'len') {
      if (trimmed.startsWith('[') && trimmed.endsWith(']') && body.json.ok && Array.isArray(body.json.value))
        return String(body.json.value.length);
      return String(utf8Length(raw));
    }
    return trimmed;
  }
  const value = body.json.ok ? walk(body.json.value, path) : undefined;
  const found = value !== undefined && value !== null;
  if (fn === 'has') return String(found);
  if (!found) return null;
  if (fn === 'len') {
    if (Array.isArray(value)) return String(value.length);
    return String(utf8Length(atEnd(value)));
  }
  return atEnd(value);
}

/** Follows a path through parsed JSON; undefined where it leads nowhere. */
function walk(root: unknown, path: readonly PathSegment[]): unknown {
  let v: unknown = root;
  for (const s of path) {
    if ('key' in s) {
      if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, s.key)) return undefined;
      v = (v as Record<string, unknown>)[s.key];
    } else if ('index' in s) {
      if (!Array.isArray(v) || s.index >= v.length) return undefined;
      v = v[s.index] as unknown;
    } else return undefined;
  }
  return v;
}

/** A JSON value at the end of a path as Gatus writes it: an object as minified JSON (keys sorted), an array as Go prints one. */
function atEnd(v: unknown): string {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return JSON.stringify(sortKeys(v));
  return goValue(v);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, sortKeys(o[k])]),
  );
}

/** Go's %v of a decoded JSON value: [a b c] for arrays, map[k:v] for objects, <nil> for null. */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o)
      .sort()
      .map((k) => `${k}:${goValue(o[k])}`)
      .join(' ')}]`;
  }
  return String(v as string | number | boolean);
}

function isEqual(lo: Operand, l: string, ro: Operand, r: string): boolean {
  if (lo.kind === 'pattern') return wildcardMatch(lo.pattern, r);
  if (ro.kind === 'pattern') return wildcardMatch(ro.pattern, l);
  if (lo.kind === 'any') return lo.options.includes(r);
  if (ro.kind === 'any') return ro.options.includes(l);
  // The same text is the same integer (or the same string): no parse, the common passing case.
  if (l === r) return true;
  const a = goInt(l);
  const b = goInt(r);
  if (a !== null && b !== null) return a === b;
  return l === r;
}

// ---------------------------------------------------------------------------------------------
// Go's number and duration syntax, as Gatus reads operands

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Up to 15 decimal digits without a leading zero (a leading zero means octal to Go). */
const PLAIN_DECIMAL = /^[1-9]\d{0,14}$/;

/** strconv.ParseInt(s, 0, 64): decimal, 0x, 0o, 0b, a leading 0 for octal, `_` between digits. */
function goInt(s: string): bigint | null {
  // Plain decimal digits (the usual operand: a status, a count) within int64: no match to build.
  if (PLAIN_DECIMAL.test(s)) return BigInt(s);
  const m =
    /^([+-]?)(0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?[0-7])*|[1-9](?:_?[0-9])*)$/.exec(s);
  if (!m) return null;
  let digits = m[2].replace(/_/g, '');
  if (/^0[0-7]/.test(digits)) digits = `0o${digits.slice(1)}`;
  else if (/^0[oObBxX]/.test(digits)) digits = `0${digits[1].toLowerCase()}${digits.slice(2)}`;
  let n = BigInt(digits);
  if (m[1] === '-') n = -n;
  return n < INT64_MIN || n > INT64_MAX ? null : n;
}

/** time.ParseDuration, in whole milliseconds (truncated); null when it is not one, or is zero. */
function durationMs(s: string): number | null {
  const ms = goDurationMs(s);
  return ms === null || !Number.isFinite(ms) || ms === 0 ? null : Math.trunc(ms);
}

/** A numeric operand: a non-zero duration in ms, else a Go integer, else a decimal cut to its integer part. */
function numberOf(s: string): bigint | null {
  const d = durationMs(s);
  if (d !== null) return BigInt(d);
  const i = goInt(s);
  if (i !== null) return i;
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(s)) {
    const f = Number(s);
    if (Number.isFinite(f)) return BigInt(Math.trunc(f));
  }
  return null;
}

/** Milliseconds as Go prints a duration cut to whole seconds, without trailing zero units: 336h, 1h30m, 59s. */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  let s = Math.trunc(Math.abs(ms) / 1000);
  if (s === 0) return '0s';
  const h = Math.trunc(s / 3600);
  s -= h * 3600;
  const m = Math.trunc(s / 60);
  s -= m * 60;
  let out = h ? `${h}h` : '';
  if (m || (h && s)) out += `${m}m`;
  if (s) out += `${s}s`;
  return sign + out;
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

// ---------------------------------------------------------------------------------------------
// pat(): Go's filepath.Match after removing `/` from both sides, as Gatus does

/** `*` any run, `?` one character, `[a-z]` / `[^a-z]` a class, `\x` x itself; a malformed pattern matches nothing. */
export function wildcardMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  const p = chars(pattern.includes('/') ? pattern.replace(/\//g, '') : pattern);
  const v = chars(value.includes('/') ? value.replace(/\//g, '') : value);
  // Iterative star matching with backtracking to the last star (linear in practice).
  let pi = 0;
  let vi = 0;
  let starP = -1;
  let starV = 0;
  while (vi < v.length) {
    if (pi < p.length && p[pi] === '*') {
      while (pi < p.length && p[pi] === '*') pi++;
      starP = pi;
      starV = vi;
      continue;
    }
    const step = pi < p.length ? matchOne(p, pi, v[vi]) : -1;
    if (step === -2) return false;
    if (step > 0) {
      pi += step;
      vi++;
      continue;
    }
    if (starP < 0) return false;
    pi = starP;
    vi = ++starV;
  }
  while (pi < p.length && p[pi] === '*') pi++;
  if (pi < p.length) return false;
  return true;
}

/**
 * A text as characters by index: the string itself when it has no surrogate pair (each UTF-16 unit is
 * a character, and a 10 KB body is not copied into an array), else its code points.
 */
const chars = (s: string): ArrayLike<string> => (/[\uD800-\uDFFF]/.test(s) ? Array.from(s) : s);

/** Matches one pattern item at p[i] against c: its length when it matches, -1 when not, -2 when malformed. */
function matchOne(p: ArrayLike<string>, i: number, c: string): number {
  const t = p[i];
  if (t === '?') return 1;
  if (t === '\\') {
    if (i + 1 >= p.length) return -2;
    return p[i + 1] === c ? 2 : -1;
  }
  if (t !== '[') return t === c ? 1 : -1;
  let j = i + 1;
  let negate = false;
  if (p[j] === '^') {
    negate = true;
    j++;
  }
  let matched = false;
  let first = true;
  for (;;) {
    if (j >= p.length) return -2;
    if (p[j] === ']' && !first) break;
    first = false;
    let lo = p[j];
    if (lo === '\\') {
      j++;
      if (j >= p.length) return -2;
      lo = p[j];
    } else if (lo === '-' || lo === ']') return -2;
    j++;
    let hi = lo;
    if (p[j] === '-') {
      j++;
      if (j >= p.length) return -2;
      hi = p[j];
      if (hi === '\\') {
        j++;
        if (j >= p.length) return -2;
        hi = p[j];
      } else if (hi === ']' || hi === '-') return -2;
      j++;
    }
    if (lo <= c && c <= hi) matched = true;
  }
  return matched !== negate ? j + 1 - i : -1;
}
