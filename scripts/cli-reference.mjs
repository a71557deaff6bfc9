#!/usr/bin/env node
// Prints the command reference (markdown) from the commander program itself: the README's table
// cannot drift from --help. `npm run docs` rewrites the README section between the markers.
import fs from 'node:fs';
import { buildProgram } from '../dist/cli/program.js';

function rows(cmd, prefix) {
  const out = [];
  for (const sub of cmd.commands) {
    if (sub.name() === 'help') continue;
    const arg = (a) => `${a.name()}${a.variadic ? '...' : ''}`;
    const name = `${prefix} ${sub.name()}${sub.registeredArguments.map((a) => (a.required ? ` <${arg(a)}>` : ` [${arg(a)}]`)).join('')}`;
    if (sub.commands.length) out.push(...rows(sub, name));
    else {
      const opts = sub.options
        .map((o) => `\`${o.flags}\`${o.mandatory ? ' (required)' : ''}${o.argChoices ? ` (${o.argChoices.join(', ')})` : ''}`)
        .join(', ');
      out.push(`| \`${name.trim()}\` | ${sub.description()}${opts ? `<br>options: ${opts}` : ''} |`);
    }
  }
  return out;
}

const program = buildProgram();
const globals = program.options.map((o) => `\`${o.flags}\` ${o.description}`).join('<br>');
const md = [`Global options (before or after the command): ${globals}`, '', '| command | what it does |', '| --- | --- |', ...rows(program, 'dommon')].join('\n');
if (process.argv.includes('--write')) {
  const readme = fs.readFileSync('README.md', 'utf8');
  const next = readme.replace(/<!-- cli:start -->[\s\S]*<!-- cli:end -->/, `<!-- cli:start -->\n${md}\n<!-- cli:end -->`);
  fs.writeFileSync('README.md', next);
} else {
  process.stdout.write(`${md}\n`);
}
