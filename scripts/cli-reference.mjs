#!/usr/bin/env node
// Prints the command reference (markdown) from the commander program itself: the table in
// docs/cli.md cannot drift from --help. `npm run docs` rewrites the docs/cli.md section between the
// markers; test/docs/docs.test.ts renders the same table from src/ and fails when the file is stale.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI_DOC = 'docs/cli.md';
export const MARKERS = /<!-- cli:start -->[\s\S]*<!-- cli:end -->/;

function rows(cmd, prefix) {
  const out = [];
  for (const sub of cmd.commands) {
    if (sub.name() === 'help') continue;
    const arg = (a) => `${a.name()}${a.variadic ? '...' : ''}`;
    const name = `${prefix} ${sub.name()}${sub.registeredArguments.map((a) => (a.required ? ` <${arg(a)}>` : ` [${arg(a)}]`)).join('')}`;
    if (sub.commands.length) out.push(...rows(sub, name));
    else {
      const opts = sub.options
        .map(
          (o) =>
            `\`${o.flags}\`${o.mandatory ? ' (required)' : ''}${o.argChoices ? ` (${o.argChoices.join(', ')})` : ''}`,
        )
        .join(', ');
      out.push(`| \`${name.trim()}\` | ${sub.description()}${opts ? `<br>options: ${opts}` : ''} |`);
    }
  }
  return out;
}

/** The markdown reference of a commander program (globals, then one row per leaf command). */
export function cliReference(program) {
  const globals = program.options.map((o) => `\`${o.flags}\` ${o.description}`).join('<br>');
  return [
    `Global options (before or after the command): ${globals}`,
    '',
    '| command | what it does |',
    '| --- | --- |',
    ...rows(program, 'dommon'),
  ].join('\n');
}

/** `text` with the section between the markers replaced by `md`. */
export function withReference(text, md) {
  return text.replace(MARKERS, `<!-- cli:start -->\n${md}\n<!-- cli:end -->`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const { buildProgram } = await import('../dist/cli/program.js');
  const md = cliReference(buildProgram());
  if (process.argv.includes('--write')) {
    fs.writeFileSync(CLI_DOC, withReference(fs.readFileSync(CLI_DOC, 'utf8'), md));
  } else {
    process.stdout.write(`${md}\n`);
  }
}
