// `dommon maintenance list|add|show|update|remove`: maintenance windows (docs/maintenance-windows.md).
import type { NounSpec, OptSpec } from '../spec.js';
import { crud } from './common.js';

const fields: OptSpec[] = [
  {
    flags: '--starts-at <time>',
    description: 'one-off: start (ISO date-time); recurring: no occurrence before it',
    field: 'starts_at',
  },
  {
    flags: '--ends-at <time>',
    description: 'one-off: end (ISO date-time); recurring: no occurrence from then on',
    field: 'ends_at',
  },
  { flags: '--cron <expr>', description: 'recurring: cron expression, read in --timezone', field: 'cron' },
  {
    flags: '--duration <minutes>',
    description: 'recurring: minutes each occurrence lasts',
    field: 'duration_minutes',
    kind: 'int',
  },
  { flags: '--timezone <zone>', description: 'IANA time zone of --cron (default UTC)', field: 'timezone' },
  {
    flags: '--endpoints <ids>',
    description: 'comma list of endpoint ids covered',
    field: 'endpoint_ids',
    kind: 'list',
  },
  {
    flags: '--domains <ids>',
    description: 'comma list of domain ids whose endpoints are covered',
    field: 'domain_ids',
    kind: 'list',
  },
  {
    flags: '--portfolios <ids>',
    description: "comma list of portfolio ids whose domains' endpoints are covered",
    field: 'portfolio_ids',
    kind: 'list',
  },
  {
    flags: '--enabled <bool>',
    description: 'whether the window is in force (default true)',
    field: 'is_enabled',
    kind: 'bool',
  },
];

export const maintenanceNoun: NounSpec = {
  name: 'maintenance',
  description: 'maintenance windows: checks go on, alerts wait',
  commands: crud({
    path: '/api/v1/maintenance-windows',
    one: 'maintenance window',
    columns: ['id', 'name', 'active', 'cron', 'timezone', 'starts_at', 'ends_at'],
    addArg: { name: 'name', field: 'name' },
    create: fields,
    update: [{ flags: '--name <name>', description: 'new name', field: 'name' }, ...fields],
    filters: [],
    examples: {
      list: ['dommon maintenance list'],
      add: [
        'dommon maintenance add "db upgrade" --starts-at 2026-12-01T22:00:00Z --ends-at 2026-12-01T23:30:00Z --endpoints <id>',
        'dommon maintenance add nightly --cron "0 3 * * *" --duration 30 --timezone Europe/Berlin --domains <id>',
      ],
      show: ['dommon maintenance show <id>'],
      update: ['dommon maintenance update <id> --enabled false'],
      remove: ['dommon maintenance remove <id>'],
    },
  }),
};
