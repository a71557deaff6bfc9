// portfolios, domains, endpoints and liveness: one table of commands and options drives commander,
// `--help` and the README; every command is a Public API call (local or --remote).
import fs from 'node:fs';
import type { Command } from 'commander';
import { run } from '../run.js';
import { table, UsageError } from '../output.js';
import { call, openTransport, qs, type Transport } from '../transport.js';

type Kind = 'string' | 'int' | 'bool' | 'list';
export interface OptSpec {
  flags: string;
  description: string;
  /** API field the option fills; the value is converted by `kind`. */
  field: string;
  kind?: Kind;
}
export interface CommandSpec {
  name: string;
  description: string;
  options?: OptSpec[];
  action(t: Transport, args: string[], body: Record<string, unknown>): Promise<unknown>;
  /** Human output; JSON is printed as the API answered. */
  text?(res: any): string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const page: OptSpec[] = [
  { flags: '--limit <n>', description: 'page size (max 100)', field: 'limit', kind: 'int' },
  { flags: '--offset <n>', description: 'items to skip', field: 'offset', kind: 'int' },
];

function convert(kind: Kind | undefined, v: unknown, flag: string): unknown {
  if (v === undefined) return undefined;
  if (kind === 'int') {
    if (!/^-?\d+$/.test(String(v))) throw new UsageError(`${flag} must be a whole number`);
    return Number(v);
  }
  if (kind === 'bool') return v === true || v === 'true' || v === 'yes' || v === '1';
  if (kind === 'list') return String(v).split(',').map((s) => s.trim()).filter(Boolean);
  return v;
}

/** Accepts a domain id or name. */
async function domainId(t: Transport, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const r = await call(t, 'GET', `/api/v1/domains${qs({ domain: ref, limit: 100 })}`);
  const name = ref.toLowerCase().replace(/\.$/, '');
  const hit = (r.data as { id: string; domain: string }[]).find((d) => d.domain === name);
  if (!hit) throw Object.assign(new Error(`domain ${ref} not found`), { status: 404 });
  return hit.id;
}

const cols = {
  portfolios: ['id', 'name', 'domain_count', 'description'],
  domains: ['id', 'domain', 'is_verified', 'health_grade', 'expiry_date', 'portfolio_id'],
  endpoints: ['id', 'domain', 'name', 'endpoint_type', 'full_url', 'is_enabled'],
  liveness: ['id', 'endpoint_id', 'is_enabled', 'interval_seconds', 'timeout_seconds', 'expected_status_code'],
};
const listText = (c: string[]) => (r: any) => `${table(r.data, c)}\n${r.pagination.total} total`;
const oneText = (r: any) => Object.entries(r).map(([k, v]) => `${k.padEnd(28)} ${v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : v}`).join('\n');

function crud(noun: keyof typeof cols, path: string, o: { create: OptSpec[]; update: OptSpec[]; filters: OptSpec[]; addArg?: string }): CommandSpec[] {
  const id = async (t: Transport, ref: string) => (noun === 'domains' ? domainId(t, ref) : ref);
  return [
    { name: 'list', description: `list ${noun}`, options: [...o.filters, ...page], action: (t, _a, b) => call(t, 'GET', `${path}${qs(b as any)}`), text: listText(cols[noun]) },
    {
      name: `add${o.addArg ? ` <${o.addArg}>` : ''}`,
      description: `create one of the ${noun}`,
      options: o.create,
      action: (t, a, b) => call(t, 'POST', path, o.addArg ? { [o.addArg === 'name' ? 'name' : 'domain']: a[0], ...b } : b),
      text: oneText,
    },
    { name: 'show <id>', description: 'show one by id', options: noun === 'domains' ? [{ flags: '--include-endpoints', description: 'list its endpoints too', field: 'include_endpoints', kind: 'bool' }] : [], action: async (t, a, b) => call(t, 'GET', `${path}/${await id(t, a[0]!)}${qs(b as any)}`), text: oneText },
    { name: 'update <id>', description: 'change fields', options: o.update, action: async (t, a, b) => call(t, 'PUT', `${path}/${await id(t, a[0]!)}`, b), text: oneText },
    { name: 'remove <id>', description: 'delete (cascades as the API does)', action: async (t, a) => call(t, 'DELETE', `${path}/${await id(t, a[0]!)}`), text: (r) => r.message },
  ];
}

const domainFields: OptSpec[] = [
  { flags: '--portfolio <id>', description: 'portfolio id', field: 'portfolio_id' },
  { flags: '--notes <text>', description: 'free text', field: 'notes' },
  { flags: '--expiry-date <YYYY-MM-DD>', description: 'manual registration expiry', field: 'expiry_date' },
  { flags: '--dkim-selectors <list>', description: 'comma list of extra DKIM selectors', field: 'dkim_selectors', kind: 'list' },
];
const endpointFields: OptSpec[] = [
  { flags: '--subdomain <s>', description: 'host prefix, e.g. www', field: 'subdomain' },
  { flags: '--path <p>', description: 'URL path', field: 'path' },
  { flags: '--port <n>', description: 'TCP port', field: 'port', kind: 'int' },
  { flags: '--timeout <s>', description: 'request timeout in seconds', field: 'timeout_seconds', kind: 'int' },
  { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
  { flags: '--notes <text>', description: 'free text', field: 'notes' },
];
const livenessFields: OptSpec[] = [
  { flags: '--timeout <s>', description: 'probe timeout in seconds (default 10)', field: 'timeout_seconds', kind: 'int' },
  { flags: '--expected-status <code>', description: 'expected HTTP status (default 200)', field: 'expected_status_code', kind: 'int' },
  { flags: '--interval <s>', description: 'seconds between probes (default 60)', field: 'interval_seconds', kind: 'int' },
  { flags: '--failure-threshold <n>', description: 'failures before a down alert (default 1)', field: 'failure_threshold', kind: 'int' },
  { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
];

export const RESOURCE_COMMANDS: Record<string, { description: string; commands: CommandSpec[] }> = {
  portfolios: {
    description: 'groups of domains',
    commands: crud('portfolios', '/api/v1/portfolios', {
      addArg: 'name',
      create: [{ flags: '--description <text>', description: 'description', field: 'description' }],
      update: [{ flags: '--name <name>', description: 'new name', field: 'name' }, { flags: '--description <text>', description: 'description', field: 'description' }],
      filters: [{ flags: '--name <text>', description: 'partial match on the name', field: 'name' }],
    }),
  },
  domains: {
    description: 'monitored domains',
    commands: [
      ...crud('domains', '/api/v1/domains', {
        addArg: 'domain',
        create: domainFields,
        update: [{ flags: '--domain <name>', description: 'rename', field: 'domain' }, ...domainFields],
        filters: [{ flags: '--domain <text>', description: 'partial match on the name', field: 'domain' }, { flags: '--portfolio <id>', description: 'portfolio id', field: 'portfolio_id' }],
      }),
      {
        name: 'import <file>',
        description: 'add domains from a file (one per line, or CSV with the name first; - for stdin)',
        options: [{ flags: '--portfolio <id>', description: 'portfolio for every imported domain', field: 'portfolio_id' }],
        async action(t, a, b) {
          const text = a[0] === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(a[0]!, 'utf8');
          const names = text.split(/\r?\n/).map((l) => l.split(',')[0]!.trim().replace(/^"|"$/g, '')).filter((n) => n && !n.startsWith('#') && n.toLowerCase() !== 'domain');
          const out = { created: 0, skipped: 0, failed: 0, errors: [] as { domain: string; error: string }[] };
          for (let i = 0; i < names.length; i += 500) {
            const chunk = names.slice(i, i + 500);
            const r = await call(t, 'POST', '/api/v1/domains/bulk', { domains: chunk.map((domain) => ({ domain, ...b })) });
            out.created += r.created;
            for (const f of r.errors as { index: number; error: string; code?: string }[]) {
              if (f.code === 'DOMAIN_EXISTS') out.skipped++;
              else {
                out.failed++;
                out.errors.push({ domain: chunk[f.index]!, error: f.error });
              }
            }
          }
          return out;
        },
        text: (r) => [`${r.created} created, ${r.skipped} skipped (already there), ${r.failed} failed`, ...r.errors.map((e: any) => `  ${e.domain}: ${e.error}`)].join('\n'),
      },
    ],
  },
  endpoints: {
    description: 'URLs and ports monitored under a domain',
    commands: crud('endpoints', '/api/v1/endpoints', {
      create: [
        { flags: '--domain <name-or-id>', description: 'parent domain (required)', field: 'domain_id' },
        { flags: '--name <name>', description: 'endpoint name, unique per domain (required)', field: 'name' },
        { flags: '--type <type>', description: 'https, http or port (required)', field: 'endpoint_type' },
        ...endpointFields,
      ],
      update: [{ flags: '--name <name>', description: 'new name', field: 'name' }, { flags: '--type <type>', description: 'https, http or port', field: 'endpoint_type' }, ...endpointFields],
      filters: [
        { flags: '--domain <name-or-id>', description: 'only this domain', field: 'domain_id' },
        { flags: '--type <type>', description: 'https, http or port', field: 'endpoint_type' },
        { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
      ],
    }),
  },
  liveness: {
    description: 'uptime probe configurations',
    commands: [
      ...crud('liveness', '/api/v1/liveness', {
        create: [{ flags: '--endpoint <id>', description: 'endpoint id (required)', field: 'endpoint_id' }, ...livenessFields],
        update: livenessFields,
        filters: [
          { flags: '--endpoint <id>', description: 'only this endpoint', field: 'endpoint_id' },
          { flags: '--domain <name-or-id>', description: 'only this domain', field: 'domain_id' },
          { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
        ],
      }),
    ],
  },
};

export function resourceCommands(program: Command): void {
  for (const [noun, spec] of Object.entries(RESOURCE_COMMANDS)) {
    const parent = program.command(noun).description(spec.description);
    for (const c of spec.commands) {
      const sub = parent.command(c.name).description(c.description);
      for (const o of c.options ?? []) sub.option(o.flags, o.description);
      sub.action(
        run(async (ctx, ...rest: unknown[]) => {
          const opts = rest[rest.length - 1] as Record<string, unknown>;
          const args = rest.slice(0, -1) as string[];
          const body: Record<string, unknown> = {};
          for (const o of c.options ?? []) {
            const key = o.flags.replace(/^--/, '').split(' ')[0]!.replace(/-([a-z])/g, (_, x: string) => x.toUpperCase());
            const v = convert(o.kind, opts[key], o.flags.split(' ')[0]!);
            if (v !== undefined) body[o.field] = v;
          }
          const t = await openTransport(ctx);
          try {
            if (typeof body.domain_id === 'string' && noun !== 'domains') body.domain_id = await domainId(t, body.domain_id);
            const res = await c.action(t, args, body);
            ctx.print.out(res, c.text ? () => c.text!(res) : undefined);
          } finally {
            await t.close();
          }
        }),
      );
    }
  }
}
