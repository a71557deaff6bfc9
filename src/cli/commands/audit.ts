// `dommon audit list|export`: the team's audit trail (docs/audit.md), read through the Public API
// (in-process on the local database, or a daemon's with --remote), newest first.
import fs from 'node:fs';
import type { NounSpec, OptSpec } from '../spec.js';
import { table, type Palette } from '../output.js';
import { call, type Transport } from '../transport.js';

const FILTERS: OptSpec[] = [
  { flags: '--since <time>', description: 'changes at or after this date-time or date', field: 'since' },
  { flags: '--until <time>', description: 'changes before this date-time or date', field: 'until' },
  { flags: '--actor <user>', description: "the person's e-mail address or user id", field: 'actor' },
  {
    flags: '--kind <kind>',
    description: 'object kind: domain, endpoint, liveness, portfolio, status_page, channel, token, user, ...',
    field: 'object_kind',
  },
  { flags: '--object <id>', description: "the object's id", field: 'object_id' },
  {
    flags: '--action <action>',
    description: 'create, update, delete, pause, resume, revoke, refresh, verify, scan, test',
    field: 'action',
  },
];

interface Entry {
  id: string;
  at: string;
  actor: { user_id: string | null; email: string | null };
  via: { kind: string; id: string | null; name: string | null };
  action: string;
  object: { kind: string; id: string; name: string | null };
}

interface AuditPage {
  data: Entry[];
  next_cursor: string | null;
}

const query = (body: Record<string, unknown>) =>
  new URLSearchParams(
    Object.entries(body)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();

const listText = (r: AuditPage, paint: Palette): string => {
  const rows = r.data.map((e) => ({
    at: e.at,
    actor: e.actor.email ?? (e.via.kind === 'cli-local' ? `(local${e.via.name ? `: ${e.via.name}` : ''})` : null),
    via: e.via.kind === 'token' ? `token ${e.via.name ?? e.via.id}` : e.via.kind,
    action: e.action,
    kind: e.object.kind,
    object: e.object.name ?? e.object.id,
  }));
  const more = r.next_cursor ? `\n${paint.dim(`more: --cursor ${r.next_cursor}`)}` : '';
  return `${table(rows, ['at', 'actor', 'via', 'action', 'kind', 'object'], paint)}${more}`;
};

/** Every matching entry, newest first, a page of 500 at a time. */
async function* everyEntry(t: Transport, body: Record<string, unknown>): AsyncGenerator<unknown> {
  let cursor: string | null = null;
  do {
    const page: { data: unknown[]; next_cursor: string | null } = await call(
      t,
      'GET',
      `/api/v1/audit?${query({ ...body, limit: 500, cursor: cursor ?? undefined })}`,
    );
    yield* page.data;
    cursor = page.next_cursor;
  } while (cursor);
}

export const auditNoun: NounSpec = {
  name: 'audit',
  description: "the team's audit trail: who changed what (owners)",
  commands: [
    {
      name: 'list',
      description: 'list changes, newest first',
      options: [
        ...FILTERS,
        {
          flags: '--limit <n>',
          description: 'entries per page (at most 500)',
          field: 'limit',
          kind: 'int',
          default: '50',
        },
        { flags: '--cursor <cursor>', description: 'the next page (as a previous list printed)', field: 'cursor' },
      ],
      examples: [
        'dommon audit list',
        'dommon audit list --kind domain --action delete --since 2026-11-01',
        'dommon audit list --actor ann@example.com --json',
      ],
      action: ({ t, body }) => call(t, 'GET', `/api/v1/audit?${query(body)}`),
      text: (r, paint) => listText(r as AuditPage, paint),
    },
    {
      name: 'export',
      description: 'every matching change as JSON lines (to a file, or standard output)',
      options: [
        ...FILTERS,
        { flags: '-o, --output <file>', description: 'write to this file instead of standard output' },
      ],
      examples: ['dommon audit export -o audit.jsonl', 'dommon audit export --since 2026-01-01 > audit-2026.jsonl'],
      quiet: true,
      async action({ t, body, opts }) {
        const file = opts.output as string | undefined;
        const out: NodeJS.WritableStream = file ? fs.createWriteStream(file, { mode: 0o600 }) : process.stdout;
        let n = 0;
        for await (const e of everyEntry(t, body)) {
          if (!out.write(`${JSON.stringify(e)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
          n++;
        }
        if (file) {
          await new Promise<void>((resolve, reject) =>
            (out as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())),
          );
          process.stderr.write(`${n} entries written to ${file}\n`);
        }
        return { entries: n };
      },
    },
  ],
};
