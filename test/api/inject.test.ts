// api/inject.ts serves one request in-process, as the CLI's local door does: the answer (status,
// headers, body) is the one a socket and an HTTP client get from the same handler.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import t from 'tap';
import { inject } from '../../src/api/inject.js';

function app(): Koa {
  const koa = new Koa();
  koa.use(bodyParser());
  koa.use(async (ctx) => {
    if (ctx.path === '/echo') {
      ctx.status = 201;
      ctx.set('x-seen', String(ctx.get('content-type')));
      ctx.body = { method: ctx.method, query: ctx.query, body: (ctx.request as { body?: unknown }).body ?? null };
    } else if (ctx.path === '/stream') {
      ctx.type = 'text/plain';
      ctx.body = Readable.from(['one ', 'two ', 'three']);
    } else if (ctx.path === '/empty') {
      ctx.status = 204;
    } else if (ctx.path === '/boom') {
      throw new Error('boom');
    }
  });
  koa.silent = true;
  return koa;
}

const requests = [
  { method: 'GET', url: '/echo?limit=10&q=a%20b' },
  {
    method: 'POST',
    url: '/echo',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'example.com', tags: ['ü', 'x'] }),
  },
  { method: 'PATCH', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"broken' },
  { method: 'GET', url: '/stream' },
  { method: 'DELETE', url: '/empty' },
  { method: 'GET', url: '/missing' },
  { method: 'GET', url: '/boom' },
];

t.test('an injected request gets the answer the same handler gives over a socket', async (t) => {
  const handler = app().callback();
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const r of requests) {
    const injected = await inject((req, res) => void handler(req, res), r);
    const res = await fetch(base + r.url, { method: r.method, headers: r.headers, body: r.payload });
    const label = `${r.method} ${r.url}`;
    t.equal(injected.status, res.status, `${label}: status`);
    t.equal(injected.payload, await res.text(), `${label}: body`);
    for (const h of ['content-type', 'x-seen'])
      t.equal(injected.headers[h] ?? null, res.headers.get(h), `${label}: ${h}`);
  }
});

t.test('the body of an injected request reaches the handler as sent', async (t) => {
  const handler = app().callback();
  const r = await inject((req, res) => void handler(req, res), requests[1]!);
  t.equal(r.status, 201);
  t.same(JSON.parse(r.payload), {
    method: 'POST',
    query: {},
    body: { name: 'example.com', tags: ['ü', 'x'] },
  });
  t.equal(r.headers['x-seen'], 'application/json');
});
