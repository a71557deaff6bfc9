// `import <file>` commands (domains, liveness): read a file (or stdin), send its items through the
// resource's bulk route in chunks (a progress bar on a terminal's stderr), and report what was
// created, skipped (already there, or repeated in the file) and failed, by line.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { parse } from 'csv-parse/sync';
import { call, type Transport } from '../transport.js';
import { progress, UsageError, type Palette } from '../output.js';
import type { CommandSpec, OptSpec } from '../spec.js';

/** The whole file, or standard input for `-`. */
function readImportFile(file: string): string {
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

interface CsvRow {
  /** Line of the file the row ends on (1-based). */
  line: number;
  cols: string[];
}

/** csv-parse, loaded on the first CSV read (the import commands), not at every command's start. */
let parser: typeof parse | undefined;
const csvParse = (): typeof parse =>
  (parser ??= (createRequire(import.meta.url)('csv-parse/sync') as { parse: typeof parse }).parse);

/**
 * CSV rows (csv-parse): `,`, `;` or tab between fields, quotes as RFC 4180, cells trimmed; a BOM,
 * blank rows and lines starting with `#` are skipped. Malformed CSV is a usage error.
 */
export function csvRows(text: string): CsvRow[] {
  try {
    const records = csvParse()(text, {
      bom: true,
      delimiter: [',', ';', '\t'],
      record_delimiter: ['\r\n', '\n', '\r'],
      comment: '#',
      comment_no_infix: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      trim: true,
      relax_column_count: true,
      relax_quotes: true,
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
    return records.map((r) => ({ line: r.info.lines, cols: r.record }));
  } catch (err) {
    throw new UsageError(`not valid CSV: ${(err as Error).message}`);
  }
}

export interface ImportItem {
  /** Where the item is in the file: its line, or its position in a JSON array (1-based). */
  line: number;
  /** What the report names the item by, and (lower-cased) what repeats in the file are found by. */
  name: string;
  /** The bulk route's item. */
  body: Record<string, unknown>;
}

/** One resource's bulk route and how its answers read in the report. */
interface BulkImport {
  /** e.g. /api/v1/domains/bulk */
  path: string;
  /** The array of the bulk body, e.g. `domains`. */
  field: string;
  /** The report's key for an item's name, e.g. `domain`. */
  label: string;
  /** The report's key for skipped items, e.g. `skipped_domains`. */
  skippedKey: string;
  /** The bulk error code of an item that already exists (skipped, not failed), and the reason given. */
  exists: { code: string; reason: string };
}

interface ImportReport {
  created: number;
  skipped: number;
  failed: number;
  total: number;
  errors: ({ line: number; error: string } & Record<string, unknown>)[];
  [skipped: string]: unknown;
}

/** Sends the items (each merged over `base`) in chunks; a repeat in the file or an existing item is skipped. */
async function importBulk(
  t: Transport,
  spec: BulkImport,
  items: ImportItem[],
  base: Record<string, unknown>,
): Promise<ImportReport> {
  const errors: ImportReport['errors'] = [];
  const skipped: { line: number; reason: string }[] = [];
  const skip = (it: ImportItem, reason: string) =>
    skipped.push({ line: it.line, [spec.label]: it.name, reason } as (typeof skipped)[number]);
  let created = 0;
  const seen = new Set<string>();
  const todo: ImportItem[] = [];
  for (const it of items) {
    const key = it.name.toLowerCase().replace(/\.$/, '');
    if (key && seen.has(key)) skip(it, 'repeated in the file');
    else {
      seen.add(key);
      todo.push(it);
    }
  }
  const bar = progress(todo.length, 'importing');
  const CHUNK = 100; // small enough that the bar moves, large enough to stay quick
  for (let i = 0; i < todo.length; i += CHUNK) {
    const chunk = todo.slice(i, i + CHUNK);
    const res = await call<{ created: number; errors: { index: number; error: string; code?: string }[] }>(
      t,
      'POST',
      spec.path,
      { [spec.field]: chunk.map((it) => ({ ...base, ...it.body })) },
    );
    created += res.created;
    for (const f of res.errors) {
      const it = chunk[f.index]!;
      if (f.code === spec.exists.code) skip(it, spec.exists.reason);
      else errors.push({ line: it.line, [spec.label]: it.name, error: f.error });
    }
    bar.update(Math.min(i + CHUNK, todo.length));
  }
  bar.done();
  errors.sort((a, b) => a.line - b.line);
  skipped.sort((a, b) => a.line - b.line);
  return {
    created,
    skipped: skipped.length,
    failed: errors.length,
    total: items.length,
    errors,
    [spec.skippedKey]: skipped,
  };
}

const importText = (label: string) => (r: ImportReport, paint: Palette) =>
  [
    `${paint.green(`${r.created} created`)}, ${r.skipped} skipped, ${r.failed ? paint.red(`${r.failed} failed`) : '0 failed'}`,
    ...r.errors.map((e) => `  line ${e.line}: ${String(e[label] ?? '') || '(empty)'}: ${e.error}`),
  ].join('\n');

/** `import <file>` for one resource: `parse` turns the file's text into items (a usage error when it cannot); exit 1 when any item failed. */
export function importCommand(o: {
  description: string;
  options?: OptSpec[];
  examples: string[];
  parse: (text: string) => ImportItem[];
  bulk: BulkImport;
}): CommandSpec {
  return {
    name: 'import <file>',
    description: o.description,
    options: o.options,
    examples: o.examples,
    async action({ t, args, body }) {
      const r = await importBulk(t, o.bulk, o.parse(readImportFile(args[0]!)), body);
      if (r.failed) process.exitCode = 1;
      return r;
    },
    text: importText(o.bulk.label),
  };
}
