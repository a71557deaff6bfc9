// The --remote transport (src/cli/transport.ts) over node:http and node:https, in-process against
// loopback servers: what it sends, one kept-alive connection per command that close() ends, and each
// way a request fails (refused, no answer in time, a redirect, a body that is not JSON, TLS).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { loadConfig } from '../../src/config/index.js';
import type { CliContext } from '../../src/cli/context.js';
import { printer } from '../../src/cli/output.js';
import { call, openTransport } from '../../src/cli/transport.js';
import { closedPort } from '../support/targets.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'dmn_transport_test';

/** What `--remote URL --token TOKEN` gives a command. */
function remote(url: string): CliContext {
  return {
    opts: { remote: url, token: TOKEN },
    config: loadConfig({ remote: url, token: TOKEN }, {}),
    print: printer(true),
    local: () => Promise.reject(new Error('no local database with --remote')),
    close: async () => {},
  };
}

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback server answering with `answer`; what it was sent, and how many connections it took. */
async function server(t: Test, answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  const sockets = { opened: 0, closed: 0 };
  const s = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      answer(req, res);
    });
  });
  s.on('connection', (socket) => {
    sockets.opened++;
    socket.on('close', () => sockets.closed++);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    s.closeAllConnections();
    return new Promise<void>((r) => s.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, seen, sockets };
}

const json = (status: number, body: unknown) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

t.test('requests, answers and one kept-alive connection that close() ends', async (t) => {
  const api = await server(t, (req, res) =>
    req.method === 'POST'
      ? json(201, { id: 'd1', domain: 'example.com' })(req, res)
      : json(200, { data: [] })(req, res),
  );
  const tr = await openTransport(remote(`${api.url}/`));
  t.same(await tr.request('POST', '/api/v1/domains', { domain: 'example.com' }), {
    status: 201,
    body: { id: 'd1', domain: 'example.com' },
  });
  t.same(await call(tr, 'GET', '/api/v1/domains?limit=5'), { data: [] });
  t.match(api.seen, [
    {
      method: 'POST',
      url: '/api/v1/domains',
      body: '{"domain":"example.com"}',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'content-length': '24' },
    },
    { method: 'GET', url: '/api/v1/domains?limit=5', body: '' },
  ]);
  t.notOk('content-type' in api.seen[1]!.headers, 'no body, no content type');
  t.same(api.sockets, { opened: 1, closed: 0 }, 'both requests on one connection, kept open');
  await tr.close();
  // The server sees the close when its event loop gets to it (late on a loaded machine).
  await waitFor(() => api.sockets.closed === 1, 5000, 20).catch(() => undefined);
  t.same(api.sockets, { opened: 1, closed: 1 }, 'close() ends it');
});

t.test('an answer >= 400 is an ApiError with the API message; a body that is not JSON is an error', async (t) => {
  const api = await server(t, (req, res) => {
    if (req.url === '/text') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>a proxy</html>');
    } else json(404, { error: 'domain nope.com not found', code: 'NOT_FOUND' })(req, res);
  });
  const tr = await openTransport(remote(api.url));
  t.teardown(() => tr.close());
  await t.rejects(call(tr, 'GET', '/api/v1/domains/nope.com'), { status: 404, message: 'domain nope.com not found' });
  await t.rejects(tr.request('GET', '/text'), { message: `${api.url} answered 200 with a body that is not JSON` });
});

t.test('a redirect is not followed, and the token goes nowhere else', async (t) => {
  const elsewhere = await server(t, json(200, { data: [] }));
  const proxy = await server(t, (_req, res) => {
    res.writeHead(301, { location: `${elsewhere.url}/api/v1/domains` });
    res.end();
  });
  const tr = await openTransport(remote(proxy.url));
  t.teardown(() => tr.close());
  await t.rejects(tr.request('GET', '/api/v1/domains'), {
    message: `${proxy.url} answered 301, a redirect to ${elsewhere.url}/api/v1/domains: --remote takes the daemon's own URL`,
  });
  t.same(elsewhere.seen, [], 'nothing was sent to where it points');
});

t.test('no daemon, no answer in time, no TLS where https was asked for: "cannot reach" with why', async (t) => {
  const port = await closedPort();
  const refused = await openTransport(remote(`http://127.0.0.1:${port}`));
  await t.rejects(refused.request('GET', '/api/v1/domains'), {
    message: `cannot reach http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
  });
  await refused.close();

  const silent = await server(t, () => {}); // reads the request, never answers
  const slow = await openTransport(remote(silent.url));
  const started = Date.now();
  await t.rejects(slow.request('GET', '/api/v1/domains', undefined, { timeoutMs: 300 }), {
    message: `cannot reach ${silent.url}: no answer within 300 ms`,
  });
  t.ok(Date.now() - started < 5_000, 'the bound holds');
  await slow.close();

  const plain = await server(t, json(200, {}));
  const tls = await openTransport(remote(plain.url.replace('http:', 'https:')));
  await t.rejects(tls.request('GET', '/api/v1/domains'), {
    message: new RegExp(`^cannot reach ${plain.url.replace('http:', 'https:')}: .*(SSL|TLS|EPROTO|wrong version)`, 'i'),
  });
  t.same(plain.seen, [], 'a TLS handshake, not an HTTP request, was sent');
  await tls.close();
});
