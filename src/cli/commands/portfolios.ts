// `dommon portfolios list|add|show|update|remove`.
import type { NounSpec } from '../spec.js';
import { crud } from './common.js';

export const portfoliosNoun: NounSpec = {
  name: 'portfolios',
  description: 'groups of domains',
  commands: crud({
    path: '/api/v1/portfolios',
    one: 'portfolio',
    columns: ['id', 'name', 'domain_count:DOMAINS', 'description'],
    addArg: { name: 'name', field: 'name' },
    create: [{ flags: '--description <text>', description: 'description', field: 'description' }],
    update: [
      { flags: '--name <name>', description: 'new name', field: 'name' },
      { flags: '--description <text>', description: 'description', field: 'description' },
    ],
    filters: [{ flags: '--name <text>', description: 'partial match on the name', field: 'name' }],
    examples: {
      list: ['dommon portfolios list'],
      add: ['dommon portfolios add clients --description "customer domains"'],
      show: ['dommon portfolios show <id>'],
      update: ['dommon portfolios update <id> --name customers'],
      remove: ['dommon portfolios remove <id>    # exit 4 while domains are assigned'],
    },
  }),
};
