// Typed errors thrown by services. Each carries a meaning (what went wrong, in the domain's words)
// and the contract's error code; no transport: src/api/errors.ts maps a meaning to an HTTP status
// and src/cli/output.ts to an exit code (the table is in src/domain/README.md).

/** What an error means to the caller, whatever the transport. */
export const ERROR_MEANINGS = [
  'invalid',
  'unauthorized',
  'limit_reached',
  'forbidden',
  'not_found',
  'conflict',
  'unsupported',
  'rate_limited',
  'unprocessable',
] as const;
export type ErrorMeaning = (typeof ERROR_MEANINGS)[number];

export class ServiceError extends Error {
  readonly meaning: ErrorMeaning;
  readonly code: string | undefined;
  readonly details: unknown;
  constructor(meaning: ErrorMeaning, message: string, code?: string, details?: unknown) {
    super(message);
    this.name = new.target.name;
    this.meaning = meaning;
    this.code = code;
    this.details = details;
  }
}

export class Invalid extends ServiceError {
  constructor(message: string, code = 'VALIDATION_ERROR', details?: unknown) {
    super('invalid', message, code, details);
  }
}
/** Well-formed but refused as it stands: e.g. a masked secret sent back with a changed destination. */
export class Unprocessable extends ServiceError {
  constructor(message: string, code: string) {
    super('unprocessable', message, code);
  }
}
export class Unauthorized extends ServiceError {
  constructor(message = 'Missing or invalid API token') {
    super('unauthorized', message, 'UNAUTHORIZED');
  }
}
/** A configured per-team limit (DOMMON_MAX_DOMAINS, DOMMON_MAX_ENDPOINTS) is reached. */
export class PlanLimit extends ServiceError {
  constructor(message: string, code = 'PLAN_LIMIT') {
    super('limit_reached', message, code);
  }
}
export class Forbidden extends ServiceError {
  constructor(message: string, code = 'FORBIDDEN') {
    super('forbidden', message, code);
  }
}
export class NotFound extends ServiceError {
  constructor(what: string) {
    super('not_found', `${what} not found`, 'NOT_FOUND');
  }
}
/** A quota of the team's (not the request rate limit) is used up; `retryAfter` seconds until it frees. */
export class QuotaExceeded extends ServiceError {
  readonly retryAfter: number;
  constructor(message: string, retryAfter: number, code = 'QUOTA_EXCEEDED') {
    super('rate_limited', message, code, { retry_after: retryAfter });
    this.retryAfter = retryAfter;
  }
}
export class Conflict extends ServiceError {
  constructor(message: string, code: string) {
    super('conflict', message, code);
  }
}
/**
 * A write would duplicate a unique key (a name, a slug, a second configuration of one thing). The
 * store throws it on either engine in place of the engine's own error (SQLite's
 * SQLITE_CONSTRAINT_UNIQUE, PostgreSQL's 23505), so services catch it without knowing the engine and
 * rethrow it with their own words and code; one that reaches the caller as is answers 409.
 */
export class Duplicate extends Conflict {
  /** The table whose unique key the write hit (for logs and tests; never in an answer). */
  readonly table: string | undefined;
  constructor(table?: string) {
    super('a record with the same key already exists', 'ALREADY_EXISTS');
    this.table = table;
  }
}
