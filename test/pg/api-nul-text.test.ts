// test/api/nul-text.test.ts again, on PostgreSQL: every app the tests start gets a fresh database.
import t from 'tap';
import { PG_SKIP, pgServerUrl } from '../support/pg.js';

if (pgServerUrl()) {
  process.env.DOMMON_TEST_ENGINE = 'postgres';
  await import('../api/nul-text.test.js');
} else {
  t.test('the same tests on PostgreSQL', { skip: PG_SKIP }, () => {});
}
