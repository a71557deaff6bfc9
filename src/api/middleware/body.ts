// Reads every request body as JSON, with the input limits of docs/input-limits.md: 1 MB (after
// decompression), Content-Encoding gzip / deflate / br / identity only (415 for any other), a broken
// compressed body is a 400, and JSON nested deeper than MAX_JSON_DEPTH is a 400. When the body is
// refused before it was read to its end, the rest is read and dropped (up to DRAIN_LIMIT bytes or
// DRAIN_MS) before the answer, so that a client still writing reads it instead of a reset connection (EPIPE).
import type Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { ServiceError } from '../../domain/errors.js';
import { checkJsonBody } from '../json-limits.js';

/** Request body limit, after decompression. */
const BODY_LIMIT = '1mb';
/**
 * The routes that take a whole file and their limit: a configuration file of tens of thousands of
 * endpoints is several MB (docs/configuration-file.md, bench/config.ts).
 */
const LARGE_BODIES: Record<string, string> = { 'POST /api/v1/config/apply': '32mb' };
/** Content-Encoding values a body may carry (case-insensitive); an absent header means identity. */
const CONTENT_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'] as const;
/** A refused body is read and dropped up to this many bytes, for at most DRAIN_MS; past either the connection is closed. */
const DRAIN_LIMIT = 16 * 1024 * 1024;
const DRAIN_MS = 10_000;

class UnsupportedEncoding extends ServiceError {
  constructor(encoding: string) {
    super(
      'unsupported',
      `Content-Encoding "${encoding.slice(0, 40)}" is not supported (use ${CONTENT_ENCODINGS.join(', ')})`,
      'UNSUPPORTED_CONTENT_ENCODING',
    );
  }
}

class BadEncoding extends ServiceError {
  constructor(encoding: string) {
    super('invalid', `request body is not valid ${encoding} data`, 'INVALID_CONTENT_ENCODING');
  }
}

/**
 * Reads and drops what is left of a request body. Resolves true once the body has ended, false when
 * DRAIN_LIMIT bytes or DRAIN_MS passed first (the caller then closes the connection with its answer).
 */
function drain(req: Koa.Request['req']): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  if (req.destroyed) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', onEnd);
      req.off('close', onClose);
      if (!ended) req.pause();
      resolve(ended);
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const timer = setTimeout(() => finish(false), DRAIN_MS);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.unpipe();
    req.on('data', count);
    req.resume();
  });
}

export function bodyMiddleware(): Koa.Middleware {
  const parser = (jsonLimit: string) =>
    bodyParser({
      enableTypes: ['json'],
      jsonLimit,
      // Any body is read as JSON whatever its Content-Type (curl -d sends form encoding).
      detectJSON: () => true,
      parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'],
    });
  const normal = parser(BODY_LIMIT);
  const large = new Map(Object.entries(LARGE_BODIES).map(([route, limit]) => [route, parser(limit)]));
  return async (ctx, next) => {
    const parse = large.get(`${ctx.method} ${ctx.path}`) ?? normal;
    // Without a body (no Content-Length or 0, no Transfer-Encoding) there is nothing to decode.
    const { 'content-length': length, 'transfer-encoding': chunked } = ctx.req.headers;
    const hasBody = chunked !== undefined || (length !== undefined && length !== '0');
    if (!hasBody) delete ctx.req.headers['content-encoding'];
    const header = hasBody ? ctx.get('content-encoding').trim().toLowerCase() : '';
    let parsed = false;
    try {
      if (header && !(CONTENT_ENCODINGS as readonly string[]).includes(header)) throw new UnsupportedEncoding(header);
      // The body parser (inflation) matches the header's value exactly: give it the lower-case one.
      if (header) ctx.req.headers['content-encoding'] = header;
      await parse(ctx, async () => {
        parsed = true;
        checkJsonBody(ctx.request.body);
        await next();
      });
    } catch (err) {
      if (parsed) throw err;
      // Refused before the body was read to its end: answer once the client has finished writing,
      // or it may see a reset connection (EPIPE) instead of the answer.
      if (!(await drain(ctx.req))) ctx.set('Connection', 'close');
      const e = err as { status?: number; code?: unknown };
      if (err instanceof ServiceError || typeof e?.status === 'number') throw err;
      // No status: the decompressor failed (zlib "incorrect header check", brotli format errors).
      if (header && header !== 'identity') throw new BadEncoding(header);
      throw err;
    }
  };
}
