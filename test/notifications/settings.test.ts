// PUT/GET /api/v1/notifications/settings: the spec's rules, per-channel config schemas, masking.
import t from 'tap';

t.setTimeout(90_000); // headroom on a busy shared machine
import { startNotifyApp } from './harness.js';

t.test('settings rows', async (t) => {
  const s = await startNotifyApp();
  t.teardown(() => s.close());
  const a = await s.team('settings', 'alice@settings.test');
  const b = await s.team('settings', 'bob@settings.test');
  const put = (type: string, body: unknown, who = a) => who.api.put(`/api/v1/notifications/settings/${type}`, body);

  t.test('digest on webhook or pushover is 400', async (t) => {
    const w = await put('webhook', { delivery_class: 'digest', config: { webhook_url: 'http://127.0.0.1:9/x' } });
    t.equal(w.status, 400);
    t.match(w.body, {
      error: /instant delivery only/,
      code: 'DIGEST_NOT_SUPPORTED',
      path: '/api/v1/notifications/settings/webhook',
    });
    t.type(w.body.timestamp, 'string');
    t.equal(
      (
        await put('pushover', {
          delivery_class: 'digest',
          config: { user_key: 'u'.repeat(30), app_token: 'a'.repeat(30) },
        })
      ).status,
      400,
    );
    t.equal(
      (await put('slack', { delivery_class: 'digest', config: { webhook_url: 'http://127.0.0.1:9/s' } })).status,
      200,
      'slack digests are fine',
    );
  });

  t.test('field rules', async (t) => {
    const bad: [string, unknown, RegExp][] = [
      ['email', { delivery_class: 'digest', frequency_days: 3 }, /frequency_days: must be one of 1, 7, 14, 30/],
      ['email', { delivery_class: 'digest', notification_time: '9:00' }, /notification_time/],
      ['email', { delivery_class: 'digest', notification_time: '24:00:00' }, /notification_time/],
      ['email', { delivery_class: 'instant', min_severity: 'urgent' }, /min_severity: must be one of/],
      ['email', { is_enabled: true }, /delivery_class: is required/],
      ['email', { delivery_class: 'weekly' }, /delivery_class/],
      ['sms', { delivery_class: 'instant' }, /notification type must be one of email, webhook, slack, pushover, teams/],
      ['webhook', { delivery_class: 'instant', config: {} }, /config\.webhook_url: is required/],
      ['webhook', { delivery_class: 'instant', config: { webhook_url: 'ftp://x/y' } }, /config\.webhook_url/],
      [
        'webhook',
        { delivery_class: 'instant', config: { webhook_url: 'http://h/x', extra: 1 } },
        /config\.extra: unknown field/,
      ],
      [
        'webhook',
        { delivery_class: 'instant', config: { webhook_url: 'http://h/x', template: '{oops' } },
        /config\.template: template is not valid JSON/,
      ],
      [
        'webhook',
        { delivery_class: 'instant', config: { webhook_url: 'http://h/x', template: '"just a string"' } },
        /config\.template: template must be a JSON object/,
      ],
      [
        'slack',
        { delivery_class: 'instant', config: { url: 'http://h/x' } },
        /config\.(webhook_url: is required|url: unknown field)/,
      ],
      ['teams', { delivery_class: 'instant', config: {} }, /config\.webhook_url: is required/],
      [
        'pushover',
        { delivery_class: 'instant', config: { user_key: 'short', app_token: 'a'.repeat(30) } },
        /config\.user_key/,
      ],
      [
        'pushover',
        { delivery_class: 'instant', config: { user_key: 'u'.repeat(30) } },
        /config\.app_token: is required/,
      ],
      ['email', { delivery_class: 'instant', config: { recipients: ['not-an-address'] } }, /config\.recipients\.0/],
      ['email', { delivery_class: 'instant', config: { recipients: [] } }, /config\.recipients/],
    ];
    for (const [type, body, msg] of bad) {
      const r = await put(type, body);
      t.equal(r.status, 400, `${type} ${JSON.stringify(body)}`);
      t.match(r.body.error, msg);
    }
  });

  t.test('upsert per (type, delivery_class); defaults; digest-only fields', async (t) => {
    const r1 = await put('email', { delivery_class: 'instant' });
    t.equal(r1.status, 200);
    t.match(r1.body, {
      notification_type: 'email',
      delivery_class: 'instant',
      is_enabled: true,
      min_severity: 'medium',
      frequency_days: null,
      notification_time: null,
    });
    const r2 = await put('email', { delivery_class: 'instant', min_severity: 'high', is_enabled: false });
    t.equal(r2.body.id, r1.body.id, 'same row updated');
    t.equal(r2.body.min_severity, 'high');
    t.equal(r2.body.is_enabled, false);
    const d = await put('email', {
      delivery_class: 'digest',
      frequency_days: 14,
      notification_time: '07:30:00',
      config: { recipients: ['team@settings.test'] },
    });
    t.not(d.body.id, r1.body.id, 'digest is its own row');
    t.match(d.body, {
      frequency_days: 14,
      notification_time: '07:30:00',
      config: { recipients: ['team@settings.test'] },
    });
    const dflt = await put('teams', { delivery_class: 'digest', config: { webhook_url: 'http://127.0.0.1:9/t' } });
    t.match(dflt.body, { frequency_days: 7, notification_time: '09:00:00' });
  });

  t.test('secrets are masked and a masked value keeps the stored secret', async (t) => {
    const secret = 'whsec_0123456789abcdef';
    const w = await put('webhook', {
      delivery_class: 'instant',
      config: { webhook_url: 'http://127.0.0.1:9/hook', secret_key: secret },
    });
    t.equal(w.status, 200);
    t.equal(w.body.config.secret_key, '********cdef');
    const p = await put('pushover', {
      delivery_class: 'instant',
      config: { user_key: 'U'.repeat(26) + '1234', app_token: 'A'.repeat(26) + '5678' },
    });
    t.same(p.body.config, { user_key: '********1234', app_token: '********5678' });
    const list = await a.api.get('/api/v1/notifications/settings');
    t.equal(list.status, 200);
    t.notOk(list.text.includes(secret), 'the secret never appears');
    t.notOk(list.text.includes('A'.repeat(26)), 'the app token never appears');
    // Sending the masked value back (e.g. toggling is_enabled from a GET) keeps the secret.
    const again = await put('webhook', { delivery_class: 'instant', config: { ...w.body.config } });
    t.equal(again.status, 200);
    const row = await s.app.store.notifications.setting(a.user_id, 'webhook', 'instant');
    t.equal(row!.config.secret_key, secret);
    const fresh = await put(
      'webhook',
      { delivery_class: 'instant', config: { webhook_url: 'http://h/x', secret_key: '********cdef' } },
      b,
    );
    t.equal(fresh.status, 400, 'a masked value with nothing stored is refused');
  });

  t.test('GET lists only the caller’s rows', async (t) => {
    await put('slack', { delivery_class: 'instant', config: { webhook_url: 'http://127.0.0.1:9/bob' } }, b);
    const mine = (await a.api.get('/api/v1/notifications/settings')).body as {
      user: string;
      notification_type: string;
      delivery_class: string;
    }[];
    const theirs = (await b.api.get('/api/v1/notifications/settings')).body as { user: string }[];
    t.ok(mine.length >= 5);
    t.ok(mine.every((r) => r.user === 'alice@settings.test'));
    t.same(
      theirs.map((r) => r.user),
      ['bob@settings.test'],
    );
    t.ok(mine.some((r) => r.notification_type === 'email' && r.delivery_class === 'digest'));
  });
});
