// The Public API served in-process for the command line on the local database: the same route
// modules, validation and error mapping as the daemon's koa app, without koa, its body parser or an
// HTTP message. A command is one request in a short-lived process, so what it loads is what it pays
// on every call (docs/benchmarks.md, "The command line"). Each request meets what the daemon's stack
// would do for a JSON body: the body limits of docs/input-limits.md, the route table matched in order
// (@koa/router's rules: path-to-regexp, case-insensitive, an optional trailing slash), koa's status
// defaults (200 once a body is set, 404 while none is), and the error middleware's answers. The web
// dashboard, /docs, the OpenAPI and configuration-file schemas, /metrics, /health and the ping URLs
// are not served: they are for browsers, editors, scrapers and jobs, never for a command. A route
// module added to api/server.ts for the Public API is added here too (test/api/local.test.ts fails
// on any route of the daemon's API a command would find missing).
import { randomUUID } from 'node:crypto';
import querystring from 'node:querystring';
import type Koa from 'koa';
import compose from 'koa-compose';
import { match, type MatchFunction } from 'path-to-regexp';
import type { Principal } from '../domain/types.js';
import type { ApiDeps, ApiRouter, ApiState } from './context.js';
import { BODY_LIMIT_BYTES, checkJsonBody } from './json-limits.js';
import { errorMiddleware } from './middleware/errors.js';
import { resourceRoutes } from './routes/index.js';

type Middleware = Koa.Middleware<ApiState>;

interface Route {
  method: string;
  match: MatchFunction<Partial<Record<string, string>>>;
  handlers: Middleware[];
}

/** A path parameter as @koa/router decodes it: a malformed escape is left as it is. */
function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The route table the route modules register on (the methods they use of @koa/router's). */
function routeTable(): { router: ApiRouter; routes: Route[] } {
  const routes: Route[] = [];
  const add =
    (method: string) =>
    (path: string, ...handlers: Middleware[]) => {
      routes.push({ method, match: match(path, { decode, sensitive: false, trailing: true, end: true }), handlers });
      return router;
    };
  const router = {
    get: add('GET'),
    post: add('POST'),
    put: add('PUT'),
    patch: add('PATCH'),
    delete: add('DELETE'),
  } as unknown as ApiRouter;
  return { router, routes };
}

/** What one request is answered: the status and the JSON body as a client parses it (undefined: none). */
interface LocalAnswer {
  status: number;
  body: unknown;
}

/** The subset of koa's context the route modules and their middleware read and write. */
class LocalContext {
  readonly request: { body: unknown };
  readonly state: ApiState;
  readonly headers = new Map<string, string>();
  params: Record<string, string> = {};
  private statusSet = false;
  private statusCode = 404;
  private value: unknown = undefined;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly querystring: string,
    body: unknown,
    principal: Principal,
  ) {
    this.request = { body };
    this.state = { principal };
  }

  // The in-process door answers as the daemon does to a client that sent `Host: localhost` over HTTP
  // (a push endpoint's ping URL is built from them).
  readonly protocol = 'http';
  readonly host = 'localhost';
  /** No socket, so no peer address (koa's ctx.ip is '' then). */
  readonly ip = '';

  private parsedQuery?: querystring.ParsedUrlQuery;

  /** As koa's: node:querystring's parse (a repeated name is an array). */
  get query(): querystring.ParsedUrlQuery {
    return (this.parsedQuery ??= querystring.parse(this.querystring));
  }

  get status(): number {
    return this.statusCode;
  }

  set status(code: number) {
    this.statusSet = true;
    this.statusCode = code;
  }

  get body(): unknown {
    return this.value;
  }

  /** As koa: a body sets 200 unless a status was set; null is 204. */
  set body(v: unknown) {
    this.value = v;
    if (!this.statusSet) this.statusCode = v === null ? 204 : 200;
  }

  set type(_v: string) {
    // The answer is read as JSON whatever its type.
  }

  set(field: string | Record<string, string>, value?: string): void {
    if (typeof field === 'string') this.headers.set(field.toLowerCase(), String(value));
    else for (const [k, v] of Object.entries(field)) this.headers.set(k.toLowerCase(), v);
  }

  get(field: string): string {
    return field.toLowerCase() === 'host' ? this.host : '';
  }

  /** The body as a client reads it off the wire: koa's JSON, a cached answer's bytes, or nothing. */
  answer(): LocalAnswer {
    const v = this.value;
    if (v === undefined || v === null || this.statusCode === 204) return { status: this.statusCode, body: undefined };
    const text = Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : JSON.stringify(v);
    return { status: this.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined };
  }
}

/** A body over the 1 MB limit, as the body parser reports it (the error middleware answers 413). */
const tooLarge = () => Object.assign(new Error('request entity too large'), { status: 413, type: 'entity.too.large' });

/** A known path asked with another method, as @koa/router's allowedMethods throws it. */
const methodNotAllowed = (allowed: string[]) =>
  Object.assign(new Error('Method Not Allowed'), {
    status: 405,
    expose: true,
    headers: { Allow: [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ') },
  });

/**
 * The Public API for one caller (the local CLI acts as the first user of its team): `request` answers
 * one request as the daemon's API would answer it over HTTP.
 */
export function createLocalApi(
  deps: ApiDeps,
  principal: Principal,
): { request(method: string, url: string, body?: unknown): Promise<LocalAnswer> } {
  const { router, routes } = routeTable();
  const fixed: Middleware[] = [];
  resourceRoutes(router, deps, fixed);
  const errors = errorMiddleware(deps.log, deps.clock) as Middleware;

  return {
    async request(method, url, body) {
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const verb = method.toUpperCase();
      // What the body parser hands the routes: the JSON as sent ({} without a body), within the limits.
      const text = body === undefined ? '' : JSON.stringify(body);
      const ctx = new LocalContext(verb, path, q < 0 ? '' : url.slice(q + 1), {}, principal);
      const parse: Middleware = async (_ctx, next) => {
        if (Buffer.byteLength(text) > BODY_LIMIT_BYTES) throw tooLarge();
        ctx.request.body = text ? (JSON.parse(text) as unknown) : {};
        checkJsonBody(ctx.request.body);
        await next();
      };
      const route: Middleware = async (_ctx, next) => {
        const allowed = new Set<string>();
        for (const r of routes) {
          const m = r.match(path);
          if (!m) continue;
          if (r.method !== verb && !(r.method === 'GET' && verb === 'HEAD')) {
            allowed.add(r.method);
            continue;
          }
          ctx.params = m.params as Record<string, string>;
          await compose(r.handlers)(ctx as unknown as Koa.ParameterizedContext<ApiState>, next);
          return;
        }
        // The path is served for other methods: 405, as the router's allowedMethods({ throw: true }).
        if (allowed.size) throw methodNotAllowed([...allowed]);
        await next();
      };
      // The command's changes are the local user's, made at the server's shell (the audit trail).
      await deps.services.audit.run(
        {
          user_id: principal.user_id,
          user_email: principal.user_email,
          via: 'cli-local',
          via_id: null,
          via_name: null,
          request_id: randomUUID(),
        },
        async () => {
          await compose([errors, parse, route])(
            ctx as unknown as Koa.ParameterizedContext<ApiState>,
            async () => undefined,
          );
        },
      );
      return ctx.answer();
    },
  };
}
