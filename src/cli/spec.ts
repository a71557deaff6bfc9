// The one table of commands and options: each noun file declares its commands as data; this module
// turns them into commander commands (flags, choices, required options, help with examples), and
// scripts/cli-reference.mjs turns the same commander tree into the reference in docs/cli.md.
import { Command, Option } from 'commander';
import type { CliContext } from './context.js';
import { run } from './run.js';
import { UsageError, type Palette } from './output.js';
import { openTransport, type Transport } from './transport.js';

export type Kind = 'string' | 'int' | 'bool' | 'list' | 'json' | 'flag';

export interface OptSpec {
  /** commander flags, e.g. `--limit <n>` */
  flags: string;
  description: string;
  /** API field the option fills (default: none, the action reads it from `opts`). */
  field?: string;
  /** How the raw string becomes the API value (default string). */
  kind?: Kind;
  choices?: readonly string[];
  required?: boolean;
  default?: string;
}

export interface CommandSpec {
  /** `show <id>`, `import <file>` ... */
  name: string;
  description: string;
  /** Allowed values of the first positional argument (commander checks them; completion offers them). */
  argChoices?: readonly string[];
  options?: OptSpec[];
  examples?: string[];
  /** Runs with the API transport (local in-process or --remote). `body` holds every option with a field. */
  action(io: {
    t: Transport;
    args: string[];
    body: Record<string, unknown>;
    opts: Record<string, unknown>;
    ctx: CliContext;
  }): Promise<unknown>;
  /** Human output; JSON is printed as the action returned it. */
  text?(res: unknown, paint: Palette): string;
  /** The action writes its own output (an export's lines): nothing more is printed. */
  quiet?: boolean;
}

export interface NounSpec {
  name: string;
  description: string;
  commands: CommandSpec[];
}

/** `--expected-status <code>` -> `expectedStatus` (commander's attribute name). */
export function optKey(flags: string): string {
  const long = flags.split(/[ ,]+/).find((f) => f.startsWith('--'))!;
  return long.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, x: string) => x.toUpperCase());
}

export function convert(kind: Kind | undefined, v: unknown, flag: string): unknown {
  if (v === undefined) return undefined;
  switch (kind) {
    case 'int':
      if (!/^-?\d+$/.test(String(v))) throw new UsageError(`${flag} must be a whole number, got "${String(v)}"`);
      return Number(v);
    case 'bool': {
      const s = String(v).toLowerCase();
      if (v === true || ['true', 'yes', '1', 'on'].includes(s)) return true;
      if (v === false || ['false', 'no', '0', 'off'].includes(s)) return false;
      throw new UsageError(`${flag} must be true or false, got "${String(v)}"`);
    }
    case 'flag':
      return v === true ? true : undefined;
    case 'list':
      return String(v)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'json':
      try {
        return JSON.parse(String(v));
      } catch {
        throw new UsageError(`${flag} must be JSON`);
      }
    default:
      return v;
  }
}

/** Adds the options of a table to a commander command. */
export function addOptions(cmd: Command, options: OptSpec[] = []): Command {
  for (const o of options) {
    const opt = new Option(o.flags, o.description);
    if (o.choices) opt.choices(o.choices as string[]);
    if (o.default !== undefined) opt.default(o.default);
    if (o.required) opt.makeOptionMandatory(true);
    cmd.addOption(opt);
  }
  return cmd;
}

export function withExamples(cmd: Command, examples: string[] = []): Command {
  if (examples.length) cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  return cmd;
}

/** Reads the table's options out of commander's parsed values into an API body. */
function bodyOf(options: OptSpec[] = [], opts: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const o of options) {
    if (!o.field) continue;
    const v = convert(o.kind, opts[optKey(o.flags)], o.flags.split(' ')[0]!);
    if (v !== undefined) body[o.field] = v;
  }
  return body;
}

/** One table entry as a commander command under `parent`. */
export function registerCommand(parent: Command, c: CommandSpec): Command {
  const sub = parent.command(c.name).description(c.description);
  if (c.argChoices) sub.registeredArguments[0]?.choices(c.argChoices);
  addOptions(sub, c.options);
  withExamples(sub, c.examples);
  sub.action(
    run(async (ctx, ...rest: unknown[]) => {
      const opts = rest[rest.length - 1] as Record<string, unknown>;
      const args = rest.slice(0, -1) as string[];
      const body = bodyOf(c.options, opts);
      const t = await openTransport(ctx);
      try {
        const res = await c.action({ t, args, body, opts, ctx });
        if (!c.quiet) ctx.print.out(res, c.text ? () => c.text!(res, ctx.print.paint) : undefined);
      } finally {
        await t.close();
      }
    }),
  );
  return sub;
}

export function registerNoun(program: Command, noun: NounSpec): Command {
  const parent = program.command(noun.name).description(noun.description);
  for (const c of noun.commands) registerCommand(parent, c);
  return parent;
}
