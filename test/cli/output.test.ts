// Pure output rules: colour only on a TTY without NO_COLOR, aligned tables, exit codes, one-line errors.
import t from 'tap';
import { colorEnabled, errorLine, exitCodeFor, palette, table, UsageError } from '../../src/cli/output.js';
import { Conflict, NotFound } from '../../src/domain/errors.js';
import { ConfigError } from '../../src/config/index.js';
import { parseImport } from '../../src/cli/commands/domains.js';
import { optKey, convert } from '../../src/cli/spec.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

t.test('colour decision', async (t) => {
  t.equal(colorEnabled({ isTTY: true }, {}), true);
  t.equal(colorEnabled({ isTTY: false }, {}), false);
  t.equal(colorEnabled({ isTTY: true }, { NO_COLOR: '1' }), false, 'NO_COLOR wins');
  t.equal(colorEnabled({ isTTY: true }, { NO_COLOR: '' }), true, 'an empty NO_COLOR is unset');
  t.equal(colorEnabled({ isTTY: true }, { TERM: 'dumb' }), false);
  t.equal(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' }), true);
});

t.test('tables stay aligned when cells are coloured', async (t) => {
  const rows = [
    { name: 'a', status: 'healthy', n: 1 },
    { name: 'longer', status: 'critical', n: null },
  ];
  const plain = table(rows, ['name', 'status', 'n:COUNT']);
  t.equal(plain, ['NAME    STATUS    COUNT', 'a       healthy   1', 'longer  critical  -'].join('\n'));
  const coloured = table(rows, ['name', 'status', 'n:COUNT'], palette(true));
  t.match(coloured, /\u001b\[32mhealthy\u001b\[39m {3}1/, 'green healthy, padding outside the colour codes');
  t.match(coloured, /\u001b\[31mcritical\u001b\[39m/);
  t.equal(coloured.replace(/\u001b\[\d+m/g, ''), plain, 'same text without the codes');
  t.equal(table([], ['x']), '(none)');
});

t.test('exit codes and one-line errors', async (t) => {
  t.equal(exitCodeFor(new UsageError('x')), 2);
  t.equal(exitCodeFor(new ConfigError('x')), 2);
  t.equal(exitCodeFor(new NotFound('Domain')), 3);
  t.equal(exitCodeFor(new Conflict('exists', 'DOMAIN_EXISTS')), 4);
  t.equal(exitCodeFor(Object.assign(new Error('x'), { status: 400 })), 2);
  t.equal(exitCodeFor(Object.assign(new Error('x'), { status: 401 })), 1);
  t.equal(exitCodeFor(new Error('boom')), 1);
  t.equal(errorLine(new Error('two\n  lines')), 'dommon: two lines\n');
});

t.test('import parsing and option conversion', async (t) => {
  t.same(
    parseImport('a.com\n\n# c\r\nb.org\n').map((l) => [l.line, l.domain]),
    [
      [1, 'a.com'],
      [4, 'b.org'],
    ],
  );
  const csv = parseImport('\uFEFFnotes,Domain\n"x, y",c.net\n,d.io\n');
  t.same(
    csv.map((l) => [l.line, l.domain, l.extra]),
    [
      [2, 'c.net', { notes: 'x, y' }],
      [3, 'd.io', {}],
    ],
  );
  t.same(
    parseImport('e.com,whatever\n').map((l) => l.domain),
    ['e.com'],
    'no header: the first column',
  );
  t.equal(optKey('--expected-status <code>'), 'expectedStatus');
  t.equal(convert('int', '42', '--n'), 42);
  t.ok(caught(() => convert('int', '4x', '--n')) instanceof UsageError);
  t.equal(convert('bool', 'no', '--b'), false);
  t.ok(caught(() => convert('bool', 'maybe', '--b')) instanceof UsageError);
  t.same(convert('list', 'a, b,,c', '--l'), ['a', 'b', 'c']);
  t.ok(caught(() => convert('json', '{', '--j')) instanceof UsageError);
});
