// Notifications: the team's channels (set up and edited with forms made from the channel registry's
// schemas, secrets masked), a test send to any channel with its outcome once the daemon has sent it,
// and the delivery log with its filters.
import { useEffect, useState } from 'preact/hooks';
import { api, get } from '../api.js';
import { usePoll } from '../hooks.js';
import type { LogEntry } from '../types.js';
import {
  ActionsHead,
  Badge,
  ChangeButton,
  Choice,
  ManagedBadge,
  Message,
  Section,
  Show,
  Table,
  fmtTime,
  type Managed,
} from '../ui.js';
import { Write } from '../scope.js';
import {
  type Defs,
  type Schema,
  Fields,
  channelKinds,
  initial,
  resolve,
  useSchemaSubmit,
  useSchemas,
} from '../schema-form.js';

interface Setting extends Managed {
  id: string;
  notification_type: string;
  delivery_class: string;
  is_enabled: boolean;
  frequency_days: number | null;
  notification_time: string | null;
  min_severity?: string;
  config: Record<string, unknown>;
}

interface Attempt {
  attempt: number;
  at: string;
  outcome: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
}

type Filter = { channel: string; status: string };

async function load(f: Filter) {
  const q = new URLSearchParams({ limit: '50' });
  if (f.channel) q.set('channel', f.channel);
  if (f.status) q.set('status', f.status);
  const [settings, log] = await Promise.all([
    get<Setting[]>('/api/v1/notifications/settings'),
    get<LogEntry[]>(`/api/v1/notifications/log?${q}`),
  ]);
  return { settings, log };
}

type Obj = Record<string, unknown>;

/** Set up (or change) a channel: the setting's fields and the channel's own config. */
function ChannelForm({ defs, edit, done }: { defs: Defs; edit?: Setting; done: () => void }) {
  const kinds = channelKinds(defs);
  const [kind, setKind] = useState(edit?.notification_type ?? kinds[0] ?? '');
  const setting = defs['notification-setting']!;
  const [value, setValue] = useState<Obj>(() =>
    initial(
      setting,
      defs,
      edit
        ? {
            delivery_class: edit.delivery_class,
            is_enabled: edit.is_enabled,
            ...(edit.frequency_days !== null ? { frequency_days: edit.frequency_days } : {}),
            ...(edit.notification_time !== null ? { notification_time: edit.notification_time } : {}),
            ...(edit.min_severity ? { min_severity: edit.min_severity } : {}),
          }
        : { is_enabled: true },
    ),
  );
  const [config, setConfig] = useState<Obj>(edit?.config ?? {});
  const { errors, msg, onSubmit, form, busy } = useSchemaSubmit(async () => {
    await api('PUT', `/api/v1/notifications/settings/${kind}`, { ...value, config });
    return `Saved the ${kind} channel.`;
  });
  const configSchema: Schema | undefined = defs[`channels/${kind}`];
  return (
    <form
      ref={form}
      class="stack schema"
      noValidate
      onSubmit={onSubmit}
      aria-label={edit ? `Edit the ${edit.notification_type} channel` : 'Set up a channel'}
    >
      {edit ? (
        <p>
          Channel <strong>{kind}</strong>
        </p>
      ) : (
        <Choice
          label="Channel"
          name="channel"
          value={kind}
          set={(k) => {
            setKind(k);
            setConfig({});
          }}
          options={kinds}
        />
      )}
      {configSchema?.description && <p class="muted">{configSchema.description}</p>}
      <fieldset class="field nested">
        <legend>{resolve(configSchema ?? {}, defs).title ?? `${kind} settings`}</legend>
        <Fields
          key={kind}
          schema={configSchema ?? {}}
          defs={defs}
          value={config}
          onChange={setConfig}
          errors={errors}
          path="config"
        />
      </fieldset>
      <Fields schema={setting} defs={defs} value={value} onChange={setValue} errors={errors} omit={['config']} />
      <p>
        <button type="submit" disabled={busy}>
          {edit ? 'Save channel' : 'Add channel'}
        </button>{' '}
        <button type="button" onClick={done}>
          Close
        </button>
      </p>
      <Message msg={msg} />
    </form>
  );
}

/** A delivery's outcome in words: sent (with the receiver's status), failed and why, or still waiting. */
function Outcome({ entry }: { entry: (LogEntry & { attempts_detail: Attempt[] }) | 'waiting' }) {
  if (entry === 'waiting')
    return (
      <p role="status" data-testid="test-outcome">
        Queued: waiting for the daemon to send it…
      </p>
    );
  const last = entry.attempts_detail.at(-1);
  return (
    <p role="status" data-testid="test-outcome">
      <Badge value={entry.status === 'success' ? 'sent' : entry.status} />{' '}
      {entry.status === 'success' ? 'Sent' : 'Not sent'}
      {last?.status_code ? `: the receiver answered ${last.status_code}` : ''}
      {last?.duration_ms !== null && last?.duration_ms !== undefined ? ` in ${last.duration_ms} ms` : ''}
      {entry.error_message ? ` — ${entry.error_message}` : ''}
      {` (attempt ${entry.attempts_detail.length})`}.
    </p>
  );
}

/** A test send to any channel and recipient, then its outcome once the notification worker sent it. */
function TestSend({ defs, channel, setChannel }: { defs: Defs; channel: string; setChannel: (c: string) => void }) {
  const [recipient, setRecipient] = useState('');
  const [sent, setSent] = useState<string>();
  const [entry, setEntry] = useState<(LogEntry & { attempts_detail: Attempt[] }) | 'waiting'>();
  const [failure, setFailure] = useState('');
  const { errors, msg, onSubmit, form, busy } = useSchemaSubmit(async () => {
    const r = await api<{ id: string }>('POST', '/api/v1/notifications/test', { channel, recipient: recipient.trim() });
    setEntry('waiting');
    setFailure('');
    setSent(r.id);
    return undefined;
  });
  // The log lists a delivery from its first attempt (DOMMON_NOTIFY_INTERVAL, 5 s by default): the
  // channel's latest entries are read every second until this one is there with an outcome, for a
  // minute at most; then its detail gives the receiver's answer.
  useEffect(() => {
    if (!sent) return;
    let stop = false;
    const started = Date.now();
    const poll = async () => {
      while (!stop && Date.now() - started < 60_000) {
        const log = await get<LogEntry[]>(`/api/v1/notifications/log?channel=${channel}&limit=20`);
        const mine = log.find((l) => l.id === sent);
        if (stop) return;
        if (mine && mine.status !== 'pending' && mine.status !== 'queued') {
          setEntry(await get<LogEntry & { attempts_detail: Attempt[] }>(`/api/v1/notifications/log/${sent}`));
          return;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    poll().catch((err: unknown) => {
      setEntry(undefined);
      setFailure(err instanceof Error ? err.message : String(err));
    });
    return () => {
      stop = true;
    };
  }, [sent]);
  const recipientError = errors.recipient;
  return (
    <form ref={form} class="inline" noValidate onSubmit={onSubmit} aria-label="Send a test notification">
      <Choice label="Channel" value={channel} set={setChannel} options={channelKinds(defs)} />
      <label>
        Recipient
        <input
          id="test-recipient"
          required
          value={recipient}
          placeholder="address, URL or id"
          aria-invalid={recipientError ? 'true' : undefined}
          onInput={(e) => setRecipient(e.currentTarget.value)}
        />
        {recipientError && <small class="field-error">{recipientError}</small>}
      </label>
      <button type="submit" disabled={busy}>
        Send test
      </button>
      <Message msg={msg} />
      {entry && <Outcome entry={entry} />}
      {failure && (
        <p class="error" role="alert">
          Could not read the outcome: {failure}
        </p>
      )}
    </form>
  );
}

/** The first URL or address of a channel's config: where a test of that channel would go. */
function destinationOf(s: Setting, defs: Defs): string {
  const props = resolve(defs[`channels/${s.notification_type}`] ?? {}, defs).properties ?? {};
  for (const [k, p] of Object.entries(props)) {
    const v = s.config[k];
    if (p.format === 'uri' && typeof v === 'string' && !v.startsWith('********')) return v;
    if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  }
  return '';
}

export function Notifications() {
  const [filter, setFilter] = useState<Filter>({ channel: '', status: '' });
  const s = usePoll(() => load(filter), `notifications:${filter.channel}:${filter.status}`);
  const defs = useSchemas();
  const [channel, setChannel] = useState('email');
  const [editing, setEditing] = useState<string>();
  const [adding, setAdding] = useState(false);
  const logSchema = defs ? resolve(defs['notification-log'] ?? {}, defs).properties : undefined;
  const opts = (k: string) => [
    ['', 'any'] as const,
    ...(logSchema?.[k]?.enum ?? []).map((x) => [String(x), String(x)] as const),
  ];
  return (
    <>
      <h1>Notifications</h1>
      <Show s={s}>
        {(d) => (
          <Section title="Channels">
            {d.settings.length === 0 ? (
              <p class="muted" data-testid="empty">
                No channel is set up yet: nobody hears of an outage. Add one below (a webhook, Slack, email…), then send
                it a test.
              </p>
            ) : (
              <Table
                testid="channels-table"
                head={['Channel', 'Delivery', 'State', 'Settings', <ActionsHead key="a" />]}
              >
                {d.settings.map((x) => (
                  <tr key={x.id}>
                    <td>
                      <strong>{x.notification_type}</strong> <ManagedBadge of={x} />
                    </td>
                    <td>{x.delivery_class}</td>
                    <td>
                      <Badge value={x.is_enabled ? 'active' : 'disabled'} />
                    </td>
                    <td class="muted">
                      {Object.entries(x.config)
                        .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
                        .join('; ') || '—'}
                    </td>
                    <td>
                      <Write owner>
                        <ChangeButton of={x} class="small" onClick={() => setEditing(x.id)}>
                          Edit
                        </ChangeButton>{' '}
                        <button
                          type="button"
                          class="small"
                          onClick={() => {
                            setChannel(x.notification_type);
                            const input = document.getElementById('test-recipient') as HTMLInputElement | null;
                            if (input && defs && !input.value) {
                              input.value = destinationOf(x, defs);
                              input.dispatchEvent(new Event('input', { bubbles: true }));
                            }
                            input?.focus();
                          }}
                        >
                          Test…
                        </button>
                      </Write>
                    </td>
                  </tr>
                ))}
              </Table>
            )}
            <Write owner>
              {defs && editing && d.settings.some((x) => x.id === editing) && (
                <>
                  <h3>Edit</h3>
                  <ChannelForm
                    key={editing}
                    defs={defs}
                    edit={d.settings.find((x) => x.id === editing)}
                    done={() => setEditing(undefined)}
                  />
                </>
              )}
              {defs && !editing && (
                <>
                  {adding ? (
                    <>
                      <h3>Add a channel</h3>
                      <ChannelForm defs={defs} done={() => setAdding(false)} />
                    </>
                  ) : (
                    <p>
                      <button type="button" onClick={() => setAdding(true)}>
                        Add a channel…
                      </button>
                    </p>
                  )}
                </>
              )}
            </Write>
          </Section>
        )}
      </Show>
      <Write owner>
        <Section title="Test send">
          {defs ? <TestSend defs={defs} channel={channel} setChannel={setChannel} /> : <p class="muted">Loading…</p>}
        </Section>
      </Write>
      <Show s={s}>
        {(d) => (
          <Section title="Delivery log">
            <div class="log-filter" role="group" aria-label="Filter the delivery log">
              <Choice
                label="Channel"
                name="log-channel"
                value={filter.channel}
                set={(channel) => setFilter({ ...filter, channel })}
                options={opts('channel')}
              />
              <Choice
                label="Outcome"
                name="log-status"
                value={filter.status}
                set={(status) => setFilter({ ...filter, status })}
                options={opts('status')}
              />
            </div>
            {d.log.length === 0 ? (
              <p class="muted" data-testid="empty">
                {filter.channel || filter.status
                  ? 'Nothing sent matches these filters.'
                  : 'Nothing sent yet. A test send above shows here once the daemon has sent it.'}
              </p>
            ) : (
              <Table testid="delivery-log" head={['When', 'Channel', 'Status', 'Recipient', 'Message']}>
                {d.log.map((l) => (
                  <tr key={l.id}>
                    <td>{fmtTime(l.created_at)}</td>
                    <td>{l.channels.join(', ')}</td>
                    <td>
                      <Badge value={l.status} /> {l.is_test ? 'test' : ''}
                    </td>
                    <td>{l.recipient}</td>
                    <td>{l.error_message ?? l.message_preview ?? ''}</td>
                  </tr>
                ))}
              </Table>
            )}
          </Section>
        )}
      </Show>
    </>
  );
}
