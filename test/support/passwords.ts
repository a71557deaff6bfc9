// Password hashing in the tests: scrypt at cost 12 (N = 2^12, a few milliseconds) instead of the
// product's default 17 (N = 2^17, ~0.3 s of a core, seconds on a busy machine). What a test proves of
// passwords (stored as a hash, checked, refused, rehashed, sessions ended) does not depend on the cost;
// the equal-time sign-in test (test/web/accounts.test.ts) sets the real cost itself. startApp() and
// every `dommon` process test/support/cli.ts starts take TEST_PASSWORD_ENV; a test that writes a hash
// straight into the store makes it with testHash().
import { createPasswords } from '../../src/services/passwords.js';

export const TEST_PASSWORD_COST = 12;

/** DOMMON_PASSWORD_COST for the apps and commands the tests start (a test's own env wins over it). */
export const TEST_PASSWORD_ENV: Readonly<Record<string, string>> = Object.freeze({
  DOMMON_PASSWORD_COST: String(TEST_PASSWORD_COST),
});

const passwords = createPasswords(TEST_PASSWORD_COST);

/** A stored hash of `password` at the tests' cost, as the app would make it under TEST_PASSWORD_ENV. */
export const testHash = (password: string): Promise<string> => passwords.hash(password);
