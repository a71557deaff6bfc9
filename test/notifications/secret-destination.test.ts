// A masked secret sent back with a changed destination (webhook URL, Matrix homeserver, ntfy server)
// is refused with 422 SECRET_REQUIRED, and the stored secret never reaches the new host; with every
// destination unchanged the masked value still keeps it. Real receivers on loopback.
import t from 'tap';
import { createHmac } from 'node:crypto';
import { startNotifyApp } from './harness.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { CHANNELS, channels } from '../../src/channels/index.js';

t.setTimeout(90_000);

interface Case {
  kind: 'webhook' | 'matrix' | 'ntfy';
  /** The channel's config sending to `base` with `secret`. */
  config(base: string, secret: string): Record<string, unknown>;
  secretKey: string;
  destination: string;
  secret: string;
  /** A test send's recipient that uses the stored row's secret (and destination). */
  recipient(stored: Record<string, unknown>): string;
  /** Whether a received request carries `secret` (as a header, or a signature made with it). */
  carries(req: { headers: Record<string, unknown>; raw: Buffer }, secret: string): boolean;
}

const bearer = (req: { headers: Record<string, unknown> }, secret: string) =>
  req.headers.authorization === `Bearer ${secret}`;

const CASES: Case[] = [
  {
    kind: 'webhook',
    config: (base, secret) => ({ webhook_url: `${base}/hook`, secret_key: secret }),
    secretKey: 'secret_key',
    destination: 'webhook_url',
    secret: 'whsec_real_secret_5b4a',
    recipient: (stored) => String(stored.webhook_url),
    carries: (req, secret) =>
      req.headers['x-signature'] === `sha256=${createHmac('sha256', secret).update(req.raw).digest('hex')}`,
  },
  {
    kind: 'matrix',
    config: (base, secret) => ({ homeserver_url: base, room_id: '!room:example.org', access_token: secret }),
    secretKey: 'access_token',
    destination: 'homeserver_url',
    secret: 'syt_real_matrix_token_5b4a',
    recipient: () => '!room:example.org',
    carries: bearer,
  },
  {
    kind: 'ntfy',
    config: (base, secret) => ({ topic: 'dommon-alerts', server_url: base, token: secret }),
    secretKey: 'token',
    destination: 'server_url',
    secret: 'tk_real_ntfy_token_5b4a',
    recipient: () => 'dommon-alerts',
    carries: bearer,
  },
];

t.test('every channel holding both a secret and a destination has a case here', async (t) => {
  const both = CHANNELS.filter((k) => channels[k].secrets.length && channels[k].destinations.length);
  t.same(both.sort(), CASES.map((c) => c.kind).sort());
});

for (const c of CASES) {
  t.test(`${c.kind}: a masked ${c.secretKey} does not follow a changed ${c.destination}`, async (t) => {
    const s = await startNotifyApp();
    t.teardown(() => s.close());
    const owner = await startWebhookReceiver();
    const tenant = await startWebhookReceiver();
    t.teardown(() => Promise.all([owner.close(), tenant.close()]));
    const m = await s.team(`secret-dest-${c.kind}`);
    const put = (config: unknown) =>
      m.api.put(`/api/v1/notifications/settings/${c.kind}`, { delivery_class: 'instant', config });

    const first = await put(c.config(owner.url, c.secret));
    t.equal(first.status, 200, first.text);
    const masked = first.body.config as Record<string, unknown>;
    t.equal(masked[c.secretKey], '********5b4a');

    // The masked secret sent back with the tenant's host: refused, and the row is left as it was.
    const moved = await put({ ...masked, [c.destination]: c.config(tenant.url, '')[c.destination] });
    t.equal(moved.status, 422, moved.text);
    t.match(moved.body, {
      code: 'SECRET_REQUIRED',
      error: new RegExp(`config\\.${c.secretKey}.*config\\.${c.destination} changed`),
      path: `/api/v1/notifications/settings/${c.kind}`,
    });
    const row = (await s.app.store.notifications.setting(m.user_id, c.kind, 'instant'))!;
    t.equal(row.config[c.secretKey], c.secret, 'the stored secret is kept');
    t.equal(row.config[c.destination], c.config(owner.url, '')[c.destination], 'the stored destination is kept');

    // Omitting the secret with the new host stores no secret at all (nothing follows either).
    const { [c.secretKey]: _omitted, ...rest } = masked;
    void _omitted;
    if (c.kind !== 'matrix') {
      const omitted = await put({ ...rest, [c.destination]: c.config(tenant.url, '')[c.destination] });
      t.equal(omitted.status, 200, omitted.text);
      const bare = (await s.app.store.notifications.setting(m.user_id, c.kind, 'instant'))!;
      t.notOk(c.secretKey in bare.config, 'an omitted secret is dropped, not kept');
      t.equal((await put(c.config(owner.url, c.secret))).status, 200);
    }

    // A test send now uses the stored row: the owner's host gets the secret, the tenant's nothing.
    const sent = await m.api.post('/api/v1/notifications/test', {
      channel: c.kind,
      recipient: c.recipient(row.config),
    });
    t.equal(sent.status, 201, sent.text);
    const [got] = await owner.waitFor(1, 10_000);
    t.ok(c.carries(got!, c.secret), 'the owner’s host receives the secret');
    t.equal(tenant.requests.length, 0, 'the tenant’s host received nothing');
    for (const r of tenant.requests) t.notOk(c.carries(r, c.secret));

    // Every destination unchanged: the masked value (e.g. toggling is_enabled from a GET) keeps the secret.
    const same = await put({ ...masked });
    t.equal(same.status, 200, same.text);
    const kept = (await s.app.store.notifications.setting(m.user_id, c.kind, 'instant'))!;
    t.equal(kept.config[c.secretKey], c.secret, 'unchanged destination + masked secret keeps it');

    // The real secret with the new host is fine: the owner chose it.
    const real = await put({
      ...masked,
      [c.destination]: c.config(tenant.url, '')[c.destination],
      [c.secretKey]: 'tk_new_secret_9999',
    });
    t.equal(real.status, 200, real.text);
  });
}
