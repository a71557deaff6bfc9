// send() against real loopback peers: one attempt each, classified as the spec says.
import t from 'tap';
import { channels, deliverOnce, type SendContext } from '../../src/channels/index.js';
import { startWebhookReceiver, verifySignature } from '../support/webhook-receiver.js';
import { startSmtp } from '../support/smtp.js';
import { event, urls } from './fixtures.js';
import { closedPort } from '../support/targets.js';

const ctx = (over: Partial<SendContext> = {}): SendContext => ({
  timeoutMs: 2000,
  smtpUrl: null,
  smtpFrom: 'dommon@localhost',
  smtpTls: 'verify-if-offered',
  urls: urls(),
  ...over,
});

t.test('webhook: statuses are classified (2xx ok; 5xx/408/429 transient; other 4xx permanent)', async (t) => {
  const table: [number, boolean, boolean][] = [
    [200, true, false],
    [204, true, false],
    [500, false, true],
    [503, false, true],
    [408, false, true],
    [429, false, true],
    [404, false, false],
    [400, false, false],
    [410, false, false],
  ];
  let i = 0;
  const rx = await startWebhookReceiver(() => ({
    status: table[i]![0],
    headers: table[i]![0] === 429 ? { 'retry-after': '7' } : ({} as Record<string, string>),
  }));
  t.teardown(() => rx.close());
  for (; i < table.length; i++) {
    const [status, ok, transient] = table[i]!;
    const out = await deliverOnce('webhook', event, { config: { webhook_url: rx.url } }, ctx());
    t.equal(out.ok, ok, `${status} ok`);
    t.equal(out.transient, transient, `${status} transient`);
    t.equal(out.status, status);
    if (status === 429) t.equal(out.retryAfterSeconds, 7, 'Retry-After read');
    if (!ok) t.match(out.error, `HTTP ${status}`);
  }
  t.equal(rx.requests.length, table.length);
  t.equal(rx.requests[0]!.method, 'POST');
  t.equal(rx.requests[0]!.headers['content-type'], 'application/json');
});

t.test('webhook: a hanging receiver is a transient timeout; a closed port is a network error', async (t) => {
  const rx = await startWebhookReceiver(() => 'hang');
  t.teardown(() => rx.close());
  const t0 = performance.now();
  const out = await deliverOnce('webhook', event, { config: { webhook_url: rx.url } }, ctx({ timeoutMs: 300 }));
  const took = performance.now() - t0;
  t.equal(out.ok, false);
  t.equal(out.transient, true);
  t.match(out.error, /timeout/);
  t.ok(took >= 290 && took < 1500, `timed out after ${Math.round(took)} ms`);
  const dead = await deliverOnce(
    'webhook',
    event,
    { config: { webhook_url: `http://127.0.0.1:${await closedPort()}/x` } },
    ctx(),
  );
  t.equal(dead.transient, true);
  t.match(dead.error, /network error: ECONNREFUSED/);
});

t.test('webhook: the receiver verifies the signature over the raw bytes', async (t) => {
  const rx = await startWebhookReceiver();
  t.teardown(() => rx.close());
  const out = await deliverOnce('webhook', event, { config: { webhook_url: rx.url, secret_key: 'k3y' } }, ctx());
  t.equal(out.ok, true);
  const r = rx.requests[0]!;
  t.ok(verifySignature(r.raw, r.headers['x-signature'], 'k3y'), 'valid with the secret');
  t.notOk(verifySignature(r.raw, r.headers['x-signature'], 'other'), 'invalid with another secret');
  t.notOk(
    verifySignature(Buffer.concat([r.raw, Buffer.from(' ')]), r.headers['x-signature'], 'k3y'),
    'invalid once the bytes change',
  );
  t.equal(r.json.event_id, '11111111-1111-4111-8111-111111111111');
});

t.test('slack and teams post their documented shapes', async (t) => {
  const rx = await startWebhookReceiver();
  t.teardown(() => rx.close());
  t.equal((await deliverOnce('slack', event, { config: { webhook_url: rx.url } }, ctx())).ok, true);
  t.equal((await deliverOnce('teams', event, { config: { webhook_url: rx.url } }, ctx())).ok, true);
  const [s, m] = rx.requests;
  t.type(s!.json.text, 'string');
  t.ok(
    Array.isArray(s!.json.blocks) &&
      s!.json.blocks.every((b: { type: string }) => ['header', 'section', 'context'].includes(b.type)),
  );
  t.equal(m!.json.type, 'message');
  t.equal(m!.json.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');
  t.equal(m!.json.attachments[0].content.type, 'AdaptiveCard');
  t.equal(m!.headers['content-type'], 'application/json');
});

t.test('pushover posts to {pushoverUrl}/1/messages.json', async (t) => {
  const rx = await startWebhookReceiver((n) =>
    n === 1
      ? { status: 200, body: '{"status":1,"request":"x"}' }
      : { status: 400, body: '{"user":"invalid","errors":["user identifier is invalid"],"status":0}' },
  );
  t.teardown(() => rx.close());
  const base = rx.url.replace(/\/hook$/, '');
  const cfg = { config: { user_key: 'u'.repeat(30), app_token: 'a'.repeat(30) } };
  t.equal((await deliverOnce('pushover', event, cfg, ctx({ urls: urls({ pushover: base }) }))).ok, true);
  const r = rx.requests[0]!;
  t.equal(r.path, '/1/messages.json');
  t.same(Object.keys(r.json).sort(), ['message', 'priority', 'timestamp', 'title', 'token', 'user']);
  t.equal(r.json.priority, 1);
  t.equal(r.json.token, 'a'.repeat(30));
  const bad = await deliverOnce('pushover', event, cfg, ctx({ urls: urls({ pushover: base }) }));
  t.equal(bad.ok, false);
  t.equal(bad.transient, false, 'an invalid user key is permanent');
  t.match(bad.error, /user identifier is invalid/);
});

t.test('email: SMTP peer receives text and HTML; unset SMTP is a clear permanent error', async (t) => {
  const smtp = await startSmtp({ user: 'mailer', pass: 'p@ss' });
  t.teardown(() => smtp.close());
  const out = await deliverOnce(
    'email',
    event,
    { config: { recipients: ['a@x.test', 'b@x.test'] } },
    ctx({ smtpUrl: smtp.url, smtpFrom: 'alerts@dommon.test', smtpTls: 'require', smtpCa: smtp.ca }),
  );
  t.same(out, { ok: true, status: 250, transient: false, error: null, preview: out.preview });
  const [mail] = await smtp.waitFor(1);
  t.equal(mail!.from, 'alerts@dommon.test');
  t.same(mail!.to, ['a@x.test', 'b@x.test']);
  t.equal(mail!.auth, 'mailer', 'authenticated with the URL credentials');
  t.equal(mail!.secure, true, 'over STARTTLS');
  t.match(mail!.subject, /^\[dommon\] \[HIGH\] Exposure finding: api \(example\.com\)/);
  t.match(mail!.text, 'Dangling CNAME "old.example.com" <points> to an unclaimed app & can be taken over');
  t.match(mail!.html, '&lt;points&gt;');
  t.match(mail!.raw, /multipart\/alternative/);

  const unset = await deliverOnce('email', event, { config: { recipients: ['a@x.test'] } }, ctx());
  t.equal(unset.ok, false);
  t.equal(unset.transient, false);
  t.match(unset.error, 'SMTP is not configured (set DOMMON_SMTP_URL');

  const refused = await channels.email.send(
    { to: ['a@x.test'], subject: 's', text: 't', html: 'h' },
    ctx({ smtpUrl: `smtp://127.0.0.1:${await closedPort()}` }),
  );
  t.equal(refused.transient, true, 'connection refused is retried');
});

t.test('email: a 5xx recipient rejection is permanent, 4xx transient', async (t) => {
  const smtp = await startSmtp({
    rejectRcpt: (a) => (a.startsWith('gone') ? 550 : a.startsWith('later') ? 451 : null),
  });
  t.teardown(() => smtp.close());
  const gone = await channels.email.send(
    { to: ['gone@x.test'], subject: 's', text: 't', html: 'h' },
    ctx({ smtpUrl: smtp.url, smtpCa: smtp.ca }),
  );
  t.equal(gone.ok, false);
  t.equal(gone.transient, false);
  t.equal(gone.status, 550);
  const later = await channels.email.send(
    { to: ['later@x.test'], subject: 's', text: 't', html: 'h' },
    ctx({ smtpUrl: smtp.url, smtpCa: smtp.ca }),
  );
  t.equal(later.transient, true);
  t.equal(later.status, 451);
});

t.test('429 without Retry-After: the wait comes from the provider’s documented body field', async (t) => {
  const bodies: Record<string, string> = {
    telegram:
      '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3","parameters":{"retry_after":3}}',
    matrix: '{"errcode":"M_LIMIT_EXCEEDED","error":"Too many requests","retry_after_ms":1500}',
    discord: '{"message":"You are being rate limited.","retry_after":0.4,"global":false}',
  };
  let kind = '';
  const rx = await startWebhookReceiver(() => ({
    status: 429,
    headers: { 'content-type': 'application/json' },
    body: bodies[kind],
  }));
  t.teardown(() => rx.close());
  const base = rx.url.replace(/\/hook$/, '');
  kind = 'telegram';
  const tg = await deliverOnce(
    'telegram',
    event,
    { config: { bot_token: '123:abcdefghijklmnopqrstuvwxyz', chat_id: '42' } },
    ctx({ urls: urls({ telegram: base }) }),
  );
  t.match(tg, {
    ok: false,
    transient: true,
    status: 429,
    retryAfterSeconds: 3,
    error: 'HTTP 429: Too Many Requests: retry after 3',
  });
  t.notMatch(tg.error, 'abcdefghijklmnopqrstuvwxyz', 'the token is not in the error');
  kind = 'matrix';
  const mx = await deliverOnce(
    'matrix',
    event,
    { config: { homeserver_url: base, room_id: '!r:x', access_token: 'tok12345' } },
    ctx(),
  );
  t.match(mx, { transient: true, retryAfterSeconds: 2, error: 'HTTP 429: rate limited by the receiver' });
  kind = 'discord';
  const dc = await deliverOnce('discord', event, { config: { webhook_url: `${base}/api/webhooks/1/x` } }, ctx());
  t.match(dc, { transient: true, retryAfterSeconds: 1 });
});

t.test('a network error names the host, never the URL (its path may hold a token)', async (t) => {
  const port = await closedPort();
  const out = await deliverOnce(
    'telegram',
    event,
    { config: { bot_token: '123:secretsecretsecretsecret', chat_id: '42' } },
    ctx({ urls: urls({ telegram: `http://127.0.0.1:${port}` }) }),
  );
  t.match(out, { ok: false, transient: true, error: 'network error: ECONNREFUSED' });
  t.notMatch(out.error, 'secretsecret');
});
