// `dommon completion bash|zsh|fish`: completion scripts generated from the commander tree itself,
// option values included where an option has choices (`--type` lists the endpoint types).
import type { Command } from 'commander';
import { UsageError } from '../output.js';

interface Node {
  path: string[];
  subs: string[];
  flags: string[];
  /** Values offered as words: the choices of the command's arguments and options. */
  values: string[];
  /** Values of the options that take one of a list (`--type` -> https http ...), offered after the flag. */
  choices: [flag: string, values: string[]][];
}

function walk(cmd: Command, path: string[], out: Node[], inherited: string[]): void {
  const flags = [...inherited, ...cmd.options.map((o) => o.long).filter((f): f is string => !!f)];
  const subs = cmd.commands.filter((c) => c.name() !== 'help').map((c) => c.name());
  const values = [
    ...cmd.registeredArguments.flatMap((a) => a.argChoices ?? []),
    ...cmd.options.flatMap((o) => o.argChoices ?? []),
  ];
  const choices = cmd.options.flatMap((o): Node['choices'] =>
    o.long && o.argChoices?.length ? [[o.long, o.argChoices]] : [],
  );
  out.push({ path, subs, flags: [...new Set([...flags, '--help'])], values: [...new Set(values)], choices });
  for (const c of cmd.commands)
    if (c.name() !== 'help') walk(c, [...path, c.name()], out, path.length === 0 ? flags : inherited);
}

function bash(nodes: Node[]): string {
  const cases = nodes
    .map((n) => `    "${n.path.join(' ')}") words_="${[...n.subs, ...n.values, ...n.flags].join(' ')}" ;;`)
    .join('\n');
  const values = nodes
    .flatMap((n) => n.choices.map(([flag, v]) => `    "${n.path.join(' ')} ${flag}") words_="${v.join(' ')}" ;;`))
    .join('\n');
  return `# dommon bash completion: eval "$(dommon completion bash)"
_dommon() {
  local cur key words_ i w
  cur="\${COMP_WORDS[COMP_CWORD]}"
  key=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case "\${key:+$key }$w" in
${nodes
  .filter((n) => n.path.length)
  .map((n) => `      "${n.path.join(' ')}") key="${n.path.join(' ')}" ;;`)
  .join('\n')}
    esac
  done
  case "$key" in
${cases}
  esac
  case "$key \${COMP_WORDS[COMP_CWORD-1]}" in
${values}
  esac
  COMPREPLY=( $(compgen -W "$words_" -- "$cur") )
}
complete -o default -F _dommon dommon
`;
}

function zsh(nodes: Node[]): string {
  return `#compdef dommon
# dommon zsh completion: eval "$(dommon completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${bash(nodes).split('\n').slice(1).join('\n')}`;
}

function fish(nodes: Node[]): string {
  const lines = ['# dommon fish completion: dommon completion fish | source', 'complete -c dommon -f'];
  for (const n of nodes) {
    const cond = n.path.length ? `__fish_seen_subcommand_from ${n.path[n.path.length - 1]}` : '__fish_use_subcommand';
    for (const s of [...n.subs, ...n.values]) lines.push(`complete -c dommon -n '${cond}' -a ${s}`);
    for (const f of n.flags)
      if (f !== '--help' || !n.path.length) lines.push(`complete -c dommon -n '${cond}' -l ${f.replace(/^--/, '')}`);
    for (const [f, v] of n.choices)
      lines.push(`complete -c dommon -n '${cond}' -l ${f.replace(/^--/, '')} -xa '${v.join(' ')}'`);
  }
  return `${lines.join('\n')}\n`;
}

const SHELLS = { bash, zsh, fish } satisfies Record<string, (n: Node[]) => string>;

export function completionCommand(program: Command): void {
  program
    .command('completion <shell>')
    .description('print a shell completion script (bash, zsh or fish)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ eval "$(dommon completion bash)"      # in ~/.bashrc\n  $ dommon completion fish > ~/.config/fish/completions/dommon.fish\n',
    )
    .action((shell: string) => {
      const gen = SHELLS[shell as keyof typeof SHELLS];
      if (!gen) throw new UsageError(`shell must be one of ${Object.keys(SHELLS).join(', ')}`);
      const nodes: Node[] = [];
      walk(program, [], nodes, []);
      process.stdout.write(gen(nodes));
    });
}
