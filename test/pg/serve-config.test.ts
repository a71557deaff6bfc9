// test/cli/serve-config.test.ts again, on PostgreSQL.
import t from 'tap';
import { PG_SKIP, pgServerUrl } from '../support/pg.js';

if (pgServerUrl()) {
  process.env.DOMMON_TEST_ENGINE = 'postgres';
  await import('../cli/serve-config.test.js');
} else {
  t.test('the same tests on PostgreSQL', { skip: PG_SKIP }, () => {});
}
