// `dommon domains list|add|show|update|remove|import`.
import type { DelegationView } from '../../domain/delegation.js';
import { keyValues, type Palette } from '../output.js';
import type { NounSpec, OptSpec } from '../spec.js';
import { crud, domainId } from './common.js';
import { csvRows, importCommand } from './import.js';

const fields: OptSpec[] = [
  { flags: '--portfolio <id>', description: 'portfolio id', field: 'portfolio_id' },
  { flags: '--notes <text>', description: 'free text', field: 'notes' },
  { flags: '--expiry-date <YYYY-MM-DD>', description: 'manual registration expiry', field: 'expiry_date' },
  {
    flags: '--dkim-selectors <list>',
    description: 'comma list of extra DKIM selectors',
    field: 'dkim_selectors',
    kind: 'list',
  },
];

interface ImportLine {
  line: number;
  domain: string;
  extra: Record<string, string>;
}

/** Columns of a CSV header that map to domain fields (the name column is `domain` or `name`). */
const CSV_FIELDS: Record<string, string> = { notes: 'notes', portfolio_id: 'portfolio_id', expiry_date: 'expiry_date' };
const NAME_COLUMN = /^(domain|name|domain_name)$/i;

/** One domain per line, or CSV (a header row naming `domain` picks the column and extra fields). */
export function parseImport(text: string): ImportLine[] {
  let header: string[] | null = null;
  const out: ImportLine[] = [];
  for (const { line, cols } of csvRows(text)) {
    if (!header && out.length === 0 && cols.some((c) => NAME_COLUMN.test(c))) {
      header = cols.map((c) => c.toLowerCase());
      continue;
    }
    const nameIdx = header
      ? Math.max(
          0,
          header.findIndex((h) => NAME_COLUMN.test(h)),
        )
      : 0;
    const extra: Record<string, string> = {};
    if (header) header.forEach((h, j) => CSV_FIELDS[h] && cols[j] && (extra[CSV_FIELDS[h]!] = cols[j]!));
    out.push({ line, domain: cols[nameIdx] ?? '', extra });
  }
  return out;
}

interface Reason {
  input: string;
  status: string;
  points_lost: number;
  reason: string;
}

/** The nameserver watch's lines: the NS and DS sets at the parent, when they last changed, the last failure. */
function delegationText(d: DelegationView | null | undefined, paint: Palette): string[] {
  if (d === undefined) return [];
  const head = paint.dim(`delegation${d?.parent_zone ? ` (at the ${d.parent_zone} servers)` : ''}`);
  if (!d || d.nameservers === null) return [head, `  ${d?.error ? `not seen yet: ${d.error}` : 'not looked at yet'}`];
  const list = (xs: string[] | null) => (xs?.length ? xs.join(', ') : 'none');
  const lines = [
    head,
    `  NS       ${list(d.nameservers)}`,
    `  DS       ${list(d.ds)}`,
    `  checked  ${d.checked_at}`,
    `  changed  ${d.changed_at ?? 'not since first seen'}`,
  ];
  if (d.error) lines.push(`  ${paint.status('error')}    ${d.error} (${d.error_at})`);
  return lines;
}

/**
 * A domain's fields, then the reasons of its grade (one line per input: status, points it cost, why),
 * then its delegation as the nameserver watch saw it.
 */
function domainText(r: Record<string, unknown>, paint: Palette): string {
  const {
    health_reasons: reasons,
    delegation,
    ...rest
  } = r as Record<string, unknown> & { health_reasons?: Reason[]; delegation?: DelegationView | null };
  const parts = [keyValues(rest, paint)];
  if (reasons?.length) {
    const head =
      rest.health_grade === null ? 'health reasons (no grade: nothing could be checked yet)' : 'health reasons';
    parts.push(paint.dim(head));
    for (const x of reasons)
      parts.push(
        `  ${x.input.padEnd(13)}  ${paint.status(x.status.padEnd(7))}  ${(x.points_lost ? `-${x.points_lost}` : '').padEnd(4)}  ${x.reason}`,
      );
  }
  parts.push(...delegationText(delegation, paint));
  return parts.join('\n');
}

export const domainsNoun: NounSpec = {
  name: 'domains',
  description: 'monitored domains (named by id or by name)',
  commands: [
    ...crud({
      path: '/api/v1/domains',
      one: 'domain',
      columns: [
        'id',
        'domain',
        'is_verified:VERIFIED',
        'health_grade:GRADE',
        'expiry_date:EXPIRES',
        'portfolio_id:PORTFOLIO',
      ],
      addArg: { name: 'domain', field: 'domain' },
      create: fields,
      update: [{ flags: '--domain <name>', description: 'rename', field: 'domain' }, ...fields],
      filters: [
        { flags: '--domain <text>', description: 'partial match on the name', field: 'domain' },
        { flags: '--portfolio <id>', description: 'portfolio id', field: 'portfolio_id' },
      ],
      resolve: domainId,
      showText: domainText,
      showOptions: [
        {
          flags: '--include-endpoints',
          description: 'list its endpoints too',
          field: 'include_endpoints',
          kind: 'flag',
        },
      ],
      examples: {
        list: ['dommon domains list --domain example', 'dommon domains list --json | jq -r ".data[].domain"'],
        add: [
          'dommon domains add example.com --notes "main site"',
          'dommon domains add example.org --expiry-date 2027-01-31',
        ],
        show: ['dommon domains show example.com --include-endpoints'],
        update: ['dommon domains update example.com --notes "renewed by finance"'],
        remove: ['dommon domains remove example.com'],
      },
    }),
    importCommand({
      description:
        'add domains from a file (one per line, or CSV with a `domain` column; - reads stdin); reports created/skipped/failed, exit 1 if any failed',
      options: [
        { flags: '--portfolio <id>', description: 'portfolio for every imported domain', field: 'portfolio_id' },
      ],
      examples: [
        'dommon domains import domains.txt',
        'cut -d, -f1 export.csv | dommon domains import -',
        'dommon domains import domains.csv --json',
      ],
      parse: (text) =>
        parseImport(text).map((l) => ({ line: l.line, name: l.domain, body: { ...l.extra, domain: l.domain } })),
      bulk: {
        path: '/api/v1/domains/bulk',
        field: 'domains',
        label: 'domain',
        skippedKey: 'skipped_domains',
        exists: { code: 'DOMAIN_EXISTS', reason: 'already monitored' },
      },
    }),
  ],
};
