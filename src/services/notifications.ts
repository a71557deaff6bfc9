// Notification settings (per user), test sends and the delivery log. Secrets are masked on the way out.
import { managedGuard } from './managed.js';
import { Invalid, NotFound, QuotaExceeded, Unprocessable } from '../domain/errors.js';
import { isoNow, type Clock } from '../domain/clock.js';
import type { Principal } from '../domain/types.js';
import type { Store } from '../store/index.js';
import type { Delivery, NotificationSetting } from '../domain/notification.js';

import { CHANNELS, channels, pluginOf, type Channel } from '../channels/index.js';
import type { ChannelPlugin } from '../channels/types.js';
import { mask, MASKED } from '../channels/shared.js';
import type { AuditService } from './audit.js';

export { type Channel };

export interface SettingInput {
  delivery_class: 'instant' | 'digest';
  is_enabled?: boolean;
  frequency_days?: number | null;
  notification_time?: string | null;
  config?: Record<string, unknown>;
  min_severity?: string;
}

export interface TestInput {
  channel: Channel;
  recipient: string;
  subject?: string;
  metadata?: Record<string, unknown>;
}

/** The config with the channel's secret keys masked (an unknown channel: every string value). */
function maskConfig(channel: string, config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  const secrets = pluginOf(channel)?.secrets ?? Object.keys(out);
  for (const k of secrets) if (k in out) out[k] = mask(out[k]);
  return out;
}

function settingJson(s: NotificationSetting) {
  return {
    id: s.id,
    notification_type: s.notification_type,
    delivery_class: s.delivery_class,
    is_enabled: s.is_enabled,
    frequency_days: s.frequency_days,
    notification_time: s.notification_time,
    config: maskConfig(s.notification_type, s.config),
    min_severity: s.min_severity,
    user_id: s.user_id,
    user: s.user_email,
    last_digest_at: s.last_digest_at,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

/**
 * Chat webhook URLs, ntfy topics and incident-service keys are credentials (whoever holds one can post),
 * and one team member's must not reach the rest of the team through the delivery log: each channel
 * says how it shows its recipients (URLs: scheme and host only).
 */
function maskRecipient<T extends string | null>(channel: string, recipient: T): T | string {
  if (recipient === null) return recipient;
  const plugin = pluginOf(channel);
  return plugin?.showRecipient ? plugin.showRecipient(recipient) : recipient;
}

/** A destination value as compared: an absent, null or empty one is the channel's default. */
const destinationOf = (v: unknown): string => (v === undefined || v === null || v === '' ? '' : JSON.stringify(v));

/**
 * A masked secret sent back keeps the stored one, but only to the same destinations: a changed URL,
 * homeserver or server (the plug-in's `destinations`) needs the secret again, or the stored one would
 * travel to a host its owner never chose for it.
 */
function keepMaskedSecrets(
  plugin: ChannelPlugin<unknown>,
  config: Record<string, unknown>,
  cur: NotificationSetting | undefined,
): void {
  const masked = plugin.secrets.filter((k) => typeof config[k] === 'string' && MASKED.test(config[k] as string));
  if (!masked.length) return;
  const fields = masked.map((k) => `config.${k}`).join(' and ');
  if (cur?.unreadable)
    throw new Unprocessable(
      `${fields}: the stored secret cannot be read (${cur.unreadable}); send the real value`,
      'SECRET_REQUIRED',
    );
  for (const k of masked)
    if (!cur?.config[k])
      throw new Invalid(`config.${k}: a masked value can only keep a stored secret; send the real value`);
  const changed = plugin.destinations.filter((k) => destinationOf(config[k]) !== destinationOf(cur!.config[k]));
  if (changed.length)
    throw new Unprocessable(
      `${fields}: config.${changed.join(' and config.')} changed, so the stored secret is not kept; send the real value`,
      'SECRET_REQUIRED',
    );
  for (const k of masked) config[k] = cur!.config[k];
}

/** Test sends a team may queue per rolling hour (POST /api/v1/notifications/test); the next answers 429. */
export const TEST_SENDS_PER_HOUR = 10;
const TEST_SEND_WINDOW_MS = 3_600_000;

/** A delivery as the spec's delivery log entry. */
function logEntryJson(d: Delivery) {
  return {
    id: d.id,
    channels: [d.channel],
    status: d.status === 'queued' ? 'partial' : d.status,
    message_preview: d.message_preview,
    sent_at: d.sent_at ?? d.next_attempt_at,
    error_message: d.error_message,
    metadata: d.metadata,
    recipient: maskRecipient(d.channel, d.recipient),
    attempts: d.attempts,
    event_id: d.event_id,
    is_test: d.is_test,
    created_at: d.created_at,
  };
}

export function createNotificationService({
  store,
  clock,
  audit,
  asConfigFile,
}: {
  store: Store;
  clock: Clock;
  audit?: AuditService;
  asConfigFile?: boolean;
}) {
  const guard = managedGuard(asConfigFile);
  return {
    async listSettings(p: Principal) {
      return (await store.notifications.settingsForUser(p.user_id)).map(settingJson);
    },

    /** Upserts the (type, delivery_class) row of the caller; `config` was validated by the channel's schema. */
    async upsertSetting(p: Principal, type: string, input: SettingInput) {
      const plugin = pluginOf(type);
      if (!plugin) throw new Invalid(`notification type must be one of ${CHANNELS.join(', ')}`, 'INVALID_CHANNEL');
      const channel = type as Channel;
      if (input.delivery_class === 'digest' && plugin.instantOnly) {
        throw new Invalid(
          `${channel} supports instant delivery only; digest rows are not allowed`,
          'DIGEST_NOT_SUPPORTED',
        );
      }
      const cur = await store.notifications.setting(p.user_id, channel, input.delivery_class);
      if (cur) await guard(store, 'channel', cur.id);
      const config = { ...(input.config ?? cur?.config ?? {}) };
      keepMaskedSecrets(plugin, config, cur);
      const problem = plugin.check?.(config);
      if (problem) throw new Invalid(problem);
      // The schema's required keys are checked when the body has a config; an enabled row needs them anyway.
      const required = (plugin.configSchema.required as string[] | undefined) ?? [];
      const missing = required.filter((k) => config[k] === undefined || config[k] === '' || config[k] === null);
      if (missing.length && (input.is_enabled ?? cur?.is_enabled ?? true)) {
        throw new Invalid(
          `config.${missing.join(' and config.')}: ${missing.length > 1 ? 'are' : 'is'} required`,
          'VALIDATION_ERROR',
        );
      }
      const digest = input.delivery_class === 'digest';
      const before = cur && settingJson(cur);
      return store.transaction(async (tx) => {
        await tx.notifications.upsertSetting(
          {
            team_id: p.team_id,
            user_id: p.user_id,
            notification_type: channel,
            delivery_class: input.delivery_class,
            is_enabled: input.is_enabled ?? cur?.is_enabled ?? true,
            frequency_days: digest ? (input.frequency_days ?? cur?.frequency_days ?? 7) : null,
            notification_time: digest ? (input.notification_time ?? cur?.notification_time ?? '09:00:00') : null,
            config,
            min_severity: input.min_severity ?? cur?.min_severity ?? 'medium',
          },
          isoNow(clock),
        );
        const after = settingJson((await tx.notifications.setting(p.user_id, channel, input.delivery_class))!);
        await audit?.record(tx, p.team_id, {
          action: cur ? 'update' : 'create',
          kind: 'channel',
          id: after.id,
          name: `${channel} ${input.delivery_class} (${after.user})`,
          before,
          after,
        });
        return after;
      });
    },

    /** Queues a test message to `recipient`; the worker delivers it and logs it under the same id. */
    async testSend(p: Principal, input: TestInput) {
      const rule = channels[input.channel].test;
      if (!rule.valid(input.recipient))
        throw new Invalid(`recipient: must be ${rule.what} for channel ${input.channel}`);
      let id = '';
      const now = isoNow(clock);
      // A test goes wherever its caller says: a quota per team keeps it from being a mail or webhook relay.
      // Counted and queued in one transaction, so parallel requests cannot slip past it together.
      await store.transaction(async (tx) => {
        const since = new Date(Date.parse(now) - TEST_SEND_WINDOW_MS).toISOString();
        const used = await tx.notifications.testSendsSince(p.team_id, since);
        if (used.n >= TEST_SENDS_PER_HOUR) {
          const retryAfter = Math.max(
            1,
            Math.ceil((Date.parse(used.oldest ?? now) + TEST_SEND_WINDOW_MS - Date.parse(now)) / 1000),
          );
          throw new QuotaExceeded(
            `test send quota used up: ${TEST_SENDS_PER_HOUR} per team per hour; retry in ${retryAfter} s`,
            retryAfter,
            'TEST_SEND_QUOTA',
          );
        }
        // A test send has no event: it never meets another delivery's (event, setting), so it is always added.
        id = (await tx.notifications.addDelivery({
          team_id: p.team_id,
          event_id: null,
          setting_id: null,
          channel: input.channel,
          recipient: input.recipient,
          is_test: true,
          request: { subject: input.subject ?? null, user_id: p.user_id },
          status: 'queued',
          next_attempt_at: now,
          metadata: input.metadata ?? null,
          created_at: now,
          message_preview: `Test notification from dommon${input.subject ? `: ${input.subject}` : ''}`,
        }))!;
        await audit?.record(tx, p.team_id, {
          action: 'test',
          kind: 'channel',
          id,
          name: input.channel,
          after: {
            channel: input.channel,
            recipient: maskRecipient(input.channel, input.recipient),
            subject: input.subject ?? null,
          },
        });
      });
      return { id, channel: input.channel, recipient: input.recipient, status: 'queued' as const, created_at: now };
    },

    async log(p: Principal, q: { channel?: string; status?: string; limit: number; offset: number }) {
      const r = await store.notifications.log(p.team_id, { channel: q.channel, status: q.status }, q.limit, q.offset);
      return { items: r.items.map(logEntryJson), total: r.total };
    },

    async logEntry(p: Principal, id: string) {
      const d = await store.notifications.delivery(id);
      // The entry exists from the first attempt (a queued test send is not in the log yet).
      if (!d || d.team_id !== p.team_id || d.attempts === 0) throw new NotFound('Delivery log entry');
      return { ...logEntryJson(d), attempts_detail: await store.notifications.attempts(id) };
    },
  };
}
