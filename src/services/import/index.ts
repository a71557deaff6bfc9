// The text of an imported file: YAML (or JSON) with a header that says where it came from and which
// environment variables its secrets are read from when it is applied.
import { stringify } from 'yaml';
import type { ImportResult } from './file.js';

/** `schemaUrl`: where the daemon that will apply the file serves its JSON Schema (config's configSchemaUrl). */
export function fileText(
  res: ImportResult,
  o: { tool: string; source: string; json: boolean; schemaUrl: string },
): string {
  if (o.json) return `${JSON.stringify(res.file, null, 2)}\n`;
  const head = [
    `# yaml-language-server: $schema=${o.schemaUrl}`,
    `# Made by \`dommon import ${o.tool} ${o.source}\`; apply with \`dommon apply -f FILE\` (docs/import-${o.tool}.md).`,
    ...(res.secrets.length
      ? [
          '# Secrets are ${NAME} references, read from the environment when the file is applied:',
          ...res.secrets.map((s) => `#   ${s.name}: ${s.what}`),
        ]
      : []),
  ];
  return `${head.join('\n')}\n${stringify(res.file, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}
