// `dommon liveness list|add|show|update|remove|results|stats`.
import { call, qs } from '../transport.js';
import { table, type Palette } from '../output.js';
import type { NounSpec, OptSpec } from '../spec.js';
import { crud, domainId, pageOptions } from './common.js';

const fields: OptSpec[] = [
  { flags: '--timeout <s>', description: 'probe timeout in seconds (default 10)', field: 'timeout_seconds', kind: 'int' },
  { flags: '--expected-status <code>', description: 'expected HTTP status (default 200)', field: 'expected_status_code', kind: 'int' },
  { flags: '--interval <s>', description: 'seconds between probes (default 60)', field: 'interval_seconds', kind: 'int' },
  { flags: '--failure-threshold <n>', description: 'failures before a down alert (default 1)', field: 'failure_threshold', kind: 'int' },
  { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
];

const [list, ...rest] = crud({
  path: '/api/v1/liveness',
  one: 'liveness configuration',
  columns: ['id', 'endpoint_id:ENDPOINT', 'is_enabled:ENABLED', 'interval_seconds:INTERVAL', 'timeout_seconds:TIMEOUT', 'expected_status_code:EXPECT'],
  create: [{ flags: '--endpoint <id>', description: 'endpoint id', field: 'endpoint_id', required: true }, ...fields],
  update: fields,
  filters: [
    { flags: '--endpoint <id>', description: 'only this endpoint', field: 'endpoint_id' },
    { flags: '--domain <name-or-id>', description: 'only this domain', field: 'domain_id' },
    { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
  ],
  examples: {
    list: ['dommon liveness list --domain example.com'],
    add: ['dommon liveness add --endpoint <endpoint-id> --interval 30 --expected-status 204'],
    show: ['dommon liveness show <id>'],
    update: ['dommon liveness update <id> --enabled false'],
    remove: ['dommon liveness remove <id>'],
  },
});

const resultsText = (r: any, paint: Palette) =>
  `${table(r.data, ['test_timestamp:TIME', 'is_successful:OK', 'response_time_ms:MS', 'status_code:STATUS', 'error'], paint)}\n${paint.dim(`${r.pagination.total} result(s) in the last ${r.hours} h`)}`;

const statsText = (r: any, paint: Palette) =>
  [
    table(r.stats, ['date', 'total_tests:TESTS', 'successful_tests:OK', 'success_rate:RATE%', 'avg_response_time_ms:AVG_MS'], paint),
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
      options: [{ flags: '--hours <n>', description: 'how far back (default 24)', field: 'hours', kind: 'int' }, ...pageOptions],
      examples: ['dommon liveness results <id> --hours 1', 'dommon liveness results <id> --json | jq ".data[0]"'],
      action: ({ t, args, body }) => call(t, 'GET', `/api/v1/liveness/${args[0]}/results${qs(body as Record<string, number>)}`),
      text: resultsText,
    },
    {
      name: 'stats <id>',
      description: 'daily statistics and the overall status',
      options: [{ flags: '--days <n>', description: 'how many days (default 30)', field: 'days', kind: 'int' }],
      examples: ['dommon liveness stats <id> --days 7'],
      action: ({ t, args, body }) => call(t, 'GET', `/api/v1/liveness/${args[0]}/stats${qs(body as Record<string, number>)}`),
      text: statsText,
    },
  ],
};
