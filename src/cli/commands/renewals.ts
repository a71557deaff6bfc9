// `dommon renewals`: upcoming domain and certificate renewals (GET /api/v1/renewals).
import { call, qs } from '../transport.js';
import { cell, table, type Palette } from '../output.js';
import type { NounSpec } from '../spec.js';
import { pageOptions } from './common.js';

/** The renewal record's fields are the intel branch's; show the usual ones when present, else every scalar. */
const PREFERRED = [
  'domain',
  'name',
  'endpoint',
  'full_url',
  'type',
  'expiry_date',
  'days_until_expiry',
  'status',
  'registrar',
  'issuer',
];

type RenewalRows = Record<string, unknown>[];
type RenewalsBody =
  | RenewalRows
  | { data?: RenewalRows; renewals?: RenewalRows; pagination?: { total?: number }; total?: number }
  | undefined;

function renewalsText(r: RenewalsBody, paint: Palette): string {
  const rows: RenewalRows = Array.isArray(r) ? r : (r?.data ?? r?.renewals ?? []);
  if (!rows.length) return '(none)';
  const keys = Object.keys(rows[0]!);
  const picked = PREFERRED.filter((k) => keys.includes(k));
  const cols = picked.length >= 2 ? picked : keys.filter((k) => typeof rows[0]![k] !== 'object').slice(0, 8);
  const total = Array.isArray(r) ? undefined : (r?.pagination?.total ?? r?.total);
  return `${table(rows, cols, paint)}${total !== undefined ? `\n${paint.dim(`${cell(total)} total`)}` : ''}`;
}

/** A single command (no subcommands): registered as a noun whose only command is the noun itself. */
export const renewalsCommand: NounSpec['commands'][number] = {
  name: 'renewals',
  description: 'upcoming domain or certificate renewals',
  options: [
    {
      flags: '--type <type>',
      description: 'domains or certificates (default domains)',
      field: 'type',
      choices: ['domains', 'certificates'],
    },
    {
      flags: '--status <status>',
      description: 'active, expired or expiring_soon',
      field: 'status',
      choices: ['active', 'expired', 'expiring_soon'],
    },
    { flags: '--from <date-time>', description: 'expiring at or after (ISO 8601)', field: 'from' },
    { flags: '--to <date-time>', description: 'expiring at or before (ISO 8601)', field: 'to' },
    ...pageOptions,
  ],
  examples: [
    'dommon renewals --status expiring_soon',
    'dommon renewals --type certificates --to 2027-01-01T00:00:00Z --json',
  ],
  action: ({ t, body }) => call(t, 'GET', `/api/v1/renewals${qs(body as Record<string, string>)}`),
  text: renewalsText,
};
