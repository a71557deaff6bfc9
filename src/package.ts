// The package's own files (package.json, schemas/) found from wherever this module runs: src/ under
// tsx, dist/ after `npm run build`, or dist/bundle/chunks/ in the bundled CLI.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string }).name === 'dommon')
      return dir;
    if (path.dirname(dir) === dir) throw new Error(`dommon's package.json not found above ${from}`);
  }
}

/** The package root: the folder holding dommon's package.json. */
export const PACKAGE_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** The version in package.json. */
export const VERSION: string = (
  JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
