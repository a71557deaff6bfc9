// The tests' own fetch (test/support/http-client.ts): a POST never goes out on a kept-alive connection,
// so a server closing an idle one as it is reused cannot reset it; a GET still reuses one.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import undici from 'undici';
import '../support/http-client.js';

/** A server that answers the first request of each connection and drops the connection at its second. */
async function closingServer(): Promise<{ url: string; connections: () => number; close: () => void }> {
  const served = new WeakMap<object, number>();
  let connections = 0;
  const server = http.createServer((req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (n > 1) {
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => res.end(`${req.method} ok`));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

t.test('a POST after a GET goes on a connection of its own', async (t) => {
  const s = await closingServer();
  t.teardown(s.close);
  t.equal(await (await fetch(s.url)).text(), 'GET ok');
  await sleep(50); // as below: a kept-alive connection would be idle in its pool now
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'])
    t.equal(await (await fetch(s.url, { method, body: '{}' })).text(), `${method} ok`, `${method} answered`);
  t.equal(s.connections(), 5, 'one connection each');
});

t.test('the same sequence on a kept-alive connection is reset: what the dispatcher avoids', async (t) => {
  const s = await closingServer();
  const agent = new undici.Agent();
  t.teardown(async () => {
    s.close();
    await agent.close();
  });
  t.equal(await (await fetch(s.url, { dispatcher: agent } as RequestInit)).text(), 'GET ok');
  await sleep(50); // the connection back in the pool, idle
  await t.rejects(fetch(s.url, { method: 'POST', body: '{}', dispatcher: agent } as RequestInit), 'the POST is reset');
  t.equal(s.connections(), 1, 'it went on the connection of the GET');
});

t.test('GETs reuse a connection', async (t) => {
  let connections = 0;
  const server = http.createServer((_req, res) => res.end('ok'));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  for (let i = 0; i < 5; i++) {
    t.equal(await (await fetch(url)).text(), 'ok');
    await sleep(20);
  }
  // (undici may open a second one while the first is still being handed back to its pool.)
  t.ok(connections <= 2, `five GETs, ${connections} connection(s)`);
});
