// End to end: `dommon status` in a real terminal (tmux), driven with send-keys, read with capture-pane.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import t from 'tap';
import { tempDir } from '../support/app.js';
import { BIN, cliIn, ensureBuilt } from '../support/cli.js';

t.setTimeout(240_000);
const hasTmux = spawnSync('tmux', ['-V']).status === 0;

t.test(
  'dommon status in tmux: rows, filter, detail, quit',
  { skip: hasTmux ? false : 'tmux is not installed (apt-get install -y tmux)', timeout: 120_000 },
  async (t) => {
    await ensureBuilt();
    const dir = tempDir();
    const sock = `dommon-test-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', sock, ...args], { encoding: 'utf8' });
    t.teardown(() => {
      spawnSync('tmux', ['-L', sock, 'kill-server']);
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const run = cliIn(dir);
    await run('token', 'create', '--team', 'ops');
    t.equal((await run('domains', 'add', 'first.example')).code, 0);
    t.equal((await run('domains', 'add', 'second.example')).code, 0);
    t.equal(
      (
        await run(
          'endpoints',
          'add',
          '--domain',
          'second.example',
          '--name',
          'api',
          '--type',
          'https',
          '--subdomain',
          'api',
        )
      ).code,
      0,
    );

    // The shell prints the exit code on the screen once the dashboard ends (tmux's pane_dead_status
    // proved unreliable across versions).
    // `env -u CI`: Ink draws only the last frame when it believes it runs in CI; a user's terminal has no CI.
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION DOMMON_LOG_LEVEL=error ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} --data-dir ${JSON.stringify(dir)} status --interval 1; c=$?; echo dommon-exit=$c; exit $c`;
    // remain-on-exit keeps the pane (and its last screen and exit status) after the program ends
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'dash', '-x', '140', '-y', '30', 'sleep 600');
    tmux('set-option', '-t', 'dash', 'remain-on-exit', 'on');
    tmux('respawn-pane', '-k', '-t', 'dash', cmd);
    const dead = () => tmux('display-message', '-p', '-t', 'dash', '#{pane_dead} #{pane_dead_status}').trim();
    const screen = () => tmux('capture-pane', '-p', '-t', 'dash');
    const until = async (pred: (s: string) => boolean, what: string) => {
      const end = Date.now() + 20_000;
      let s = '';
      while (Date.now() < end) {
        try {
          s = screen();
        } catch {
          s = '';
        }
        if (pred(s)) return s;
        if (dead().startsWith('1')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      t.fail(`no ${what} (pane: ${dead()}); screen:\n${s}`);
      return s;
    };

    let s = await until(
      (x) => x.includes('second.example') && x.includes('api https://api.second.example/'),
      'the rows',
    );
    t.match(s, /2 domain\(s\), 1 endpoint\(s\)/);
    t.match(s, /> first\.example/, 'first row selected');
    t.match(s, /q quit/);

    tmux('send-keys', '-t', 'dash', 'j');
    s = await until((x) => /> second\.example/.test(x), 'the selection to move');
    t.match(s, /> second\.example/);

    // a domain added while the dashboard runs appears on the next refresh
    await run('domains', 'add', 'third.example');
    s = await until((x) => x.includes('third.example'), 'the live refresh');
    t.match(s, /3 domain\(s\)/);

    tmux('send-keys', '-t', 'dash', '/', 'thi');
    s = await until((x) => x.includes('filter: thi') && !x.includes('first.example'), 'the filter');
    t.match(s, /> third\.example/);
    tmux('send-keys', '-t', 'dash', 'Enter', 'Enter');
    s = await until((x) => x.includes('Enter/Esc back'), 'the detail view');
    t.match(s, /domain\s+third\.example/);
    tmux('send-keys', '-t', 'dash', 'q');
    // The exit code: printed by the shell (when it reaches the screen) or recorded by tmux for the dead pane.
    const end = Date.now() + 20_000;
    let code: string | undefined;
    while (Date.now() < end && code === undefined) {
      code = /dommon-exit=(\d+)/.exec(screen())?.[1] ?? /^1 (\d+)$/.exec(dead())?.[1];
      if (code === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    t.equal(code, '0', 'q quits the dashboard with exit code 0');
  },
);
