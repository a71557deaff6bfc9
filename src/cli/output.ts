// How commands print: one JSON document with --json, aligned (and, on a TTY, coloured) text otherwise;
// errors are one line on stderr with the contract's exit code.
import { ServiceError } from '../domain/errors.js';
import { ConfigError } from '../config/index.js';

export class UsageError extends Error {}

/** Exit codes of the contract: 2 usage, 3 not found, 4 conflict, 1 anything else. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError || err instanceof ConfigError) return 2;
  if (err instanceof ServiceError) {
    if (err.meaning === 'not_found') return 3;
    if (err.meaning === 'conflict') return 4;
    if (err.meaning === 'invalid' || err.meaning === 'unprocessable') return 2;
  }
  // An error answered by a remote daemon carries its HTTP status.
  const status = (err as { status?: number })?.status;
  if (status === 400 || status === 422) return 2;
  if (status === 404) return 3;
  if (status === 409) return 4;
  return 1;
}

/** One line for stderr, whatever the error carries. */
export function errorLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return `dommon: ${msg.replace(/\s*\n\s*/g, ' ').trim() || 'failed'}\n`;
}

/** Colour only on a TTY, never with NO_COLOR set (https://no-color.org) or TERM=dumb. */
export function colorEnabled(
  stream: { isTTY?: boolean },
  env: Record<string, string | undefined> = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

export type Paint = (s: string) => string;
export interface Palette {
  enabled: boolean;
  red: Paint;
  green: Paint;
  yellow: Paint;
  dim: Paint;
  bold: Paint;
  /** Colours a status word by its meaning (healthy/up/valid green, warning yellow, critical/down red). */
  status: Paint;
}

const GOOD = new Set(['healthy', 'up', 'valid', 'success', 'ok', 'pass', 'active', 'queued']);
const WARN = new Set(['warning', 'expiring_soon', 'partial', 'skipped', 'expiring']);
const BAD = new Set(['critical', 'down', 'expired', 'invalid', 'error', 'failed', 'fail']);

export function palette(enabled: boolean): Palette {
  const wrap =
    (open: number, close: number): Paint =>
    (s) =>
      enabled && s ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  const p = {
    enabled,
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
  const status: Paint = (s) => {
    const k = s.trim().toLowerCase();
    return GOOD.has(k) ? p.green(s) : WARN.has(k) ? p.yellow(s) : BAD.has(k) ? p.red(s) : s;
  };
  return { ...p, status };
}

export const cell = (v: unknown): string =>
  v === null || v === undefined || v === '' ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/**
 * Aligned columns; `columns` are keys of the rows (header is the key upper-cased, or `key:HEADER`).
 * Padding is computed on the plain text, then status-like cells are coloured.
 */
export function table<T extends object>(list: T[], columns: string[], paint: Palette = palette(false)): string {
  const rows = list as unknown as Record<string, unknown>[];
  if (!rows.length) return '(none)';
  const keys = columns.map((c) => c.split(':')[0]!);
  const heads = columns.map((c) => (c.includes(':') ? c.split(':')[1]! : c.toUpperCase()));
  const grid = rows.map((r) => keys.map((k) => cell(r[k])));
  const widths = heads.map((h, i) => Math.max(h.length, ...grid.map((g) => g[i]!.length)));
  const line = (vals: string[], color: boolean) =>
    vals
      .map((v, i) => {
        const padded = i === vals.length - 1 ? v : v.padEnd(widths[i]!);
        return color ? padded.replace(v, paint.status(v)) : padded;
      })
      .join('  ')
      .trimEnd();
  return [paint.bold(line(heads, false)), ...grid.map((g) => line(g, true))].join('\n');
}

/** `key  value` lines for one object; nested objects as JSON. */
export function keyValues(obj: Record<string, unknown>, paint: Palette = palette(false)): string {
  const w = Math.max(...Object.keys(obj).map((k) => k.length), 1);
  return Object.entries(obj)
    .map(([k, v]) => `${paint.dim(k.padEnd(w))}  ${paint.status(cell(v))}`)
    .join('\n');
}

export interface Printer {
  json: boolean;
  paint: Palette;
  /** Prints `data` as one JSON document, or `text()` for people. */
  out(data: unknown, text?: () => string): void;
}

export function printer(json: boolean, stdout: NodeJS.WriteStream = process.stdout): Printer {
  const paint = palette(!json && colorEnabled(stdout));
  return {
    json,
    paint,
    out(data, text) {
      stdout.write(json || !text ? `${JSON.stringify(data, null, 2)}\n` : `${text()}\n`);
    },
  };
}

/** A one-line progress bar on stderr, only when stderr is a terminal. */
export function progress(total: number, label: string, stream: NodeJS.WriteStream = process.stderr) {
  const on = Boolean(stream.isTTY) && total > 0;
  const draw = (done: number) => {
    if (!on) return;
    const width = 30;
    const filled = Math.round((done / total) * width);
    stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
  };
  draw(0);
  return {
    update: draw,
    done() {
      if (on) stream.write('\r\u001b[2K');
    },
  };
}
