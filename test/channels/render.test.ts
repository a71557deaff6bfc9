// render() is pure: table tests of what each channel builds from an event and a digest.
import t from 'tap';
import { createHmac } from 'node:crypto';
import { channels } from '../../src/channels/index.js';
import { applyTemplate, webhookPayload } from '../../src/channels/webhook.js';
import { PUSHOVER_PRIORITY } from '../../src/channels/pushover.js';
import type { Outgoing } from '../../src/domain/notification.js';
import { CHANNELS } from '../../src/channels/index.js';
import { digest, event } from './fixtures.js';

t.test('the registry has one plug-in per channel kind', async (t) => {
  t.same(Object.keys(channels).sort(), [...CHANNELS].sort());
  for (const c of CHANNELS) t.type(channels[c].render, 'function', `${c} render`);
});

t.test('webhook payload has the spec fields, in order, plus event_id', async (t) => {
  const r = channels.webhook.render(event, { config: { webhook_url: 'http://h/x' } });
  const body = JSON.parse(r.body);
  t.same(Object.keys(body), [
    'event_type',
    'severity',
    'category',
    'team',
    'user',
    'domain_id',
    'domain',
    'endpoint_id',
    'endpoint_name',
    'details',
    'message',
    'timestamp',
    'event_id',
  ]);
  t.equal(body.event_type, 'exposure');
  t.equal(body.severity, 'high');
  t.equal(body.team, 'acme');
  t.equal(body.user, 'ops@acme.test');
  t.same(body.details, { provider: 'heroku', remediation: 'remove the dangling CNAME' });
  t.equal(body.event_id, '11111111-1111-4111-8111-111111111111');
  t.equal(r.headers['content-type'], 'application/json');
  t.notOk(r.headers['x-signature'], 'no secret, no signature');
  t.equal(r.url, 'http://h/x');
});

t.test('webhook signature is HMAC-SHA256 of the exact body', async (t) => {
  const r = channels.webhook.render(event, { config: { webhook_url: 'http://h/x', secret_key: 's3cret' } });
  t.equal(r.headers['x-signature'], `sha256=${createHmac('sha256', 's3cret').update(r.body).digest('hex')}`);
  t.match(r.headers['x-signature'], /^sha256=[0-9a-f]{64}$/);
  const same = channels.webhook.render(event, { config: { webhook_url: 'http://h/x', secret_key: 's3cret' } });
  t.equal(same.body, r.body, 'render is deterministic');
});

t.test('webhook templates: placeholders are filled safely as JSON', async (t) => {
  const payload = webhookPayload(event);
  const cases: [string, unknown, unknown][] = [
    [
      'whole placeholder keeps the JSON type',
      { d: '{{details}}', s: '{{severity}}' },
      { d: event.kind === 'event' ? event.details : null, s: 'high' },
    ],
    [
      'embedded placeholder becomes text',
      { text: '{{severity}} on {{domain}}: {{message}}' },
      { text: `high on example.com: ${(event as { message: string }).message}` },
    ],
    ['dotted path', { p: '{{details.provider}}' }, { p: 'heroku' }],
    ['unknown field: null whole, empty inside', { a: '{{nope}}', b: 'x{{nope}}y' }, { a: null, b: 'xy' }],
    ['arrays and numbers pass through', ['{{event_type}}', 3, true], ['exposure', 3, true]],
  ];
  for (const [name, template, want] of cases) t.same(applyTemplate(template, payload), want, name);

  // A hostile value (quotes, braces) cannot break out of its string: the body stays valid JSON.
  const hostile: Outgoing = {
    ...(event as Extract<Outgoing, { kind: 'event' }>),
    message: '", "admin": true, "x": "{{',
  };
  const r = channels.webhook.render(hostile, {
    config: { webhook_url: 'http://h', template: '{"text": "alert: {{message}}", "sev": "{{severity}}"}' },
  });
  const body = JSON.parse(r.body);
  t.same(Object.keys(body), ['text', 'sev']);
  t.equal(body.text, 'alert: ", "admin": true, "x": "{{');
  t.throws(
    () => channels.webhook.render(event, { config: { webhook_url: 'http://h', template: '{not json' } }),
    /template is not valid JSON/,
  );
});

t.test('slack: text fallback plus header, section, fields and context blocks', async (t) => {
  const r = channels.slack.render(event, { config: { webhook_url: 'http://s' } });
  const body = JSON.parse(r.body);
  t.equal(body.text.startsWith('[HIGH] Exposure finding: api (example.com)'), true);
  t.same(
    body.blocks.map((b: { type: string }) => b.type),
    ['header', 'section', 'section', 'context'],
  );
  t.equal(body.blocks[0].text.type, 'plain_text');
  t.match(body.blocks[1].text.text, '&lt;points&gt; to an unclaimed app &amp; can', 'mrkdwn escaped');
  t.ok(body.blocks[2].fields.some((f: { text: string }) => f.text === '*Severity*\nhigh'));
  const d = JSON.parse(channels.slack.render(digest, { config: { webhook_url: 'http://s' } }).body);
  t.equal(d.text, 'dommon digest for acme: 2 items');
  const texts = d.blocks
    .filter((b: { type: string }) => b.type === 'section')
    .map((b: { text: { text: string } }) => b.text.text);
  t.same(
    texts.filter((x: string) => x.startsWith('*')),
    ['*Production*', '*No portfolio*'],
    'grouped by portfolio',
  );
  t.match(texts.join('\n'), /• \[MEDIUM\] SSL certificate expiry: other\.test - certificate expires in 14 days/);
});

t.test('teams: one Adaptive Card attachment', async (t) => {
  const body = JSON.parse(channels.teams.render(event, { config: { webhook_url: 'http://t' } }).body);
  t.equal(body.type, 'message');
  t.equal(body.attachments.length, 1);
  const a = body.attachments[0];
  t.equal(a.contentType, 'application/vnd.microsoft.card.adaptive');
  t.equal(a.content.type, 'AdaptiveCard');
  t.equal(a.content.version, '1.4');
  t.equal(a.content.body[0].type, 'TextBlock');
  t.equal(a.content.body[0].color, 'Attention');
  const facts = a.content.body.find((b: { type: string }) => b.type === 'FactSet').facts;
  t.same(
    facts.find((f: { title: string }) => f.title === 'Domain'),
    { title: 'Domain', value: 'example.com' },
  );
  const d = JSON.parse(channels.teams.render(digest, { config: { webhook_url: 'http://t' } }).body);
  const texts = d.attachments[0].content.body.map((b: { text: string }) => b.text);
  t.ok(texts.includes('Production') && texts.includes('No portfolio'));
});

t.test('pushover: token, user, title, priority from severity', async (t) => {
  const table: [string, number][] = [
    ['critical', 1],
    ['high', 1],
    ['medium', 0],
    ['low', -1],
    ['info', -1],
  ];
  for (const [severity, priority] of table) {
    const r = channels.pushover.render(
      { ...(event as Extract<Outgoing, { kind: 'event' }>), severity },
      { config: { user_key: 'u'.repeat(30), app_token: 'a'.repeat(30) } },
    );
    t.equal(r.body.priority, priority, severity);
    t.equal(PUSHOVER_PRIORITY[severity], priority);
  }
  const r = channels.pushover.render(event, { config: { user_key: 'u'.repeat(30), app_token: 'a'.repeat(30) } });
  t.equal(r.body.token, 'a'.repeat(30));
  t.equal(r.body.user, 'u'.repeat(30));
  t.equal(r.body.title, '[HIGH] Exposure finding: api (example.com)');
  t.equal(r.body.timestamp, Date.parse('2026-03-02T10:00:00Z') / 1000);
  const long = channels.pushover.render(
    { ...(event as Extract<Outgoing, { kind: 'event' }>), message: 'x'.repeat(5000) },
    { config: {} },
  );
  t.equal(long.body.message.length, 1024, 'Pushover message limit');
});

t.test('email: subject from the event, text and escaped HTML', async (t) => {
  const m = channels.email.render(event, { config: { recipients: ['a@x.test', 'b@x.test'] } });
  t.same(m.to, ['a@x.test', 'b@x.test']);
  t.match(m.subject, /^\[dommon\] \[HIGH\] Exposure finding: api \(example\.com\): Dangling CNAME/);
  t.ok(m.subject.length <= 200);
  t.match(m.text, 'Severity: high');
  t.match(m.html, '&lt;points&gt; to an unclaimed app &amp; can');
  t.notMatch(m.html, '<points>');
  const test = channels.email.render(
    { ...(event as Extract<Outgoing, { kind: 'event' }>), subject: 'Hello\r\nBcc: x@y' },
    { config: { recipients: ['a@x.test'] } },
  );
  t.equal(test.subject, 'Hello Bcc: x@y', 'no header injection through the subject');
  const d = channels.email.render(digest, { config: { recipients: ['a@x.test'] } });
  t.equal(d.subject, 'dommon digest for acme: 2 items');
  t.match(d.text, /Production:\n {2}- \[HIGH\] Exposure finding/);
  t.match(d.html, '<h3>No portfolio</h3>');
});
