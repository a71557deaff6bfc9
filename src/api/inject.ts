// One request served in-process by a Node request handler (koa's callback): how the command line
// speaks the API on the local database, with no socket to listen on and no HTTP client. The request
// is an IncomingMessage fed from memory; the response a ServerResponse on a socket that discards the
// wire bytes, whose body is collected as the handler writes it.
import http from 'node:http';
import type net from 'node:net';
import { Duplex } from 'node:stream';

interface InjectedRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/domains?limit=10`. */
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}

interface InjectedResponse {
  status: number;
  headers: http.OutgoingHttpHeaders;
  /** The body as text (the API answers JSON). */
  payload: string;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A socket that is never read and drops whatever is written to it. */
const nullSocket = (): net.Socket =>
  new Duplex({
    read() {},
    write(_chunk, _encoding, callback) {
      callback();
    },
  }) as unknown as net.Socket;

/** Collects what the handler writes; `done` hears the whole answer once `end()` is called. */
class CollectingResponse extends http.ServerResponse {
  private readonly chunks: Buffer[] = [];

  constructor(
    req: http.IncomingMessage,
    private readonly done: (res: InjectedResponse) => void,
  ) {
    super(req);
    this.assignSocket(nullSocket());
  }

  private collect(data: unknown, encoding?: BufferEncoding): void {
    if (data === undefined || data === null || typeof data === 'function') return;
    this.chunks.push(typeof data === 'string' ? Buffer.from(data, encoding) : Buffer.from(data as Uint8Array));
  }

  override write(data: unknown, ...rest: unknown[]): boolean {
    const encoding = typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined;
    (http.ServerResponse.prototype.write as (...a: unknown[]) => boolean).call(this, data, ...rest);
    this.collect(data, encoding);
    return true;
  }

  override end(...args: unknown[]): this {
    const [data, encoding] = args;
    this.collect(data, typeof encoding === 'string' ? (encoding as BufferEncoding) : undefined);
    (http.ServerResponse.prototype.end as (...a: unknown[]) => unknown).call(
      this,
      ...args.filter((a) => typeof a === 'function'),
    );
    this.done({
      status: this.statusCode,
      headers: this.getHeaders(),
      payload: Buffer.concat(this.chunks).toString('utf8'),
    });
    return this;
  }
}

/** Serves `request` through `handler`; resolves with the status, headers and body it answered. */
export function inject(handler: Handler, request: InjectedRequest): Promise<InjectedResponse> {
  return new Promise((resolve) => {
    const body = Buffer.from(request.payload ?? '', 'utf8');
    const req = new http.IncomingMessage(nullSocket());
    req.method = request.method.toUpperCase();
    req.url = request.url;
    req.httpVersion = '1.1';
    req.headers = {
      host: 'localhost',
      ...Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
      ...(body.length ? { 'content-length': String(body.length) } : {}),
    };
    req.rawHeaders = Object.entries(req.headers).flatMap(([k, v]) => [k, String(v)]);
    if (body.length) req.push(body);
    req.push(null);
    handler(req, new CollectingResponse(req, resolve));
  });
}
