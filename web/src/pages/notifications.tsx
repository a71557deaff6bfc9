// Notifications: the channel settings (secrets come masked from the API), a test send per channel, and
// the delivery log.
import { useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { refreshAll, usePoll } from '../hooks.js';
import type { LogEntry } from '../types.js';
import { Badge, Choice, Field, Message, Section, Show, Table, fmtTime, useSubmit } from '../ui.js';
import { Write } from '../scope.js';

interface Setting {
  id: string;
  notification_type: string;
  delivery_class: string;
  is_enabled: boolean;
  min_severity?: string;
}

const CHANNELS = [
  'email',
  'webhook',
  'slack',
  'pushover',
  'teams',
  'discord',
  'telegram',
  'ntfy',
  'googlechat',
  'mattermost',
  'matrix',
  'pagerduty',
  'opsgenie',
];

async function load() {
  const [settings, log] = await Promise.all([
    get<Setting[]>('/api/v1/notifications/settings'),
    get<LogEntry[]>('/api/v1/notifications/log?limit=50'),
  ]);
  return { settings, log };
}

function TestSend({ channel, setChannel }: { channel: string; setChannel: (c: string) => void }) {
  const [recipient, setRecipient] = useState('');
  const { msg, onSubmit } = useSubmit(async () => {
    await api('POST', '/api/v1/notifications/test', { channel, recipient: recipient.trim() });
    // The notification worker picks it up on its next cycle (DOMMON_NOTIFY_INTERVAL, 5 s by default).
    for (const ms of [2_000, 6_000, 12_000]) setTimeout(refreshAll, ms);
    return 'Queued: the daemon sends it within seconds, then the log below shows it.';
  });
  return (
    <form class="inline" onSubmit={onSubmit} aria-label="Send a test notification">
      <Choice label="Channel" value={channel} set={setChannel} options={CHANNELS} />
      <Field
        label="Recipient"
        id="test-recipient"
        required
        value={recipient}
        set={setRecipient}
        placeholder="address, URL or id"
      />
      <button type="submit">Send test</button>
      <Message msg={msg} />
    </form>
  );
}

export function Notifications() {
  const s = usePoll(load, 'notifications');
  const [channel, setChannel] = useState('email');
  return (
    <>
      <Write>
        <Section title="Test send">
          <TestSend channel={channel} setChannel={setChannel} />
        </Section>
      </Write>
      <Show s={s}>
        {(d) => (
          <>
            <Section title="Channel settings">
              {d.settings.length === 0 ? (
                <p class="muted">
                  No channel is set up: <code>dommon notifications set CHANNEL</code> sets one.
                </p>
              ) : (
                <ul>
                  {d.settings.map((x) => (
                    <li key={x.id}>
                      <strong>{x.notification_type}</strong> ({x.delivery_class}){' '}
                      <Badge value={x.is_enabled ? 'active' : 'disabled'} />{' '}
                      <Write>
                        <button
                          type="button"
                          class="small"
                          onClick={() => {
                            setChannel(x.notification_type);
                            document.getElementById('test-recipient')?.focus();
                          }}
                        >
                          Test…
                        </button>
                      </Write>
                    </li>
                  ))}
                </ul>
              )}
            </Section>
            <Section title="Delivery log">
              {d.log.length === 0 && <p class="muted">Nothing sent yet.</p>}
              <Table head={['When', 'Channel', 'Status', 'Message']}>
                {d.log.map((l) => (
                  <tr key={l.id}>
                    <td>{fmtTime(l.created_at)}</td>
                    <td>{l.channels.join(', ')}</td>
                    <td>
                      <Badge value={l.status} /> {l.is_test ? 'test' : ''}
                    </td>
                    <td>{l.error_message ?? l.message_preview ?? ''}</td>
                  </tr>
                ))}
              </Table>
            </Section>
          </>
        )}
      </Show>
    </>
  );
}
