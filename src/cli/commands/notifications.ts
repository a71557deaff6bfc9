// `dommon notifications settings|set|test|log`: the caller's channel settings, test sends, delivery log.
import { call, qs } from '../transport.js';
import { keyValues, table, UsageError, type Palette } from '../output.js';
import type { NounSpec } from '../spec.js';
import { pageOptions } from './common.js';
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../package.js';

/**
 * The channel kinds, as the registry (src/channels/index.ts) wrote them into the test-send schema at
 * build time: reading one small JSON file is cheaper than loading every channel plug-in (and its
 * dependencies) for every command. A test checks this list against the registry.
 */
export const CHANNELS: readonly string[] = (
  JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'schemas', 'requests', 'notification-test.json'), 'utf8')) as {
    properties: { channel: { enum: string[] } };
  }
).properties.channel.enum;

type SettingRow = Record<string, unknown> & { config?: Record<string, unknown> | null };

const settingsText = (rows: SettingRow[], paint: Palette) =>
  table(
    rows.map((r) => ({
      ...r,
      config: Object.entries(r.config ?? {})
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' '),
    })),
    [
      'notification_type:CHANNEL',
      'delivery_class:CLASS',
      'is_enabled:ENABLED',
      'frequency_days:EVERY_DAYS',
      'notification_time:AT',
      'min_severity:MIN_SEVERITY',
      'config',
    ],
    paint,
  );

/** 9:30 -> 09:30:00 (the API wants HH:MM:SS). */
function time(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(String(v));
  if (!m) throw new UsageError('--time must be HH:MM or HH:MM:SS');
  return `${m[1]!.padStart(2, '0')}:${m[2]}:${m[3] ?? '00'}`;
}

export const notificationsNoun: NounSpec = {
  name: 'notifications',
  description: 'notification channels (per user), test sends and the delivery log',
  commands: [
    {
      name: 'settings',
      description: 'list your channel settings (secrets masked)',
      examples: ['dommon notifications settings --json'],
      action: ({ t }) => call(t, 'GET', '/api/v1/notifications/settings'),
      text: settingsText,
    },
    {
      name: 'set <channel>',
      description: `create or change the (channel, class) settings row; channel: ${CHANNELS.join(', ')}`,
      argChoices: CHANNELS,
      options: [
        {
          flags: '--class <class>',
          description: 'delivery class',
          field: 'delivery_class',
          choices: ['instant', 'digest'],
          default: 'instant',
        },
        { flags: '--enabled <bool>', description: 'true or false', field: 'is_enabled', kind: 'bool' },
        {
          flags: '--frequency <days>',
          description: 'digest every 1, 7, 14 or 30 days',
          field: 'frequency_days',
          kind: 'int',
        },
        { flags: '--time <HH:MM>', description: 'digest send time' },
        {
          flags: '--min-severity <level>',
          description: 'instant exposure alerts from this severity',
          field: 'min_severity',
          choices: ['critical', 'high', 'medium', 'low', 'info'],
        },
        {
          flags: '--config <json>',
          description: 'channel config object, e.g. {"webhook_url":"https://..."}',
          kind: 'json',
        },
        {
          flags: '--webhook-url <url>',
          description: 'shortcut for config.webhook_url (the webhook and chat-webhook channels)',
        },
        { flags: '--secret <key>', description: 'shortcut for config.secret_key (webhook signature)' },
      ],
      examples: [
        'dommon notifications set webhook --webhook-url https://hooks.example.com/dommon --secret s3cret',
        'dommon notifications set email --class digest --frequency 7 --time 09:00 --config \'{"email":"ops@example.com"}\'',
      ],
      async action({ t, args, body, opts }) {
        const channel = args[0]!;
        if (!(CHANNELS as readonly string[]).includes(channel))
          throw new UsageError(`channel must be one of ${CHANNELS.join(', ')}`);
        const cfg = opts.config === undefined ? undefined : (JSON.parse(String(opts.config)) as unknown);
        if (cfg !== undefined && (typeof cfg !== 'object' || cfg === null || Array.isArray(cfg)))
          throw new UsageError('--config must be a JSON object');
        const config: Record<string, unknown> = { ...(cfg as Record<string, unknown> | undefined) };
        if (opts.webhookUrl !== undefined) config.webhook_url = opts.webhookUrl;
        if (opts.secret !== undefined) config.secret_key = opts.secret;
        const at = time(opts.time);
        return call(t, 'PUT', `/api/v1/notifications/settings/${channel}`, {
          ...body,
          ...(at ? { notification_time: at } : {}),
          ...(Object.keys(config).length ? { config } : {}),
        });
      },
      text: (r: SettingRow, paint) => keyValues({ ...r, config: JSON.stringify(r.config) }, paint),
    },
    {
      name: 'test',
      description: 'queue a test message (the daemon delivers it; see `notifications log`)',
      options: [
        { flags: '--channel <channel>', description: 'channel', field: 'channel', choices: CHANNELS, required: true },
        {
          flags: '--recipient <to>',
          description: 'e-mail address, webhook URL, chat id, topic, room id or key: see docs/channels.md',
          field: 'recipient',
          required: true,
        },
        { flags: '--subject <text>', description: 'e-mail subject', field: 'subject' },
        {
          flags: '--metadata <json>',
          description: 'object echoed in the test payload',
          field: 'metadata',
          kind: 'json',
        },
      ],
      examples: ['dommon notifications test --channel webhook --recipient https://hooks.example.com/dommon'],
      action: ({ t, body }) => call(t, 'POST', '/api/v1/notifications/test', body),
      text: (r: { id: string; recipient: string; channel: string; status: string }, paint) =>
        `queued test ${r.id} to ${r.recipient} (${r.channel}): ${paint.status(r.status)}`,
    },
    {
      name: 'log',
      description: 'delivery log, newest first',
      options: [
        { flags: '--channel <channel>', description: 'only this channel', field: 'channel', choices: CHANNELS },
        {
          flags: '--status <status>',
          description: 'only this status',
          field: 'status',
          choices: ['success', 'failed', 'partial'],
        },
        ...pageOptions,
      ],
      examples: ['dommon notifications log --status failed --limit 20'],
      action: ({ t, body }) => call(t, 'GET', `/api/v1/notifications/log${qs(body as Record<string, string>)}`),
      text: (rows: (Record<string, unknown> & { channels?: string[] })[], paint) =>
        table(
          rows.map((r) => ({ ...r, channel: r.channels?.[0] })),
          [
            'id',
            'sent_at:SENT',
            'channel',
            'status',
            'recipient',
            'attempts',
            'message_preview:MESSAGE',
            'error_message:ERROR',
          ],
          paint,
        ),
    },
  ],
};
