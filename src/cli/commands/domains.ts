// `dommon domains list|add|show|update|remove|import`.
import fs from 'node:fs';
import { call, type Transport } from '../transport.js';
import { progress, type Palette } from '../output.js';
import type { NounSpec, OptSpec } from '../spec.js';
import { crud, domainId } from './common.js';

const fields: OptSpec[] = [
  { flags: '--portfolio <id>', description: 'portfolio id', field: 'portfolio_id' },
  { flags: '--notes <text>', description: 'free text', field: 'notes' },
  { flags: '--expiry-date <YYYY-MM-DD>', description: 'manual registration expiry', field: 'expiry_date' },
  { flags: '--dkim-selectors <list>', description: 'comma list of extra DKIM selectors', field: 'dkim_selectors', kind: 'list' },
];

export interface ImportLine {
  line: number;
  domain: string;
  extra: Record<string, string>;
}

/** Columns of a CSV header that map to domain fields (the name column is `domain` or `name`). */
const CSV_FIELDS: Record<string, string> = { notes: 'notes', portfolio_id: 'portfolio_id', expiry_date: 'expiry_date' };

function splitCsv(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') (cur += '"'), i++;
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',' || ch === ';' || ch === '\t') (out.push(cur), (cur = ''));
    else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim());
}

/** One domain per line, or CSV (a header row naming `domain` picks the column and extra fields). */
export function parseImport(text: string): ImportLine[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let header: string[] | null = null;
  const out: ImportLine[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const cols = splitCsv(line);
    if (!header && out.length === 0 && cols.some((c) => /^(domain|name|domain_name)$/i.test(c))) {
      header = cols.map((c) => c.toLowerCase());
      return;
    }
    const nameIdx = header ? Math.max(0, header.findIndex((h) => /^(domain|name|domain_name)$/.test(h))) : 0;
    const extra: Record<string, string> = {};
    if (header) header.forEach((h, j) => CSV_FIELDS[h] && cols[j] && (extra[CSV_FIELDS[h]!] = cols[j]!));
    out.push({ line: i + 1, domain: cols[nameIdx] ?? '', extra });
  });
  return out;
}

export interface ImportReport {
  created: number;
  skipped: number;
  failed: number;
  total: number;
  errors: { line: number; domain: string; error: string }[];
  skipped_domains: { line: number; domain: string; reason: string }[];
}

async function importDomains(t: Transport, items: ImportLine[], base: Record<string, unknown>): Promise<ImportReport> {
  const r: ImportReport = { created: 0, skipped: 0, failed: 0, total: items.length, errors: [], skipped_domains: [] };
  const seen = new Set<string>();
  const todo: ImportLine[] = [];
  for (const it of items) {
    const key = it.domain.toLowerCase().replace(/\.$/, '');
    if (seen.has(key)) {
      r.skipped++;
      r.skipped_domains.push({ line: it.line, domain: it.domain, reason: 'repeated in the file' });
    } else {
      seen.add(key);
      todo.push(it);
    }
  }
  const bar = progress(todo.length, 'importing');
  const CHUNK = 100; // small enough that the bar moves, large enough to stay quick
  for (let i = 0; i < todo.length; i += CHUNK) {
    const chunk = todo.slice(i, i + CHUNK);
    const res = await call(t, 'POST', '/api/v1/domains/bulk', { domains: chunk.map((it) => ({ ...base, ...it.extra, domain: it.domain })) });
    r.created += res.created;
    for (const f of res.errors as { index: number; error: string; code?: string }[]) {
      const it = chunk[f.index]!;
      if (f.code === 'DOMAIN_EXISTS') {
        r.skipped++;
        r.skipped_domains.push({ line: it.line, domain: it.domain, reason: 'already monitored' });
      } else {
        r.failed++;
        r.errors.push({ line: it.line, domain: it.domain, error: f.error });
      }
    }
    bar.update(Math.min(i + CHUNK, todo.length));
  }
  bar.done();
  r.errors.sort((a, b) => a.line - b.line);
  r.skipped_domains.sort((a, b) => a.line - b.line);
  return r;
}

const importText = (r: ImportReport, paint: Palette) =>
  [
    `${paint.green(`${r.created} created`)}, ${r.skipped} skipped, ${r.failed ? paint.red(`${r.failed} failed`) : '0 failed'}`,
    ...r.errors.map((e) => `  line ${e.line}: ${e.domain || '(empty)'}: ${e.error}`),
  ].join('\n');

export const domainsNoun: NounSpec = {
  name: 'domains',
  description: 'monitored domains (named by id or by name)',
  commands: [
    ...crud({
      path: '/api/v1/domains',
      one: 'domain',
      columns: ['id', 'domain', 'is_verified:VERIFIED', 'health_grade:GRADE', 'expiry_date:EXPIRES', 'portfolio_id:PORTFOLIO'],
      addArg: { name: 'domain', field: 'domain' },
      create: fields,
      update: [{ flags: '--domain <name>', description: 'rename', field: 'domain' }, ...fields],
      filters: [
        { flags: '--domain <text>', description: 'partial match on the name', field: 'domain' },
        { flags: '--portfolio <id>', description: 'portfolio id', field: 'portfolio_id' },
      ],
      resolve: domainId,
      showOptions: [{ flags: '--include-endpoints', description: 'list its endpoints too', field: 'include_endpoints', kind: 'flag' }],
      examples: {
        list: ['dommon domains list --domain example', 'dommon domains list --json | jq -r ".data[].domain"'],
        add: ['dommon domains add example.com --notes "main site"', 'dommon domains add example.org --expiry-date 2027-01-31'],
        show: ['dommon domains show example.com --include-endpoints'],
        update: ['dommon domains update example.com --notes "renewed by finance"'],
        remove: ['dommon domains remove example.com'],
      },
    }),
    {
      name: 'import <file>',
      description: 'add domains from a file (one per line, or CSV with a `domain` column; - reads stdin); reports created/skipped/failed, exit 1 if any failed',
      options: [{ flags: '--portfolio <id>', description: 'portfolio for every imported domain', field: 'portfolio_id' }],
      examples: ['dommon domains import domains.txt', 'cut -d, -f1 export.csv | dommon domains import -', 'dommon domains import domains.csv --json'],
      async action({ t, args, body }) {
        const file = args[0]!;
        let text: string;
        try {
          text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
        } catch (err) {
          throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
        const r = await importDomains(t, parseImport(text), body);
        if (r.failed) process.exitCode = 1;
        return r;
      },
      text: importText,
    },
  ],
};
