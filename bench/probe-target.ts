// Loopback peer for bench/probes: an HTTP server that counts requests (GET /__count answers the
// count and is not counted; /json... answers a 10 KB JSON document, the body of the conditions
// scenario) and a UDP DNS server answering 127.0.0.1 (TTL 60) for every name.
// Runs in its own process so its CPU is not charged to dommon.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLoopbackDns } from '../test/support/targets.js';
import { jsonOfSize } from '../test/support/http-answers.js';

const JSON_10K = JSON.stringify(jsonOfSize(10_000));

let count = 0;
const server = http.createServer((req, res) => {
  if (req.url === '/__count') {
    res.end(String(count));
    return;
  }
  count++;
  if (req.url?.startsWith('/json')) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON_10K);
  else res.end('ok');
});
server.keepAliveTimeout = 1000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const dns = await startLoopbackDns({ ttl: 60 });
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, dns: dns.server })}\n`);
process.on('SIGTERM', () => process.exit(0));
