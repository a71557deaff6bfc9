// No byte a remote peer sends reaches an API answer, an event or a log line (docs/security.md,
// "What remote peers' bytes reach"): real loopback peers answer every probe with a distinctive
// marker (an SSH banner where SMTP or IMAP was expected, SMTP and IMAP refusals with their own text,
// an HTTP reason phrase), the daemon probes them on its schedule, and the marker is looked for in
// every answer about the endpoints (detail, status, liveness status and results, events) and in the
// daemon's log at debug level. The failures are said in our words.
import fs from 'node:fs';
import net from 'node:net';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { loadConfig } from '../../src/config/index.js';
import { createApp } from '../../src/app.js';
import { client, OFFLINE_ENV, tempDir } from '../support/app.js';
import { startLoopbackDns } from '../support/targets.js';
import { waitFor } from '../support/wait.js';

t.setTimeout(120_000);

const MARKER = 'SECRET-MARKER';

/** A line-protocol peer: `greet` on connect, then `answer(line)` for each line received (null: silence). */
async function peer(t: Test, greet: string, answer: (line: string) => string | null = () => null) {
  const server = net.createServer((s) => {
    s.on('error', () => undefined);
    s.write(greet);
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('latin1');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
        const out = answer(line);
        if (out !== null) s.write(out);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

t.test('SMTP, IMAP, HTTP and TCP peers: their words reach no answer, event or log line', async (t) => {
  const ssh = await peer(t, `SSH-2.0-OpenSSH_9.2p1 ${MARKER}-ssh\r\n`);
  const smtpBusy = await peer(t, `554-5.3.2 ${MARKER}-busy\r\n554 go away\r\n`);
  const smtpNoTls = await peer(t, `220 mail ESMTP ${MARKER}-hello\r\n`, (l) =>
    /^EHLO/i.test(l) ? `250-mail ${MARKER}-ehlo\r\n250-X-${MARKER}-EXT\r\n250 8BITMIME\r\n` : null,
  );
  const smtpRefuse = await peer(t, '220 mail ESMTP\r\n', (l) =>
    /^EHLO/i.test(l)
      ? '250-mail\r\n250 STARTTLS\r\n'
      : /^STARTTLS/i.test(l)
        ? `454 4.7.0 ${MARKER}-starttls\r\n`
        : null,
  );
  const imapBye = await peer(t, `* BYE ${MARKER}-bye\r\n`);
  const imapNoTls = await peer(t, `* OK [CAPABILITY IMAP4rev1 ${MARKER}-CAP] ready\r\n`);
  const imapRefuse = await peer(t, `* OK [CAPABILITY IMAP4rev1 STARTTLS] ${MARKER}-greeting\r\n`, (l) =>
    /^a1 STARTTLS/i.test(l) ? `a1 NO ${MARKER}-no\r\n` : null,
  );
  const imapJunk = await peer(t, `* OK ${MARKER}-nocaps\r\n`, (l) =>
    /^a0 CAPABILITY/i.test(l) ? `${MARKER}-junk\r\n` : null,
  );
  const httpPeer = await peer(t, '', (l) =>
    l === '' ? `HTTP/1.1 503 ${MARKER}-reason\r\nX-Why: ${MARKER}-header\r\nContent-Length: 0\r\n\r\n` : null,
  );

  const dns = await startLoopbackDns();
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const dataDir = tempDir();
  const config = loadConfig(
    { dataDir, port: 0, host: '127.0.0.1' },
    { ...OFFLINE_ENV, DOMMON_DNS_SERVERS: dns.server, DOMMON_RATE_LIMIT: '100000', DOMMON_LOG_LEVEL: 'debug' },
  );
  const app = await createApp(config, { log: pino({ level: 'debug' }, sink) });
  const { url } = await app.start();
  t.teardown(async () => {
    await app.stop();
    await dns.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const { token } = await app.services.access.createToken({ team: 'remote-bytes' });
  const api = client(url, token);
  const d = (await api.post('/api/v1/domains', { domain: 'example.com' })).body;
  const liveness = { interval_seconds: 1, failure_threshold: 1 };
  const create = async (name: string, endpoint_type: string, port: number, path?: string) => {
    const r = await api.post('/api/v1/endpoints', {
      domain_id: d.id,
      name,
      endpoint_type,
      subdomain: 'mail',
      port,
      ...(path ? { path } : {}),
      liveness,
    });
    t.equal(r.status, 201, r.body.error);
    return r.body;
  };
  const want: Record<string, [string, string, number, string]> = {
    'smtp-ssh': ['smtp', 'status: the peer did not greet as an SMTP server', ssh, ''],
    'smtp-busy': ['smtp', 'status: SMTP greeting 554, expected 220', smtpBusy, ''],
    'smtp-no-tls': ['smtp', 'tls: the server does not offer STARTTLS (EHLO lists 2 other extensions)', smtpNoTls, ''],
    'smtp-refuse': ['smtp', 'tls: STARTTLS refused: 454, expected 220', smtpRefuse, ''],
    'imap-ssh': ['imap', 'status: the peer did not greet as an IMAP server', ssh, ''],
    'imap-bye': ['imap', 'status: IMAP greeting "* BYE", expected "* OK"', imapBye, ''],
    'imap-no-tls': [
      'imap',
      'tls: the server does not offer STARTTLS (CAPABILITY lists 2 other capabilities)',
      imapNoTls,
      '',
    ],
    'imap-refuse': ['imap', 'tls: STARTTLS refused: a1 NO, expected a1 OK', imapRefuse, ''],
    'imap-junk': ['imap', 'status: the answer to CAPABILITY is not an IMAP response', imapJunk, ''],
    'http-reason': ['http', 'status: HTTP 503, expected 200', httpPeer, '/'],
    'http-ssh': ['http', 'error: HPE_INVALID_CONSTANT Parse Error: not an HTTP response', ssh, '/'],
  };
  const made: Record<string, any> = {};
  for (const [name, [type, , port, path]] of Object.entries(want)) made[name] = await create(name, type, port, path);

  const live = async (e: any) => (await api.get(`/api/v1/liveness/${e.liveness.id}/status`)).body;
  await waitFor(
    async () => (await Promise.all(Object.values(made).map(live))).every((l) => l.status === 'down'),
    30_000,
    200,
  );
  // The TLS inspection of the mail endpoints has run too (its error comes from the same conversation).
  await waitFor(
    async () =>
      (
        await Promise.all(
          Object.values(made)
            .filter((e) => e.endpoint_type !== 'http')
            .map(async (e) => (await api.get(`/api/v1/endpoints/${e.id}/status`)).body),
        )
      ).every((s) => s.ssl.status !== 'unknown'),
    30_000,
    200,
  );

  const seen: string[] = [];
  for (const [name, e] of Object.entries(made)) {
    const l = await live(e);
    t.equal(l.last_error, want[name]![1], `${name}: said in our words`);
    seen.push(
      JSON.stringify(l),
      (await api.get(`/api/v1/endpoints/${e.id}`)).text,
      (await api.get(`/api/v1/endpoints/${e.id}/status`)).text,
      (await api.get(`/api/v1/liveness/${e.liveness.id}`)).text,
      (await api.get(`/api/v1/liveness/${e.liveness.id}/results`)).text,
    );
  }
  seen.push((await api.get('/api/v1/events?limit=100')).text, (await api.get('/api/v1/endpoints?limit=100')).text);
  const events = JSON.parse(seen.at(-2)!);
  t.ok(
    events.data.filter((e: any) => e.category === 'endpoint_down').length >= Object.keys(want).length,
    'every endpoint raised its down event',
  );
  const answers = seen.join('\n');
  t.notMatch(answers, MARKER, 'no API answer holds a byte of the peers');
  t.ok(lines.length > 0, `the daemon logged (${lines.length} lines)`);
  t.notMatch(lines.join(''), MARKER, 'no log line holds a byte of the peers');
});
