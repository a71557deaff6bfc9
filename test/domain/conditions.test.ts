// The condition language: Gatus's own condition cases (config/endpoint/condition_test.go), the
// places where dommon is stricter, and the parse errors with their positions.
import t from 'tap';
import {
  ConditionSyntaxError,
  MAX_BODY_MEMO,
  MAX_CONDITIONS,
  MAX_CONDITION_LENGTH,
  MAX_SEEN_LENGTH,
  PLACEHOLDERS,
  bodyMemo,
  evaluateConditions,
  formatDuration,
  parseCondition,
  parseConditions,
  statusCondition,
  wildcardMatch,
  type BodyMemo,
  type ConditionContext,
  type ConditionFailure,
  type ConditionSet,
  type ConditionsOutcome,
  type ParseOptions,
  type ParsedCondition,
} from '../../src/domain/conditions.js';

const H = 3_600_000;

/** Evaluates one condition: null when it holds, else the display of what was seen. */
function judge(condition: string, context: ConditionContext): string | null {
  const out = evaluateConditions(parseConditions([condition]), context);
  return out.ok ? null : out.failures[0].seen;
}

// [condition, context, holds, display when it fails]
const GATUS_CASES: [string, ConditionContext, boolean, string?][] = [
  ['[IP] == 127.0.0.1', { IP: '127.0.0.1' }, true],
  ['[STATUS] == 200', { STATUS: 200 }, true],
  ['[STATUS] == 200', { STATUS: 500 }, false, '[STATUS] (500) == 200'],
  ['[STATUS] < 300', { STATUS: 201 }, true],
  ['[STATUS] < 300', { STATUS: 404 }, false, '[STATUS] (404) < 300'],
  ['[RESPONSE_TIME] < 500', { RESPONSE_TIME: 50 }, true],
  ['[RESPONSE_TIME] < 1s', { RESPONSE_TIME: 50 }, true],
  ['[RESPONSE_TIME] > 500', { RESPONSE_TIME: 750 }, true],
  ['[RESPONSE_TIME] > 1s', { RESPONSE_TIME: 2000 }, true],
  ['[RESPONSE_TIME] >= 500', { RESPONSE_TIME: 500 }, true],
  ['[RESPONSE_TIME] >= 500', { RESPONSE_TIME: 499 }, false, '[RESPONSE_TIME] (499) >= 500'],
  ['[RESPONSE_TIME] <= 500', { RESPONSE_TIME: 500 }, true],
  ['[RESPONSE_TIME] <= 500', { RESPONSE_TIME: 25 }, true],
  ['[RESPONSE_TIME] <= 500', { RESPONSE_TIME: 750 }, false, '[RESPONSE_TIME] (750) <= 500'],
  ['[BODY] == test', { BODY: 'test' }, true],
  ['[BODY] == 123', { BODY: '123' }, true],
  ['[BODY] < 124', { BODY: '123' }, true],
  ['[BODY] > 122', { BODY: '123' }, true],
  ['[BODY] > 123', { BODY: '100' }, false, '[BODY] (100) > 123'],
  ['[BODY].status == UP', { BODY: '{"status":"UP"}' }, true],
  ['[BODY].data.name == john', { BODY: '{"data": {"id": 1, "name": "john"}}' }, true],
  ['[BODY].data.name == john', { BODY: '{"data": {"id": 1}}' }, false, '[BODY].data.name (INVALID) == john'],
  ['len([BODY].data.name) == john', { BODY: '{"data": {"id": 1}}' }, false, 'len([BODY].data.name) (INVALID) == john'],
  [
    '[BODY].user.firstName != [BODY].user.lastName',
    { BODY: '{"user": {"firstName": "john", "lastName": "doe"}}' },
    true,
  ],
  [
    '[BODY].user.firstName == [BODY].user.lastName',
    { BODY: '{"user": {"firstName": "john", "lastName": "doe"}}' },
    false,
    '[BODY].user.firstName (john) == [BODY].user.lastName (doe)',
  ],
  ['[BODY][0].id == 1', { BODY: '[{"id": 1}, {"id": 2}]' }, true],
  ['[BODY].data == OK', { BODY: '{"data": null}"' }, false, '[BODY].data (INVALID) == OK'],
  ['[BODY].items[0] == OK', { BODY: '{"items": [null, null]}' }, false, '[BODY].items[0] (INVALID) == OK'],
  ['[BODY].data == OK', { BODY: 'null' }, false, '[BODY].data (INVALID) == OK'],
  [
    '[BODY][0].name == test',
    { BODY: '{"statusCode": 500, "message": "Internal Server Error"}' },
    false,
    '[BODY][0].name (INVALID) == test',
  ],
  ['[BODY].data.id == 1', { BODY: '{"data": {"id": 1}}' }, true],
  ['[BODY].data[1].id == 2', { BODY: '{"data": [{"id": 1}, {"id": 2}, {"id": 3}]}' }, true],
  ['[BODY].data.id > 0', { BODY: '{"data": {"id": 1}}' }, true],
  ['[BODY].data > 0', { BODY: '{"data": "0x1"}' }, true],
  ['[BODY].data == 1', { BODY: '{"data": "0x1"}' }, true],
  ['[BODY].data == 0x1', { BODY: '{"data": "0x1"}' }, true],
  ['[BODY].data == 2', { BODY: '{"data": "0x2"}' }, true],
  ['[BODY].data == 15', { BODY: '{"data": "0xF"}' }, true],
  ['[BODY].data == 12648243', { BODY: '{"data": "0xC0ff33"}' }, true],
  ['len([BODY].data) == 3', { BODY: '{"data": "0x1"}' }, true],
  ['[BODY].data >= 1', { BODY: '{"data": "0x01"}' }, true],
  ['len([BODY].data) == 4', { BODY: '{"data": "0x01"}' }, true],
  ['[BODY].data > 0', { BODY: '{"data": "0o1"}' }, true],
  ['[BODY].data == 2', { BODY: '{"data": "0o2"}' }, true],
  ['[BODY].data == 0o2', { BODY: '{"data": "0o2"}' }, true],
  ['[BODY].data > 0', { BODY: '{"data": "0b1"}' }, true],
  ['[BODY].data == 2', { BODY: '{"data": "0b0010"}' }, true],
  ['[BODY].data == 0b10', { BODY: '{"data": "0b0010"}' }, true],
  ['[BODY].data.id > 5', { BODY: '{"data": {"id": 1}}' }, false, '[BODY].data.id (1) > 5'],
  ['[BODY].balance > 100', { BODY: '{"balance": "123.40000000000005"}' }, true],
  ['[BODY].data.id < 5', { BODY: '{"data": {"id": 2}}' }, true],
  ['[BODY].data.id < 5', { BODY: '{"data": {"id": 10}}' }, false, '[BODY].data.id (10) < 5'],
  ['[CONNECTED] == true', { CONNECTED: true }, true],
  ['[CONNECTED] == true', { CONNECTED: false }, false, '[CONNECTED] (false) == true'],
  ['[CERTIFICATE_EXPIRATION] == 0', {}, true],
  ['[CERTIFICATE_EXPIRATION] > 2419200000', { CERTIFICATE_EXPIRATION: 60 * 24 * H }, true],
  [
    '[CERTIFICATE_EXPIRATION] > 2419200000',
    { CERTIFICATE_EXPIRATION: 14 * 24 * H },
    false,
    '[CERTIFICATE_EXPIRATION] (336h) > 2419200000',
  ],
  ['[CERTIFICATE_EXPIRATION] > 12h', { CERTIFICATE_EXPIRATION: 24 * H }, true],
  ['[CERTIFICATE_EXPIRATION] > 48h', { CERTIFICATE_EXPIRATION: 24 * H }, false, '[CERTIFICATE_EXPIRATION] (24h) > 48h'],
  ['1 == 2', {}, false, '1 == 2'],
  ['len([BODY].data.name) == 4', { BODY: '{"data": {"name": "john"}}' }, true],
  ['len([BODY]) == 3', { BODY: '[{"id": 1}, {"id": 2}, {"id": 3}]' }, true],
  ['len([BODY].data) == 3', { BODY: '{"data": [{"id": 1}, {"id": 2}, {"id": 3}]}' }, true],
  ['len([BODY].data) == 8', { BODY: '{"name": "john.doe"}' }, false, 'len([BODY].data) (INVALID) == 8'],
  ['len([BODY]) == 8', { BODY: 'john.doe' }, true],
  ['len([BODY].name) == 8', { BODY: '{"name": "john.doe"}' }, true],
  ['len([BODY].age) == 2', { BODY: '{"age":18}' }, true],
  ['len([BODY].adult) == 4', { BODY: '{"adult":true}' }, true],
  ['len([BODY][0]) == 23', { BODY: '[{"age":18,"adult":true}]' }, true],
  ['len([BODY][0].age) == 2', { BODY: '[{"age":18,"adult":true}]' }, true],
  ['len([BODY][0].adult) == 4', { BODY: '[{"age":18,"adult":true}]' }, true],
  ['len([BODY]) == 20', { BODY: '{"name": "john.doe"}' }, true],
  ['[BODY] == pat(*john*)', { BODY: '{"name": "john.doe"}' }, true],
  ['[BODY].name == pat(john*)', { BODY: '{"name": "john.doe"}' }, true],
  ['[BODY].name == pat(bob*)', { BODY: '{"name": "john.doe"}' }, false, '[BODY].name (john.doe) == pat(bob*)'],
  [
    '[BODY] == pat(*<div id="user">john.doe</div>*)',
    {
      BODY: '<!DOCTYPE html><html lang="en"><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8" /></head><body><div id="user">john.doe</div></body></html>',
    },
    true,
  ],
  [
    'pat(*<div id="user">john.doe</div>*) == [BODY]',
    { BODY: '<html><body><div id="user">jane.doe</div></body></html>' },
    false,
    'pat(*<div id="user">john.doe</div>*) == [BODY] (<html><body><div id="user">jane.doe</div></body></html>)',
  ],
  ['[BODY].data == pat(*Whatever*)', { BODY: '{"data": ["hello", "world", "Whatever"]}' }, true],
  ['[IP] == pat(10.*)', { IP: '10.0.0.0' }, true],
  ['[IP] == pat(10.*)', { IP: '255.255.255.255' }, false, '[IP] (255.255.255.255) == pat(10.*)'],
  ['[STATUS] == pat(4*)', { STATUS: 404 }, true],
  ['[STATUS] == pat(4*)', { STATUS: 200 }, false, '[STATUS] (200) == pat(4*)'],
  ['[BODY].name == any(john.doe, jane.doe)', { BODY: '{"name": "john.doe"}' }, true],
  ['[BODY].name == any(john.doe, jane.doe)', { BODY: '{"name": "jane.doe"}' }, true],
  [
    '[BODY].name == any(john.doe, jane.doe)',
    { BODY: '{"name": "bob"}' },
    false,
    '[BODY].name (bob) == any(john.doe, jane.doe)',
  ],
  ['[STATUS] == any(200, 429)', { STATUS: 200 }, true],
  ['[STATUS] == any(200, 429)', { STATUS: 429 }, true],
  ['any(200, 429) == [STATUS]', { STATUS: 429 }, true],
  ['[STATUS] == any(200, 429)', { STATUS: 404 }, false, '[STATUS] (404) == any(200, 429)'],
  ['has([BODY].errors) == false', { BODY: '{}' }, true],
  ['has([BODY].article) == true', { BODY: '{"article": {"id": 123, "tags": ["hello"]}}' }, true],
  ['has([BODY].errors) == false', { BODY: '{"errors": ["1"]}' }, false, 'has([BODY].errors) (true) == false'],
  // Gatus's wildcard cases: every element must hold; an empty or missing array fails.
  ['[BODY].items[*].state == UP', { BODY: '{"items": [{"state": "UP"}, {"state": "UP"}]}' }, true],
  [
    '[BODY].items[*].state == UP',
    { BODY: '{"items": [{"state": "UP"}, {"state": "DOWN"}]}' },
    false,
    '[BODY].items[*].state (DOWN) == UP (element 1)',
  ],
  [
    '[BODY].items[*].state == UP',
    { BODY: '{"items": []}' },
    false,
    '[BODY].items[*].state == UP (no elements matched)',
  ],
  ['[BODY][*].ok == true', { BODY: '[{"ok": true}, {"ok": true}]' }, true],
  ['len([BODY].groups[*].members) > 0', { BODY: '{"groups": [{"members": [1]}, {"members": [2, 3]}]}' }, true],
];

t.test("Gatus's condition cases", async (t) => {
  for (const [condition, context, holds, display] of GATUS_CASES) {
    const seen = judge(condition, context);
    if (holds) t.equal(seen, null, `${condition} holds`);
    else t.equal(seen, display, `${condition} fails as ${display}`);
  }
});

/** Judges a body handed over as a source with a memo: null when it holds, else what was seen; `decoded` counts text() calls. */
function judgeWithMemo(
  condition: string,
  context: ConditionContext,
  memo: BodyMemo,
  digest: string,
  decoded: { n: number },
): string | null {
  const { BODY, ...rest } = context;
  const source = { text: () => (decoded.n++, String(BODY ?? '')), digest, memo };
  const out = evaluateConditions(parseConditions([condition]), rest, source);
  return out.ok ? null : out.failures[0].seen;
}

t.test("a body's values kept for the next identical body: the same verdicts, no decoding", async (t) => {
  for (const [condition, context, holds, display] of GATUS_CASES) {
    if (!condition.includes('[BODY]')) continue;
    const memo = bodyMemo();
    const decoded = { n: 0 };
    const want = holds ? null : display;
    t.equal(judgeWithMemo(condition, context, memo, 'd1', decoded), want, `${condition}: first body`);
    t.equal(decoded.n, 1, `${condition}: the first body is decoded`);
    const again = judgeWithMemo(condition, context, memo, 'd1', decoded);
    t.equal(again, want, `${condition}: the same body again`);
    // A whole body longer than the memo holds is worked out again; none of these is.
    t.equal(decoded.n, 1, `${condition}: the same body is not decoded again`);
  }
});

t.test('the memo: a new body, other placeholders fresh, bounded', async (t) => {
  const set = parseConditions(['[BODY].status == UP', '[STATUS] == 200', '[BODY].latency < [RESPONSE_TIME]']);
  const memo = bodyMemo();
  let decoded = 0;
  const run = (body: string, digest: string, context: ConditionContext) =>
    evaluateConditions(set, context, { text: () => (decoded++, body), digest, memo });
  const up = '{"status": "UP", "latency": 100}';
  t.ok(run(up, 'up', { STATUS: 200, RESPONSE_TIME: 150 }).ok);
  t.same(
    run(up, 'up', { STATUS: 503, RESPONSE_TIME: 50 }).failures.map((f) => f.seen),
    ['[STATUS] (503) == 200', '[BODY].latency (100) < [RESPONSE_TIME] (50)'],
    '[STATUS] and [RESPONSE_TIME] are read fresh with a kept body',
  );
  t.equal(decoded, 1, 'the same bytes: decoded once');
  t.same(
    run('{"status": "DOWN", "latency": 100}', 'down', { STATUS: 200, RESPONSE_TIME: 150 }).failures.map((f) => f.seen),
    ['[BODY].status (DOWN) == UP'],
    'another digest: the new body is judged',
  );
  t.equal(decoded, 2);
  t.equal(memo.digest, 'down');
  t.same([...memo.values.keys()].sort(), [':.latency', ':.status'], 'only the values of [BODY] operands are kept');

  const whole = bodyMemo();
  const big = `ok ${'x'.repeat(MAX_BODY_MEMO)}`;
  let n = 0;
  const text = parseConditions(['[BODY] == pat(ok*)']);
  for (let i = 0; i < 3; i++)
    t.ok(evaluateConditions(text, {}, { text: () => (n++, big), digest: 'big', memo: whole }).ok);
  t.equal(n, 3, 'a value longer than the bound is not kept: the body is decoded on each check');
  t.ok(whole.size <= MAX_BODY_MEMO);

  const many = bodyMemo();
  const items = JSON.stringify({ items: Array.from({ length: 1000 }, (_, i) => ({ state: `UP-${i}` })) });
  const all = parseConditions(['[BODY].items[*].state == pat(UP-*)']);
  t.ok(evaluateConditions(all, {}, { text: () => items, digest: 'items', memo: many }).ok);
  t.ok(many.size <= MAX_BODY_MEMO, `1,000 elements keep at most ${MAX_BODY_MEMO} characters (${many.size})`);
  t.ok(many.values.size < 1000);
  t.ok(evaluateConditions(all, {}, { text: () => items, digest: 'items', memo: many }).ok, 'the rest worked out again');
});

t.test('placeholders: case, zero values, functions on plain values', async (t) => {
  t.equal(judge('[status] == 200', { STATUS: 200 }), null, 'placeholder names ignore case');
  t.equal(judge('[Body].Data == x', { BODY: '{"Data": "x"}' }), null, 'a path keeps its case');
  t.equal(judge('[BODY].data == x', { BODY: '{"Data": "x"}' }), '[BODY].data (INVALID) == x');
  t.equal(judge('[DNS_RCODE] == NOERROR', { DNS_RCODE: 'NOERROR' }), null);
  t.equal(judge('[DNS_RCODE] == NOERROR', {}), '[DNS_RCODE] () == NOERROR', 'left out: the zero value');
  t.equal(judge('[CONNECTED] == false', {}), null);
  t.equal(judge('len([IP]) == 9', { IP: '127.0.0.1' }), null);
  t.equal(judge('has([IP]) == false', {}), null);
  t.equal(judge('has([BODY]) == false', { BODY: '  \n' }), null, 'has([BODY]): a body other than blanks');
  t.equal(judge('[BODY] == ok', { BODY: ' ok\n' }), null, '[BODY] is trimmed');
  t.equal(judge('len([BODY].name) == 5', { BODY: '{"name": "müde"}' }), null, 'len counts UTF-8 bytes, as Go');
  t.equal(judge('[DOMAIN_EXPIRATION] > 720h', { DOMAIN_EXPIRATION: 800 * H }), null);
  t.equal(
    judge('[DOMAIN_EXPIRATION] > 720h', { DOMAIN_EXPIRATION: 90 * 60_000 }),
    '[DOMAIN_EXPIRATION] (1h30m) > 720h',
  );
  t.equal(
    judge('[CERTIFICATE_EXPIRATION] > 1h', { CERTIFICATE_EXPIRATION: -2 * H }),
    '[CERTIFICATE_EXPIRATION] (-2h) > 1h',
  );
  t.equal(judge('[BODY].n == 1000000', { BODY: '{"n": 1000000}' }), null, 'large integers compare as written');
  t.equal(
    judge('[BODY].obj == {"a":1,"b":2}', { BODY: '{"obj": {"b": 2, "a": 1}}' }),
    null,
    'an object reads as sorted JSON',
  );
  t.equal(
    judge('[BODY].list == [1 two true]', { BODY: '{"list": [1, "two", true]}' }),
    null,
    'an array as Go prints it',
  );
  t.equal(judge('[BODY].a.b == 1', { BODY: '{"a": "text"}' }), '[BODY].a.b (INVALID) == 1');
  t.equal(judge('[BODY].a == 1', { BODY: 'not json' }), '[BODY].a (INVALID) == 1');
});

t.test('numbers and durations', async (t) => {
  t.equal(judge('[BODY] == 010', { BODY: '8' }), null, 'a leading 0 is octal, as Go reads it');
  t.equal(judge('[BODY] == 1_000', { BODY: '1000' }), null, '_ between digits');
  t.equal(judge('[BODY] == 1.0', { BODY: '1' }), '[BODY] (1) == 1.0', '== compares integers, else text');
  t.equal(judge('[BODY] > 1.9', { BODY: '1' }), '[BODY] (1) > 1.9', 'decimals are cut to integers for < >');
  t.equal(judge('[RESPONSE_TIME] < 1m30s', { RESPONSE_TIME: 89_999 }), null);
  t.equal(judge('[RESPONSE_TIME] < 1.5s', { RESPONSE_TIME: 1500 }), '[RESPONSE_TIME] (1500) < 1.5s');
  t.equal(judge('[RESPONSE_TIME] < 250ms', { RESPONSE_TIME: 249.9 }), null, 'times are whole milliseconds');
  t.equal(judge('[BODY].age > 1h', { BODY: '{"age": "30m"}' }), '[BODY].age (30m) > 1h', 'a duration in the body');
  t.equal(judge('[BODY].n < 5', { BODY: '{"n": "five"}' }), '[BODY].n (five) < 5', 'a value that is no number fails');
  t.equal(judge('[BODY].missing < 5', { BODY: '{}' }), '[BODY].missing (INVALID) < 5', 'a missing value fails');
  t.equal(judge('[BODY].missing != 5', { BODY: '{}' }), '[BODY].missing (INVALID) != 5');
  t.equal(judge('[BODY] == 9223372036854775807', { BODY: '9223372036854775807' }), null, 'int64 exactly');
  t.equal(formatDuration(0), '0s');
  t.equal(formatDuration(59_999), '59s');
  t.equal(formatDuration(60_000), '1m');
  t.equal(formatDuration(10_000), '10s');
  t.equal(formatDuration(H + 15_000), '1h0m15s');
});

t.test('pat(): wildcards as Go filepath.Match, slashes ignored', async (t) => {
  const cases: [string, string, boolean][] = [
    ['*', 'anything/at all', true],
    ['abc', 'abc', true],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['a*c', 'a/b/c', true],
    ['*.example.com', 'www.example.com', true],
    ['*.example.com', 'example.com', false],
    ['[a-c]x', 'bx', true],
    ['[^a-c]x', 'bx', false],
    ['[^a-c]x', 'dx', true],
    ['\\*x', '*x', true],
    ['\\*x', 'ax', false],
    ['[', 'a', false],
    ['[]a]', ']', false],
    ['a*b*c', 'aXbYbZc', true],
    ['a*b*c', 'aXbYbZ', false],
    ['**', '', true],
    ['x*', '', false],
    ['ü?', 'üß', true],
    // A character outside the BMP is one character for `?` and a class, on either side.
    ['a?b', 'a\u{1F600}b', true],
    ['a??b', 'a\u{1F600}b', false],
    ['[\u{1F600}]', '\u{1F600}', true],
    ['*\u{1F600}', 'x/y\u{1F600}', true],
  ];
  for (const [p, v, m] of cases) t.equal(wildcardMatch(p, v), m, `${p} ~ ${v}`);
  const body = `{"status":"UP","data":"${'x'.repeat(10_000)}"}`;
  t.equal(wildcardMatch('*"status":"UP"*', body), true, 'a 10 KB body');
  t.equal(wildcardMatch('*"status":"DOWN"*', body), false);
  t.equal(wildcardMatch('*UP*\u{1F600}', `${body}\u{1F600}`), true, 'a 10 KB body with a character outside the BMP');
});

t.test('a result records every failure, bounded', async (t) => {
  const set: ConditionSet = parseConditions(['[STATUS] == 200', '[BODY] == pat(*ok*)', '[RESPONSE_TIME] < 300']);
  t.same([...set.uses].sort(), ['BODY', 'RESPONSE_TIME', 'STATUS']);
  const body = 'x'.repeat(10_000);
  const out: ConditionsOutcome = evaluateConditions(set, { STATUS: 503, BODY: body, RESPONSE_TIME: 120 });
  const first: ConditionFailure = out.failures[0];
  t.same(first, { index: 0, condition: '[STATUS] == 200', seen: '[STATUS] (503) == 200' });
  t.equal(out.ok, false);
  t.same(
    out.failures.map((f) => [f.index, f.condition]),
    [
      [0, '[STATUS] == 200'],
      [1, '[BODY] == pat(*ok*)'],
    ],
  );
  t.equal(out.failures[1].seen, `[BODY] (${'x'.repeat(MAX_SEEN_LENGTH)}...(truncated)) == pat(*ok*)`);
  t.ok(evaluateConditions(set, { STATUS: 200, BODY: 'all ok', RESPONSE_TIME: 10 }).ok);
  t.equal(statusCondition(204), '[STATUS] == 204');
  t.same([...parseConditions(['[DNS_RCODE] == NOERROR']).uses], ['DNS_RCODE'], 'no body named: none read');
});

function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return null;
}

t.test('invalid expressions: the message and the position of the error', async (t) => {
  const cases: [string, number, RegExp][] = [
    ['', 0, /empty/],
    ['[STATUS] ? 201', 14, /expected an operator/],
    ['[STATUS]==201', 8, /"==" needs a space/],
    ['[STATUS] = = 201', 16, /expected an operator/],
    ['[STATUS] ==', 9, /"==" needs a space/],
    ['[STATUS]', 8, /expected an operator/],
    ['[STATUS] == 200 == 201', 16, /a second "=="/],
    ['len([BODY].users == 100', 16, /missing "\)" closing len\(/],
    ['[STATUS] ==  ', 12, /expected a value/],
    ['[RESPONSE_TIME] < potato', 18, /"potato" is not a number or a duration/],
    ['[STATUS] < pat(2*)', 11, /pat\(\) compares only with == and !=/],
    ['[HEADER].Content-Type == json', 0, /unknown placeholder \[HEADER\]/],
    ['[STATUS]x == 200', 8, /unexpected "x" after \[STATUS\]/],
    ['[BODY]..a == 1', 7, /expected a key/],
    ['[BODY].a[x] == 1', 9, /array index/],
    ['[BODY].a[1 == 1', 10, /missing "\]"/],
    ['[BODY]a == 1', 6, /goes on with "\." or "\["/],
    ['len(foo) > 1', 4, /len\(\) takes a placeholder/],
    ['age([BODY].at) < 1h', 0, /age\(\) is not supported/],
    ['pat(a*) == any(a, b)', 11, /not with each other/],
    ['[STATUS] == 200', -1, /./],
  ];
  for (const [source, position, message] of cases) {
    if (position < 0) {
      t.doesNotThrow(() => parseCondition(source));
      continue;
    }
    try {
      parseCondition(source);
      t.fail(`${source} parses`);
    } catch (e) {
      t.type(e, ConditionSyntaxError, source);
      t.equal((e as ConditionSyntaxError).position, position, `${source}: position`);
      t.match((e as ConditionSyntaxError).message, message, `${source}: message`);
    }
  }
  t.match(
    errorOf(() => parseConditions(['[STATUS] == 200', '[STATUS]'])),
    { index: 1, position: 8 },
  );
  t.throws(() => parseConditions(['[BODY] == x'], { placeholders: ['DNS_RCODE'] }), {
    message: /\[BODY\] is not available/,
    position: 0,
  });
  t.throws(() => parseConditions(Array.from({ length: MAX_CONDITIONS + 1 }, () => '1 == 1')), /at most 32/);
  t.match(
    errorOf(() => parseCondition(`[BODY] == ${'x'.repeat(MAX_CONDITION_LENGTH)}`)),
    {
      position: MAX_CONDITION_LENGTH,
    },
  );
  const dnsOnly: ParseOptions = { placeholders: PLACEHOLDERS.filter((p) => p !== 'BODY') };
  t.throws(() => parseConditions(['[BODY] == x'], dnsOnly), /\[BODY\] is not available/);
  const parsed: ParsedCondition = parseCondition('[STATUS] != 500');
  t.match(parsed, {
    operator: '!=',
    left: { kind: 'placeholder', name: 'STATUS' },
    right: { kind: 'literal', text: '500' },
  });
  t.doesNotThrow(() => parseCondition('[some literal] == x'), 'a lower-case bracket is a literal, as in Gatus');
  t.doesNotThrow(() => parseCondition('raw == raw'));
  t.doesNotThrow(() => parseCondition('[STATUS] == [BODY].status'));
});
