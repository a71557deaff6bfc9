// `dommon apply -f FILE [--dry-run] [--prune]`: makes the team's setup match a configuration file
// (docs/configuration-file.md) through POST /api/v1/config/apply, on the local data directory or a
// daemon (--remote). The file is read here and sent whole with the values of the variables it names;
// every error of an invalid file is printed as `file:line:col: rule` (exit 2), nothing applied.
// `dommon export [-o FILE]`: the team's setup as such a file (GET /api/v1/config/export), on standard
// output or in FILE; the variables its secrets' references read are listed on stderr.
import fs from 'node:fs';
import type { Command } from 'commander';
import { ApiError, call, openTransport, qs } from '../transport.js';
import type { Palette } from '../output.js';
import { addOptions, withExamples, type CommandSpec } from '../spec.js';
import { run } from '../run.js';

interface Plan {
  applied: boolean;
  dry_run: boolean;
  summary: Record<string, { create: number; update: number; delete: number }>;
  steps: { kind: string; action: string; name: string; changes?: { field: string; from: unknown; to: unknown }[] }[];
}

/** How long `apply --remote` waits for the daemon's answer: a file of 10,000 endpoints applies in tens of seconds. */
const APPLY_TIMEOUT_MS = 10 * 60_000;

/** The `${NAME}` references of the text (its variables' values go with the file). */
const namesIn = (text: string) => [...new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!))];

const SIGN: Record<string, string> = { create: '+', update: '~', delete: '-' };
const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function planText(res: unknown, paint: Palette): string {
  const p = res as Plan;
  if (!p.steps.length) return 'no changes';
  const lines = p.steps.map((s) => {
    const head = `${SIGN[s.action] ?? ' '} ${s.kind} ${s.name}`;
    const colour = s.action === 'delete' ? paint.red : s.action === 'create' ? paint.green : paint.yellow;
    return [colour(head), ...(s.changes ?? []).map((c) => `    ${c.field}: ${show(c.from)} -> ${show(c.to)}`)].join(
      '\n',
    );
  });
  const totals = Object.entries(p.summary)
    .filter(([, n]) => n.create + n.update + n.delete)
    .map(([k, n]) => `${k}: ${n.create} to create, ${n.update} to update, ${n.delete} to delete`);
  const verdict = p.dry_run ? 'dry run: nothing applied' : 'applied';
  return [...lines, '', ...totals, verdict].join('\n');
}

export const applyCommand: CommandSpec = {
  name: 'apply',
  description: "make the team's setup match a configuration file (YAML or JSON; prints the plan)",
  options: [
    { flags: '-f, --file <file>', description: 'the configuration file (- for standard input)', required: true },
    { flags: '--dry-run', description: 'print the plan only; change nothing' },
    { flags: '--prune', description: 'also delete what the file does not list' },
  ],
  examples: [
    'dommon apply -f dommon.yaml --dry-run',
    'WEBHOOK_SECRET=s3cret dommon apply -f dommon.yaml',
    'dommon apply -f dommon.yaml --prune --json',
  ],
  async action({ t, opts }) {
    const file = String(opts.file);
    let text: string;
    try {
      text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const env: Record<string, string> = {};
    for (const name of namesIn(text)) if (process.env[name] !== undefined) env[name] = process.env[name];
    const r = await t.request(
      'POST',
      `/api/v1/config/apply${qs({ dry_run: opts.dryRun ? true : undefined, prune: opts.prune ? true : undefined })}`,
      { file: text, filename: file === '-' ? 'stdin' : file, env },
      // A large file (10,000 endpoints) takes the daemon longer than an ordinary request to apply.
      { timeoutMs: APPLY_TIMEOUT_MS },
    );
    const b = r.body as { error?: string; code?: string; errors?: string[] } | undefined;
    if (r.status >= 400) {
      if (b?.code === 'INVALID_CONFIG' && b.errors) {
        for (const e of b.errors) process.stderr.write(`${e}\n`);
        throw new ApiError(r.status, `${file}: ${b.errors.length} error(s), nothing applied`);
      }
      throw new ApiError(r.status, b?.error ?? `HTTP ${r.status}`);
    }
    return r.body;
  },
  text: planText,
};

interface Exported {
  format: 'yaml' | 'json';
  file: string;
  secrets: { name: string; what: string }[];
}

export function exportCommand(program: Command): void {
  const cmd = program
    .command('export')
    .description(
      "the team's setup as a configuration file for `dommon apply -f` (YAML; JSON with --json or a FILE ending in .json); secrets as ${NAME} references, listed on stderr",
    );
  addOptions(cmd, [{ flags: '-o, --output <file>', description: 'write the file here instead of standard output' }]);
  withExamples(cmd, [
    'dommon export -o dommon.yaml',
    'dommon export --remote https://dommon.example.com --token $DOMMON_TOKEN > dommon.yaml',
    'dommon export --json > dommon.json',
  ]);
  cmd.action(
    run(async (ctx, o: { output?: string }) => {
      const json = o.output ? /\.json$/i.test(o.output) : ctx.print.json;
      const t = await openTransport(ctx);
      let res: Exported;
      try {
        res = await call<Exported>(t, 'GET', `/api/v1/config/export${qs({ format: json ? 'json' : 'yaml' })}`);
      } finally {
        await t.close();
      }
      if (res.secrets.length)
        process.stderr.write(
          `secrets: the file reads ${res.secrets.length === 1 ? 'this variable' : 'these variables'} when applied: ${res.secrets.map((x) => `${x.name} (${x.what})`).join('; ')}\n`,
        );
      if (!o.output) return void process.stdout.write(res.file);
      fs.writeFileSync(o.output, res.file, { mode: 0o644 });
      process.stderr.write(`wrote ${o.output}\n`);
    }),
  );
}
