// Where a service error's meaning (src/domain/errors.ts) becomes HTTP: its status, and the body the
// error middleware answers with (spec: error, code, timestamp, path; any details beside them).
import type { ErrorMeaning, ServiceError } from '../domain/errors.js';

/** The HTTP status of each meaning; src/domain/README.md has the same table. */
export const HTTP_STATUS: Readonly<Record<ErrorMeaning, number>> = {
  invalid: 400,
  unauthorized: 401,
  limit_reached: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unsupported: 415,
  rate_limited: 429,
  unprocessable: 422,
};

function httpStatus(err: ServiceError): number {
  return HTTP_STATUS[err.meaning];
}

/** Status, message, code and the extra body fields (details) of a service error. */
export function httpError(err: ServiceError): {
  status: number;
  message: string;
  code: string | undefined;
  extra: Record<string, unknown>;
} {
  const extra = err.details && typeof err.details === 'object' ? (err.details as Record<string, unknown>) : {};
  return { status: httpStatus(err), message: err.message, code: err.code, extra };
}
