// `dommon import gatus FILE` / `dommon import uptime-kuma FILE`: another monitor's setup as a dommon
// configuration file (on stdout or -o FILE), and on stderr, line by line, what could not be carried
// over and the environment variables the file's secrets are read from. Nothing is stored: `dommon
// apply -f` does that. The importers (and the YAML writer) load only when one of these runs.
import fs from 'node:fs';
import type { Command } from 'commander';
import { configSchemaUrl } from '../../config/index.js';
import { run } from '../run.js';
import { addOptions, withExamples, type OptSpec } from '../spec.js';
import type { ImportResult } from '../../services/import/file.js';

const output: OptSpec = {
  flags: '-o, --output <file>',
  description: 'write the file here (YAML, or JSON when the name ends in .json) instead of standard output',
};

async function emit(
  res: ImportResult,
  source: string,
  o: { output?: string },
  json: boolean,
  tool: string,
  schemaUrl: string,
): Promise<void> {
  const { fileText } = await import('../../services/import/index.js');
  const asJson = o.output ? /\.json$/i.test(o.output) : json;
  const text = fileText(res, { tool, source, json: asJson, schemaUrl });
  for (const n of res.notes) process.stderr.write(`${n.at}: ${n.message}\n`);
  if (res.secrets.length)
    process.stderr.write(
      `secrets: the file reads ${res.secrets.length === 1 ? 'this variable' : 'these variables'} when applied: ${res.secrets.map((s) => `${s.name} (${s.what})`).join('; ')}\n`,
    );
  if (o.output) {
    fs.writeFileSync(o.output, text, { mode: 0o644 });
    process.stderr.write(`wrote ${o.output}: ${summary(res)}; ${res.notes.length} note(s) above\n`);
    if (json)
      process.stdout.write(
        `${JSON.stringify({ output: o.output, notes: res.notes, secrets: res.secrets }, null, 2)}\n`,
      );
  } else process.stdout.write(text);
}

function summary(res: ImportResult): string {
  const f = res.file;
  const endpoints = (f.domains ?? []).reduce((n, d) => n + d.endpoints.length, 0);
  return [
    `${f.domains?.length ?? 0} domain(s)`,
    `${endpoints} endpoint(s)`,
    `${f.portfolios?.length ?? 0} portfolio(s)`,
    `${f.channels?.length ?? 0} channel(s)`,
    `${f.maintenance_windows?.length ?? 0} maintenance window(s)`,
    `${f.status_pages?.length ?? 0} status page(s)`,
  ].join(', ');
}

export function importFromCommands(program: Command): void {
  const imp = program
    .command('import')
    .description(
      "convert another monitor's setup (Gatus, Uptime Kuma) into a dommon configuration file for `dommon apply -f`",
    );

  const gatus = imp
    .command('gatus <file>')
    .description(
      'a Gatus config.yaml as a dommon file on stdout (or -o); what could not be carried over is listed on stderr with its line',
    );
  addOptions(gatus, [
    output,
    {
      flags: '--push-domain <domain>',
      description:
        'the domain external-endpoints (push monitors, no host in Gatus) go under (default: the first domain of the file)',
    },
  ]);
  withExamples(gatus, [
    'dommon import gatus config/config.yaml -o dommon.yaml',
    'dommon import gatus config.yaml --push-domain example.com 2>not-carried.txt | dommon apply -f -',
  ]);
  gatus.action(
    run(async (ctx, file: string, o: { output?: string; pushDomain?: string }) => {
      const text = readSource(file);
      const { importGatus } = await import('../../services/import/gatus.js');
      const res = importGatus(file === '-' ? 'stdin' : file, text, { pushDomain: o.pushDomain });
      await emit(res, file, o, ctx.print.json, 'gatus', configSchemaUrl(ctx.config));
    }),
  );

  const kuma = imp
    .command('uptime-kuma <file>')
    .description(
      'an Uptime Kuma kuma.db (1.23 or 2.x; read from a copy, never written) or JSON backup as a dommon file on stdout (or -o); what could not be carried over is listed on stderr',
    );
  addOptions(kuma, [
    output,
    {
      flags: '--push-domain <domain>',
      description: 'the domain push monitors (no host in Kuma) go under (default: the first domain of the file)',
    },
  ]);
  withExamples(kuma, [
    'dommon import uptime-kuma /app/data/kuma.db -o dommon.yaml',
    'dommon import uptime-kuma Uptime_Kuma_Backup.json --push-domain example.com > dommon.yaml',
  ]);
  kuma.action(
    run(async (ctx, file: string, o: { output?: string; pushDomain?: string }) => {
      const { importUptimeKuma } = await import('../../services/import/uptime-kuma.js');
      const res = importUptimeKuma(file, { pushDomain: o.pushDomain });
      await emit(res, file, o, ctx.print.json, 'uptime-kuma', configSchemaUrl(ctx.config));
    }),
  );
}

function readSource(file: string): string {
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
