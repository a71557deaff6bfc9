// Typed errors thrown by services; src/api/middleware/errors.ts maps them to HTTP in one place.
export class ServiceError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly details: unknown;
  constructor(status: number, message: string, code?: string, details?: unknown) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export class Invalid extends ServiceError {
  constructor(message: string, code = 'VALIDATION_ERROR', details?: unknown) {
    super(400, message, code, details);
  }
}
export class Unauthorized extends ServiceError {
  constructor(message = 'Missing or invalid API token') {
    super(401, message, 'UNAUTHORIZED');
  }
}
export class PlanLimit extends ServiceError {
  constructor(message: string, code = 'PLAN_LIMIT') {
    super(402, message, code);
  }
}
export class Forbidden extends ServiceError {
  constructor(message: string, code = 'FORBIDDEN') {
    super(403, message, code);
  }
}
export class NotFound extends ServiceError {
  constructor(what: string) {
    super(404, `${what} not found`, 'NOT_FOUND');
  }
}
/** 429 with Retry-After: a quota of the team's (not the request rate limit) is used up. */
export class QuotaExceeded extends ServiceError {
  readonly retryAfter: number;
  constructor(message: string, retryAfter: number, code = 'QUOTA_EXCEEDED') {
    super(429, message, code, { retry_after: retryAfter });
    this.retryAfter = retryAfter;
  }
}
export class Conflict extends ServiceError {
  constructor(message: string, code: string) {
    super(409, message, code);
  }
}
