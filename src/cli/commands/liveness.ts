// `dommon liveness list|add|show|update|remove|results|stats|import`.
import { call, qs } from '../transport.js';
import { table, UsageError, type Palette } from '../output.js';
import type { NounSpec, OptSpec } from '../spec.js';
import { crud, domainId, pageOptions, type ListBody } from './common.js';
import { csvRows, importCommand, type ImportItem } from './import.js';
import { HTTP_METHODS } from '../../domain/types.js';
import { echoSummary, type IcmpStats } from '../../domain/liveness.js';

const fields: OptSpec[] = [
  {
    flags: '--timeout <s>',
    description: 'probe timeout in seconds (default 10)',
    field: 'timeout_seconds',
    kind: 'int',
  },
  {
    flags: '--expected-status <code>',
    description: 'expected HTTP status (default 200)',
    field: 'expected_status_code',
    kind: 'int',
  },
  {
    flags: '--interval <s>',
    description: 'seconds between probes (default 60)',
    field: 'interval_seconds',
    kind: 'int',
  },
  {
    flags: '--failure-threshold <n>',
    description: 'failures before a down alert (default 1)',
    field: 'failure_threshold',
    kind: 'int',
  },
  {
    flags: '--regions <list>',
    description: 'check from each of these regions (comma-separated node regions; "" for any one node)',
    field: 'regions',
    kind: 'list',
  },
  {
    flags: '--confirm-from <n>',
    description: 'down only when this many of the regions agree (default 1)',
    field: 'confirm_from',
    kind: 'int',
  },
  { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
  {
    flags: '--method <method>',
    description: 'HTTP method of the check (http and https endpoints; default GET)',
    field: 'method',
    choices: HTTP_METHODS,
  },
  {
    flags: '--headers <json>',
    description: 'request headers as a JSON object, e.g. \'{"Accept":"application/json"}\' ({} for none)',
    field: 'headers',
    kind: 'json',
  },
  { flags: '--body <text>', description: 'request body (set Content-Type with --headers)', field: 'body' },
  {
    flags: '--follow-redirects <bool>',
    description: 'follow 3xx answers, each hop checked against the outbound policy (default false)',
    field: 'follow_redirects',
    kind: 'bool',
  },
  {
    flags: '--conditions <json>',
    description:
      'Gatus-style conditions that must all hold, as a JSON array, e.g. \'["[STATUS] == 200","[BODY].status == UP"]\' ([] for none: the status alone)',
    field: 'conditions',
    kind: 'json',
  },
  {
    flags: '--auth <json>',
    description:
      'credentials as JSON: {"type":"basic","username":"u","password":"p"} or {"type":"bearer","token":"t"} (sealed, never shown; null removes them)',
    field: 'auth',
    kind: 'json',
  },
];

const [list, ...rest] = crud({
  path: '/api/v1/liveness',
  one: 'liveness configuration',
  columns: [
    'id',
    'endpoint_id:ENDPOINT',
    'is_enabled:ENABLED',
    'interval_seconds:INTERVAL',
    'timeout_seconds:TIMEOUT',
    'expected_status_code:EXPECT',
  ],
  create: [{ flags: '--endpoint <id>', description: 'endpoint id', field: 'endpoint_id', required: true }, ...fields],
  update: fields,
  filters: [
    { flags: '--endpoint <id>', description: 'only this endpoint', field: 'endpoint_id' },
    { flags: '--domain <name-or-id>', description: 'only this domain', field: 'domain_id' },
    { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
  ],
  examples: {
    list: ['dommon liveness list --domain example.com'],
    add: [
      'dommon liveness add --endpoint <endpoint-id> --interval 30 --expected-status 204',
      `dommon liveness add --endpoint <endpoint-id> --conditions '["[STATUS] == 200", "[BODY].status == UP"]'`,
    ],
    show: ['dommon liveness show <id>'],
    update: [
      'dommon liveness update <id> --enabled false',
      `dommon liveness update <id> --method POST --headers '{"Content-Type":"application/json"}' --body '{}'`,
      `dommon liveness update <id> --auth "{\\"type\\":\\"bearer\\",\\"token\\":\\"$API_TOKEN\\"}"`,
    ],
    remove: ['dommon liveness remove <id>'],
  },
});

/** The columns of an import file: the liveness create fields, and how a CSV cell becomes a JSON value. */
const IMPORT_COLUMNS: Record<string, 'string' | 'int' | 'bool'> = {
  endpoint_id: 'string',
  interval_seconds: 'int',
  timeout_seconds: 'int',
  expected_status_code: 'int',
  failure_threshold: 'int',
  is_enabled: 'bool',
};
const BOOLS: Record<string, boolean> = {
  true: true,
  yes: true,
  1: true,
  on: true,
  false: false,
  no: false,
  0: false,
  off: false,
};

/** A CSV cell as the API's type; a cell that is not one is sent as it is, and the API refuses that item alone. */
function cellValue(kind: 'string' | 'int' | 'bool', v: string): unknown {
  if (kind === 'int' && /^-?\d+$/.test(v)) return Number(v);
  if (kind === 'bool' && v.toLowerCase() in BOOLS) return BOOLS[v.toLowerCase()];
  return v;
}

const item = (line: number, body: Record<string, unknown>): ImportItem => ({
  line,
  name: typeof body.endpoint_id === 'string' ? body.endpoint_id : '',
  body,
});

/** JSON (an array of liveness create bodies, or `{ "liveness": [...] }`, as the bulk route takes) or CSV with a header row of IMPORT_COLUMNS. */
export function parseLivenessImport(text: string): ImportItem[] {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('[') || start.startsWith('{')) {
    let doc: unknown;
    try {
      doc = JSON.parse(start);
    } catch (err) {
      throw new UsageError(`not valid JSON: ${(err as Error).message}`);
    }
    const list = Array.isArray(doc) ? doc : (doc as { liveness?: unknown }).liveness;
    if (!Array.isArray(list))
      throw new UsageError('JSON must be an array of liveness configurations or { "liveness": [...] }');
    return list.map((x, i) => {
      if (!x || typeof x !== 'object' || Array.isArray(x)) throw new UsageError(`item ${i + 1}: must be an object`);
      return item(i + 1, x as Record<string, unknown>);
    });
  }
  const [head, ...rows] = csvRows(text);
  if (!head) throw new UsageError('empty file: expected a CSV header row (endpoint_id, ...) or JSON');
  const columns = head.cols.map((c) => c.toLowerCase());
  const unknown = columns.find((c) => !(c in IMPORT_COLUMNS));
  if (unknown !== undefined)
    throw new UsageError(
      `line ${head.line}: unknown column "${unknown}" (columns: ${Object.keys(IMPORT_COLUMNS).join(', ')})`,
    );
  if (!columns.includes('endpoint_id'))
    throw new UsageError(`line ${head.line}: the header row needs an endpoint_id column`);
  return rows.map(({ line, cols }) => {
    if (cols.length > columns.length)
      throw new UsageError(`line ${line}: ${cols.length} fields, the header has ${columns.length}`);
    const body: Record<string, unknown> = {};
    cols.forEach((v, j) => v !== '' && (body[columns[j]!] = cellValue(IMPORT_COLUMNS[columns[j]!]!, v)));
    return item(line, body);
  });
}

/** The results as a table; those of an icmp endpoint with their echo counts, loss and round trips in a column of their own. */
function resultsText(r: ListBody & { pagination: { total: number }; hours: number }, paint: Palette): string {
  const rows = r.data.map((x) => {
    const icmp = (x as { icmp?: IcmpStats }).icmp;
    return icmp ? { ...x, echo: echoSummary(icmp) } : x;
  });
  const echo = rows.some((x) => 'echo' in x) ? ['echo:ECHO'] : [];
  const columns = [
    'test_timestamp:TIME',
    'is_successful:OK',
    'response_time_ms:MS',
    'status_code:STATUS',
    ...echo,
    'error',
  ];
  return `${table(rows, columns, paint)}\n${paint.dim(`${r.pagination.total} result(s) in the last ${r.hours} h`)}`;
}

interface LivenessStats {
  stats: Record<string, unknown>[];
  days: number;
  total_tests: number;
  success_rate: number;
  avg_response_time_ms: number | null;
  status: string;
  consecutive_failures: number;
}

const statsText = (r: LivenessStats, paint: Palette) =>
  [
    table(
      r.stats,
      ['date', 'total_tests:TESTS', 'successful_tests:OK', 'success_rate:RATE%', 'avg_response_time_ms:AVG_MS'],
      paint,
    ),
    `${r.days} day(s): ${r.total_tests} tests, ${r.success_rate}% ok, avg ${r.avg_response_time_ms} ms, status ${paint.status(String(r.status))}, ${r.consecutive_failures} consecutive failure(s)`,
  ].join('\n');

export const livenessNoun: NounSpec = {
  name: 'liveness',
  description: 'uptime probe configurations, their results and daily statistics',
  commands: [
    {
      ...list!,
      async action(io) {
        if (typeof io.body.domain_id === 'string') io.body.domain_id = await domainId(io.t, io.body.domain_id);
        return list!.action(io);
      },
    },
    ...rest,
    {
      name: 'results <id>',
      description: 'recent probe results, newest first',
      options: [
        { flags: '--hours <n>', description: 'how far back (default 24)', field: 'hours', kind: 'int' },
        ...pageOptions,
      ],
      examples: ['dommon liveness results <id> --hours 1', 'dommon liveness results <id> --json | jq ".data[0]"'],
      action: ({ t, args, body }) =>
        call(t, 'GET', `/api/v1/liveness/${args[0]}/results${qs(body as Record<string, number>)}`),
      text: resultsText,
    },
    {
      name: 'stats <id>',
      description: 'daily statistics and the overall status',
      options: [{ flags: '--days <n>', description: 'how many days (default 30)', field: 'days', kind: 'int' }],
      examples: ['dommon liveness stats <id> --days 7'],
      action: ({ t, args, body }) =>
        call(t, 'GET', `/api/v1/liveness/${args[0]}/stats${qs(body as Record<string, number>)}`),
      text: statsText,
    },
    importCommand({
      description:
        'configure liveness for many endpoints from a file: CSV with a header row of endpoint_id, interval_seconds, timeout_seconds, expected_status_code, failure_threshold, is_enabled, or JSON (an array, or { "liveness": [...] }); - reads stdin; endpoints already configured are skipped; exit 1 if any failed',
      options: fields.map((o) => ({ ...o, description: `${o.description}, for rows that leave it out` })),
      examples: [
        'dommon liveness import probes.csv',
        'dommon liveness import probes.json --interval 30 --json',
        'dommon endpoints list --limit 100 --json | jq "[.data[] | {endpoint_id: .id}]" | dommon liveness import -',
      ],
      parse: parseLivenessImport,
      bulk: {
        path: '/api/v1/liveness/bulk',
        field: 'liveness',
        label: 'endpoint_id',
        skippedKey: 'skipped_endpoints',
        exists: { code: 'LIVENESS_EXISTS', reason: 'already configured' },
      },
    }),
  ],
};
