// `dommon serve`'s heap policy (src/cli/heap.ts): applied by default, left alone when the operator
// chose heap flags of their own (node arguments or NODE_OPTIONS).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const heap = fileURLToPath(new URL('../../src/cli/heap.ts', import.meta.url));
const run = (nodeArgs: string[], env: Record<string, string> = {}) =>
  execFileSync(
    process.execPath,
    [
      ...nodeArgs,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { tuneHeap } from ${JSON.stringify(heap)}; console.log(tuneHeap());`,
    ],
    {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  ).trim();

t.test("applied by default, not over the operator's own heap flags", async (t) => {
  t.equal(run([]), 'true');
  t.equal(run(['--max-old-space-size=300']), 'false', 'a node argument');
  t.equal(run([], { NODE_OPTIONS: '--max-old-space-size=300' }), 'false', 'NODE_OPTIONS');
});
