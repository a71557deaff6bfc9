// HTTP checks that send their own request and judge the answer by conditions, against a loopback
// server: JSON bodies, redirects (followed through the outbound policy, each hop checked, bounded),
// credentials that never leave their origin, a body longer than the read bound, [CONNECTED] == false.
import net from 'node:net';
import t from 'tap';
import { createResolver } from '../../src/net/resolve.js';
import { outboundPolicy } from '../../src/domain/outbound.js';
import { pluginOf } from '../../src/probes/registry.js';
import { MAX_BODY_BYTES, MAX_REDIRECTS } from '../../src/probes/http-request.js';
import type { ProbeSettings } from '../../src/probes/plugin.js';
import type { ProbeDeps } from '../../src/probes/types.js';
import type { UrlParts } from '../../src/domain/endpoint.js';
import { closedPort, startLoopbackDns } from '../support/targets.js';
import { startAnswers, jsonOfSize } from '../support/http-answers.js';
import { issue, makeCa } from '../support/certs.js';

const never = new AbortController().signal;

async function setup(t: { teardown(fn: () => unknown): void }) {
  const dns = await startLoopbackDns();
  const web = await startAnswers();
  const other = await startAnswers();
  t.teardown(async () => {
    await web.close();
    await other.close();
    await dns.close();
  });
  // Credentials as the store hands them to the probe (here unsealed: no key in this test).
  const deps: ProbeDeps = {
    resolver: createResolver([dns.server], { policy: outboundPolicy('127.0.0.2/32', undefined) }),
    openAuth: (s) => JSON.parse(s) as { secret: string; origin: string },
  };
  const endpoint = (path: string, port = web.port): UrlParts => ({
    endpoint_type: 'http',
    domain: 'example.test',
    subdomain: 'api',
    port,
    path,
  });
  const probe = (path: string, c: Partial<ProbeSettings>, port?: number) =>
    pluginOf('http').liveness(
      endpoint(path, port),
      { timeout_seconds: 3, expected_status_code: 200, ...c },
      deps,
      never,
    );
  return { web, other, probe, deps, origin: `http://api.example.test:${web.port}` };
}

t.test('one configuration checked again: a changed body is judged anew, the status fresh', async (t) => {
  const { web, deps } = await setup(t);
  // One settings object for every check, as the scheduler holds it: its last body's values are kept.
  const settings: ProbeSettings = {
    timeout_seconds: 3,
    expected_status_code: 200,
    conditions: ['[STATUS] == 200', '[BODY].status == UP', 'len([BODY].data) > 1'],
  };
  const target: UrlParts = {
    endpoint_type: 'http',
    domain: 'example.test',
    subdomain: 'api',
    port: web.port,
    path: '/json',
  };
  const check = () => pluginOf('http').liveness(target, settings, deps, never);
  const up = jsonOfSize(2_000);
  web.answer(up);
  t.same([(await check()).ok, (await check()).ok], [true, true], 'the same body twice');
  web.answer(up, 503);
  t.equal((await check()).error, 'condition: [STATUS] (503) == 200', 'the same body with another status');
  // The same length, one byte different.
  web.answer(jsonOfSize(2_000, 'UQ'));
  t.equal((await check()).error, 'condition: [BODY].status (UQ) == UP', 'a changed body');
  web.answer({ status: 'UP', data: [1] });
  t.equal((await check()).error, 'condition: len([BODY].data) (1) > 1');
  web.answer(up);
  t.equal((await check()).ok, true, 'the first body again');
});

t.test('conditions on a JSON body: pass, fail with the value seen, bounded', async (t) => {
  const { web, probe } = await setup(t);
  web.answer({ status: 'UP', data: [{ name: 'john', id: 1 }], items: [1, 2, 3] });
  const conditions = [
    '[STATUS] == 200',
    '[BODY].status == UP',
    '[BODY].data[0].name == pat(jo*)',
    'len([BODY].items) == 3',
  ];
  const ok = await probe('/json', { conditions });
  t.same([ok.ok, ok.statusCode, ok.error], [true, 200, null]);

  web.answer({ status: 'DOWN', data: [{ name: 'jane' }], items: [] }, 503);
  const bad = await probe('/json', { conditions });
  t.same([bad.ok, bad.reason, bad.statusCode], [false, 'condition', 503]);
  t.equal(
    bad.error,
    'condition: [STATUS] (503) == 200; [BODY].status (DOWN) == UP; [BODY].data[0].name (jane) == pat(jo*); len([BODY].items) (0) == 3',
    'every failed condition with the value it saw',
  );

  web.answer({ status: 'UP', secret: 'x'.repeat(500) });
  const long = await probe('/json', { conditions: ['[BODY].secret == short'] });
  t.ok(long.error!.length < 200, 'a long remote value is cut');
  t.match(long.error, /\(x{64}\.\.\.\(truncated\)\) == short$/);

  // Conditions without [BODY] (and a plain GET): the status line is all that is read.
  web.answer({ status: 'UP' }, 204);
  const status = await probe('/json', { conditions: ['[STATUS] == any(200, 204)', '[RESPONSE_TIME] < 3s'] });
  t.equal(status.ok, true);
  // expected_status_code alone reads as it always has.
  const plain = await probe('/json', {});
  t.same([plain.ok, plain.error], [false, 'status: HTTP 204, expected 200']);
  const posted = await probe('/json', { method: 'POST', body: '{}' });
  t.same([posted.ok, posted.error], [false, 'status: HTTP 204, expected 200'], 'the same through the full request');
});

t.test('a 10 KB JSON body is read; one past the bound is not', async (t) => {
  const { web, probe } = await setup(t);
  web.answer(jsonOfSize(10_000));
  const ok = await probe('/json', { conditions: ['[BODY].status == UP', '[BODY].data[*].healthy == true'] });
  t.equal(ok.ok, true, JSON.stringify(ok));
  const big = await probe('/big', { conditions: ['len([BODY]) > 0'] });
  t.same([big.ok, big.reason], [false, 'condition']);
  t.equal(big.error, `condition: the body is longer than ${MAX_BODY_BYTES} bytes: conditions read at most that`);
  const declared = await probe('/declared-big', { conditions: ['len([BODY]) > 0'] });
  t.same([declared.ok, declared.reason], [false, 'condition'], 'refused by its Content-Length');
});

t.test('the request: method, headers, body, credentials', async (t) => {
  const { web, probe, origin } = await setup(t);
  const auth = { type: 'basic' as const, username: 'alice', sealed: JSON.stringify({ secret: 's3cret', origin }) };
  const r = await probe('/json', {
    method: 'PUT',
    headers: { 'X-Check': 'dommon', 'Content-Type': 'application/json', 'User-Agent': 'custom/1' },
    body: '{"ping":true}',
    auth,
  });
  t.equal(r.ok, true);
  const seen = web.seen.at(-1)!;
  t.equal(seen.method, 'PUT');
  t.equal(seen.body, '{"ping":true}');
  t.equal(seen.headers['x-check'], 'dommon');
  t.equal(seen.headers['content-type'], 'application/json');
  t.equal(seen.headers['user-agent'], 'custom/1', 'a header of the configuration replaces the default');
  t.equal(seen.headers.authorization, `Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
  t.equal(seen.headers.host, `api.example.test:${web.port}`);

  await probe('/json', {
    auth: { type: 'bearer', username: null, sealed: JSON.stringify({ secret: 'tok-1', origin }) },
  });
  t.equal(web.seen.at(-1)!.headers.authorization, 'Bearer tok-1');

  // Credentials given for another origin (the endpoint moved) are not sent: the check says why.
  const count = web.seen.length;
  const moved = await probe('/json', {
    auth: {
      type: 'bearer',
      username: null,
      sealed: JSON.stringify({ secret: 'tok-1', origin: 'http://old.example.test' }),
    },
  });
  t.same([moved.ok, moved.reason], [false, 'error']);
  t.match(moved.error, /given for http:\/\/old\.example\.test and the endpoint is now http:\/\/api\.example\.test:\d+/);
  t.equal(web.seen.length, count, 'no request went out');

  const sealedAway = await probe(
    '/json',
    { auth: { type: 'basic', username: 'a', sealed: 'sealed:v1:abc:xyz' } },
    web.port,
  );
  t.match(sealedAway.error, /^error: auth: the credentials cannot be opened/);
});

t.test('redirects: not followed by default; followed when asked, each hop checked, bounded', async (t) => {
  const { web, other, probe, origin } = await setup(t);
  const notFollowed = await probe('/redirect', {});
  t.same([notFollowed.ok, notFollowed.statusCode], [false, 302]);

  web.answer({ status: 'UP' });
  const followed = await probe('/redirect', { follow_redirects: true, conditions: ['[BODY].status == UP'] });
  t.same([followed.ok, followed.statusCode], [true, 200]);
  t.same(
    web.seen.slice(-2).map((s) => s.path),
    ['/redirect', '/json'],
  );

  // 303 turns a POST into a GET without a body; 307 keeps both.
  await probe('/see-other', { follow_redirects: true, method: 'POST', body: 'x=1' });
  t.same(
    web.seen.slice(-2).map((s) => [s.method, s.body]),
    [
      ['POST', 'x=1'],
      ['GET', ''],
    ],
  );
  await probe('/temporary', { follow_redirects: true, method: 'POST', body: 'x=1' });
  t.same(
    web.seen.slice(-2).map((s) => [s.method, s.body]),
    [
      ['POST', 'x=1'],
      ['POST', 'x=1'],
    ],
  );

  const loop = await probe('/loop', { follow_redirects: true });
  t.same([loop.ok, loop.error], [false, `error: more than ${MAX_REDIRECTS} redirects`]);
  const ftp = await probe('/ftp', { follow_redirects: true });
  t.match(ftp.error, /redirect to a ftp: URL/);

  // A hop to an address DOMMON_OUTBOUND_DENY refuses is never dialled.
  web.elsewhere = `http://127.0.0.2:${other.port}/json`;
  const denied = await probe('/elsewhere', { follow_redirects: true });
  t.same([denied.ok, denied.reason], [false, 'denied']);
  t.equal(other.seen.length, 0);

  // Credentials stay with their origin: the hop to another one goes without them.
  web.elsewhere = `http://other.example.test:${other.port}/json`;
  const auth = { type: 'bearer' as const, username: null, sealed: JSON.stringify({ secret: 'tok-2', origin }) };
  const away = await probe('/elsewhere', { follow_redirects: true, auth });
  t.equal(away.ok, true);
  t.equal(web.seen.at(-1)!.headers.authorization, 'Bearer tok-2');
  t.equal(other.seen.at(-1)!.headers.authorization, undefined, 'not sent to the other origin');
  t.equal(other.seen.at(-1)!.headers.host, `other.example.test:${other.port}`);
});

/** A loopback server that answers each request with the raw bytes its path names (written in the given pieces, a few ms apart). */
async function rawServer(t: { teardown(fn: () => unknown): void }, answers: Record<string, (string | Buffer)[]>) {
  const server = net.createServer((socket) => {
    let head = '';
    socket.on('error', () => {});
    socket.on('data', (d: Buffer) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const path = head.split(' ')[1];
      const pieces = [...(answers[path] ?? ['HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n'])];
      const next = () => {
        const piece = pieces.shift();
        if (piece === undefined) return void socket.end();
        socket.write(piece, () => setTimeout(next, 5));
      };
      next();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as net.AddressInfo).port;
}

t.test(
  "the answer's framing: Content-Length, chunked, to the close, interim answers, HEAD, and broken answers",
  async (t) => {
    const { probe } = await setup(t);
    const json = '{"status": "UP", "n": 3}';
    const port = await rawServer(t, {
      '/length': [`HTTP/1.1 200 OK\r\ncontent-length: ${json.length}\r\n\r\n${json.slice(0, 7)}`, json.slice(7)],
      '/chunked': [
        'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n7;ext=1\r\n{"statu',
        `\r\n${(json.length - 7).toString(16)}\r\n${json.slice(7)}\r\n`,
        '0\r\nx-trailer: yes\r\n\r\n',
      ],
      '/to-close': ['HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n', json],
      '/interim': ['HTTP/1.1 100 Continue\r\n\r\n', `HTTP/1.1 200 OK\r\ncontent-length: ${json.length}\r\n\r\n${json}`],
      '/head': ['HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n'],
      '/cut': [`HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n${json}`],
      '/bad-length': ['HTTP/1.1 200 OK\r\ncontent-length: 1x\r\n\r\nok'],
      // The head's bound is checked as each read ends (a read is at most 64 KB): this one comes in three.
      '/big-head': ['HTTP/1.1 200 OK\r\nx-big: ', 'a'.repeat(10_000), 'a'.repeat(10_000), '\r\n\r\n'],
      '/not-http': ['SSH-2.0-OpenSSH_9.6\r\n'],
      '/utf8': [
        `HTTP/1.1 200 OK\r\ncontent-length: 17\r\n\r\n`,
        Buffer.from('{"name": "m'),
        Buffer.from('üde"}').subarray(0, 1),
        Buffer.from('üde"}').subarray(1),
      ],
    });
    const conditions = ['[STATUS] == 200', '[BODY].status == UP', '[BODY].n == 3'];
    for (const path of ['/length', '/chunked', '/to-close', '/interim']) {
      const o = await probe(path, { conditions }, port);
      t.same([o.ok, o.statusCode, o.error], [true, 200, null], `${path}: the whole body is read`);
    }
    const name = await probe('/utf8', { conditions: ['[BODY].name == müde'] }, port);
    t.same([name.ok, name.error], [true, null], 'a character split between two packets is decoded whole');
    const head = await probe(
      '/head',
      { method: 'HEAD', conditions: ['[STATUS] == 200', 'has([BODY]) == false'] },
      port,
    );
    t.same([head.ok, head.error], [true, null], 'a HEAD answer has no body, whatever its Content-Length');
    t.same(
      [(await probe('/cut', { conditions }, port)).error],
      ['reset: connection closed before a response'],
      'closed before the declared length',
    );
    t.match((await probe('/bad-length', { conditions }, port)).error, /^error: HPE_INVALID_CONTENT_LENGTH /);
    t.match((await probe('/big-head', { conditions }, port)).error, /^error: HPE_HEADER_OVERFLOW /);
    t.equal(
      (await probe('/not-http', { conditions }, port)).error,
      'error: HPE_INVALID_CONSTANT Parse Error: not an HTTP response',
    );
  },
);

t.test('[CONNECTED] judges a check that got no answer', async (t) => {
  const { probe } = await setup(t);
  const port = await closedPort();
  const refused = await probe('/', {}, port);
  t.same([refused.ok, refused.reason], [false, 'refused']);
  const closed = await probe('/', { conditions: ['[CONNECTED] == false'] }, port);
  t.same([closed.ok, closed.statusCode], [true, null], 'a port that must stay closed');
  const open = await probe('/', { conditions: ['[CONNECTED] == true'] }, port);
  t.same([open.ok, open.reason], [false, 'refused'], 'the transport failure is the error');
});

t.test('https: the certificate is verified, and [CERTIFICATE_EXPIRATION] and [IP] are read', async (t) => {
  const dns = await startLoopbackDns();
  const ca = makeCa();
  const web = await startAnswers({ tls: issue({ ca, cn: 'secure.example.test', toDays: 30 }) });
  t.teardown(async () => {
    await web.close();
    await dns.close();
  });
  const endpoint: UrlParts = {
    endpoint_type: 'https',
    domain: 'secure.example.test',
    subdomain: null,
    port: web.port,
    path: '/json',
  };
  const probe = (c: Partial<ProbeSettings>, ca2?: string) =>
    pluginOf('https').liveness(
      endpoint,
      { timeout_seconds: 3, expected_status_code: 200, ...c },
      { resolver: createResolver([dns.server]), ...(ca2 ? { ca: ca2 } : {}) },
      never,
    );
  const ok = await probe(
    { conditions: ['[CERTIFICATE_EXPIRATION] > 648h', '[IP] == 127.0.0.1', '[BODY].status == UP'] },
    ca.cert,
  );
  t.same([ok.ok, ok.error], [true, null]);
  const soon = await probe({ conditions: ['[CERTIFICATE_EXPIRATION] > 1000h'] }, ca.cert);
  t.same([soon.ok, soon.reason], [false, 'condition']);
  t.match(soon.error, /^condition: \[CERTIFICATE_EXPIRATION\] \((7[01]\d|69\d)h(\d+m)?(\d+s)?\) > 1000h$/);
  const untrusted = await probe({ conditions: ['[BODY].status == UP'] });
  t.same([untrusted.ok, untrusted.reason], [false, 'tls'], 'a certificate no trusted CA signed fails the check');
});

t.test("[DOMAIN_EXPIRATION] reads the domain's stored expiry: one read per check, no look-up", async (t) => {
  const { web, deps } = await setup(t);
  web.answer({ status: 'UP' });
  const H = 3_600_000;
  const left = new Map<string, number | null>([
    ['d-far', 900 * H],
    ['d-soon', 90 * 60_000],
    ['d-unknown', null],
  ]);
  const reads: string[] = [];
  const withExpiry: ProbeDeps = {
    ...deps,
    domainExpiry: async (id) => {
      reads.push(id);
      return left.get(id) ?? null;
    },
  };
  const probe = (domain_id: string | undefined, conditions: string[], d: ProbeDeps = withExpiry) =>
    pluginOf('http').liveness(
      { endpoint_type: 'http', domain: 'example.test', subdomain: 'api', port: web.port, path: '/json', domain_id },
      { timeout_seconds: 3, expected_status_code: 200, conditions },
      d,
      never,
    );
  const far = await probe('d-far', ['[STATUS] == 200', '[DOMAIN_EXPIRATION] > 720h']);
  t.same([far.ok, far.error], [true, null]);
  t.same(reads, ['d-far'], 'one read of the stored date');

  const soon = await probe('d-soon', ['[DOMAIN_EXPIRATION] > 720h']);
  t.same([soon.ok, soon.reason, soon.statusCode], [false, 'condition', 200]);
  t.equal(soon.error, 'condition: [DOMAIN_EXPIRATION] (1h30m) > 720h', 'the time left, shown as a duration');

  // With the body named too, the full request path carries the stored value.
  const both = await probe('d-soon', ['[BODY].status == UP', '[DOMAIN_EXPIRATION] > 1h']);
  t.same([both.ok, both.error], [true, null]);

  // Unknown (no date stored, or no domain: a `dommon check` target) reads as 0, as in Gatus.
  const unknown = await probe('d-unknown', ['[DOMAIN_EXPIRATION] > 720h']);
  t.equal(unknown.error, 'condition: [DOMAIN_EXPIRATION] (0s) > 720h');
  const zero = await probe(undefined, ['[DOMAIN_EXPIRATION] == 0'], deps);
  t.equal(zero.ok, true);

  // Conditions that do not name it read nothing.
  reads.length = 0;
  t.equal((await probe('d-far', ['[STATUS] == 200'])).ok, true);
  t.same(reads, []);

  // A store that cannot answer fails the check with the reason, not with a made-up value.
  const broken = await probe('d-far', ['[DOMAIN_EXPIRATION] > 1h'], {
    ...deps,
    domainExpiry: () => Promise.reject(new Error('database is locked')),
  });
  t.same([broken.ok, broken.reason], [false, 'error']);
  t.match(broken.error, /registration expiry cannot be read: database is locked/);
});
