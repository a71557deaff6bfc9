// test/api/user-api.test.ts again, on PostgreSQL: every app the tests start gets a fresh database.
// tap-files: alone (asserts on every OpenAPI answer its process saw: other files' answers would count)
import t from 'tap';
import { PG_SKIP, pgServerUrl } from '../support/pg.js';

if (pgServerUrl()) {
  process.env.DOMMON_TEST_ENGINE = 'postgres';
  await import('../api/user-api.test.js');
} else {
  t.test('the same tests on PostgreSQL', { skip: PG_SKIP }, () => {});
}
