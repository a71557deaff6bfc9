// The command-line tests' time limits count from their latest child process (test/support/cli.ts
// progressed()): a file and a test whose limit is 5 s run for over 6 s, 3 s at a time between a
// command's start and end, and pass; without the re-arming both would time out.
import t from 'tap';
import { cli, ensureBuilt, progressed } from '../support/cli.js';
import { sleep } from '../support/wait.js';

t.test('a test may run past its limit while its child processes keep starting and ending', async (t) => {
  await ensureBuilt();
  t.setTimeout(5000);
  progressed();
  await sleep(3000);
  const r = await cli(['--version']);
  t.equal(r.code, 0, r.stderr);
  await sleep(3000);
  t.pass('still running 6 s after the limit of 5 s was set');
});

// The file's own limit, which tap's runner keeps: set after the test above was queued, so it counts from
// here; the test's steps re-arm it too.
t.setTimeout(5000);
