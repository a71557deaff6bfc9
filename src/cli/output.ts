// How commands print: one JSON document with --json, aligned text otherwise; errors are one line on stderr.
import { ServiceError } from '../domain/errors.js';
import { ConfigError } from '../config/index.js';

export class UsageError extends Error {}

/** Exit codes of the contract: 2 usage, 3 not found, 4 conflict, 1 anything else. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError || err instanceof ConfigError) return 2;
  if (err instanceof ServiceError) {
    if (err.status === 404) return 3;
    if (err.status === 409) return 4;
    if (err.status === 400) return 2;
  }
  const status = (err as { status?: number })?.status;
  if (status === 400) return 2;
  if (status === 404) return 3;
  if (status === 409) return 4;
  return 1;
}

export function table<T extends object>(list: T[], columns: string[]): string {
  const rows = list as unknown as Record<string, unknown>[];
  if (!rows.length) return '(none)';
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

export interface Printer {
  json: boolean;
  /** Prints `data` as JSON, or `text()` for people. */
  out(data: unknown, text?: () => string): void;
}

export function printer(json: boolean): Printer {
  return {
    json,
    out(data, text) {
      process.stdout.write(json || !text ? `${JSON.stringify(data, null, json ? 2 : 0)}\n` : `${text()}\n`);
    },
  };
}
