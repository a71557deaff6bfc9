// What `import t from 'tap'` gives a test file that scripts/tap-files.mjs compiled (its build points the
// files' `tap` imports here): tap's root, as before, in a process that runs one file; and, in a process
// that runs a group of files one after another, each file's own subtest, named by the file, while that
// file runs. The default export is a live binding, so a file's `t` is its own subtest from its first
// line (the group sets it before importing the file) to its last test.
//
// A group's process pays Node's start and the loading of the app's modules once for all its files.
// Per file it keeps what a process of its own gave it: its tests under one subtest named by its path
// (so a failure names the file), its time limit (tap's 30 s, or what its `t.setTimeout()` asks, counted
// again by test/support/cli.ts's progressed()), its teardowns run when it ends, and its figures (wall
// time and CPU from its start to its end, the commands and daemons it waited for included) appended to
// $DOMMON_TAP_TIMES as scripts/tap-cpu.mjs does for a file alone.
import fs from 'node:fs';
import { procCpu } from './proc-cpu.mjs';
import root from 'tap';

export * from 'tap';

let t = root;
export { t as default };

/**
 * A file's limit unless it sets another, as a file alone has: the TAP_TIMEOUT (seconds) the runner
 * (scripts/tap-files.mjs) gives every process, which tap's root reads too; tap's 30 s without it.
 */
const FILE_TIMEOUT = (Number(process.env.TAP_TIMEOUT) || 30) * 1000;
/** How much longer than the running file's limit the process's own limit (and its runner's) is. */
const MARGIN = 15_000;

/**
 * Runs `files` (`[path, import]` pairs, in order) in this process, each as a subtest of tap's root named
 * by its path. A file's failure, timeout included, fails its subtest and the group goes on to the next.
 */
export async function runGroup(files) {
  const out = process.env.DOMMON_TAP_TIMES;
  for (const [file, load] of files) {
    const started = performance.now();
    const [own0, children0] = procCpu();
    // The process's limit (its runner's too: tap's root passes it on) follows the running file's, so
    // that a file's own limit is the one that fails it.
    root.setTimeout(FILE_TIMEOUT + MARGIN);
    await root.test(file, { timeout: FILE_TIMEOUT }, async (ft) => {
      const setTimeout = ft.setTimeout.bind(ft);
      ft.setTimeout = (n) => {
        setTimeout(n);
        if (n > 0) root.setTimeout(n + MARGIN);
      };
      t = ft;
      await load();
    });
    t = root;
    const [own, children] = procCpu();
    if (out)
      fs.appendFileSync(
        out,
        `${JSON.stringify({
          file,
          wallMs: Math.round(performance.now() - started),
          cpuMs: own - own0 + children - children0,
          childCpuMs: children - children0,
          grouped: files.length,
        })}\n`,
      );
  }
  // What a file left running must still end within a limit, as a file alone's process must.
  root.setTimeout(FILE_TIMEOUT);
}
