// The one place where errors become HTTP: typed service errors (by ../errors.ts), body-parser and router errors
// map to the spec's error body; anything else is logged and answered 500 without internals.
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { QuotaExceeded, ServiceError } from '../../domain/errors.js';
import { httpError } from '../errors.js';
import type { Clock } from '../../domain/clock.js';

interface ErrorBody {
  error: string;
  code?: string;
  timestamp: string;
  path: string;
}

const HTTP_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
};

function errorBody(status: number, message: string, path: string, clock: Clock, code?: string): ErrorBody {
  return {
    error: message,
    code: code ?? HTTP_CODES[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : undefined),
    timestamp: clock.now().toISOString(),
    path,
  };
}

/**
 * The database server cannot be reached (PostgreSQL restarting, its network gone): a connection
 * error of node-postgres or a server shutting down (SQLSTATE class 08, 57P01-57P03). The request is
 * answered 503, as /health is, and succeeds again once the pool reconnects by itself.
 */
function databaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  if (/^08/.test(code) || ['57P01', '57P02', '57P03'].includes(code)) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

export function errorMiddleware(log: Logger, clock: Clock): Koa.Middleware {
  let unavailableSince = 0;
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = errorBody(404, `no route for ${ctx.method} ${ctx.path}`, ctx.path, clock, 'ROUTE_NOT_FOUND');
      }
    } catch (err) {
      const e = err as {
        status?: number;
        statusCode?: number;
        expose?: boolean;
        message?: string;
        type?: string;
        headers?: Record<string, string>;
      };
      let status: number;
      let message: string;
      let code: string | undefined;
      let extra: Record<string, unknown> = {};
      if (err instanceof ServiceError) {
        ({ status, message, code, extra } = httpError(err));
        if (err instanceof QuotaExceeded) ctx.set('Retry-After', String(err.retryAfter));
      } else if (e?.type === 'entity.too.large' || e?.status === 413) {
        status = 413;
        message = 'request body is larger than 1 MB';
      } else if (e?.type === 'entity.parse.failed' || (e?.status === 400 && err instanceof SyntaxError)) {
        status = 400;
        message = 'request body is not valid JSON';
        code = 'INVALID_JSON';
      } else if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
        status = e.status;
        message = e.expose ? (e.message ?? 'bad request') : 'bad request';
        if (e.headers) ctx.set(e.headers);
      } else if (databaseUnavailable(err)) {
        status = 503;
        message = 'the database is not reachable; try again shortly';
        code = 'DATABASE_UNAVAILABLE';
        ctx.set('Retry-After', '5');
        // Said once an outage (per minute at most), not once a request.
        if (Date.now() - unavailableSince > 60_000) {
          unavailableSince = Date.now();
          log.warn(
            { err: { message: (err as Error).message } },
            'database unavailable: answering 503 until it is back',
          );
        }
      } else {
        status = 500;
        message = 'internal server error';
        // Only name, message and stack: an error object may carry the request body.
        const { name, message: msg, stack } = (err ?? {}) as Error;
        log.error({ err: { name, message: msg, stack }, method: ctx.method, path: ctx.path }, 'unhandled error');
      }
      ctx.status = status;
      ctx.body = { ...extra, ...errorBody(status, message, ctx.path, clock, code) };
    }
  };
}

/**
 * The http server's 'clientError' listener: a request Node's parser refuses before koa sees it (a head
 * over 16 KB, broken framing, a header timeout) is answered with the same error body instead of
 * Node's bare status line. The path is read from the request line when there is one.
 */
export function clientErrorHandler(
  clock: Clock,
): (err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => void {
  return (err, socket) => {
    const started = (socket as { _httpMessage?: unknown })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const status =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : err.code === 'HPE_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : 400;
    const target =
      /^[A-Z]+ (\/[^ ?#\r\n]{0,2000})/.exec(err.rawPacket?.subarray(0, 2100).toString('latin1') ?? '')?.[1] ?? '/';
    const message =
      status === 431
        ? 'request headers are larger than 16 KB'
        : status === 408
          ? 'request headers took too long'
          : 'malformed HTTP request';
    const body = JSON.stringify(errorBody(status, message, target, clock));
    const reason =
      status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
