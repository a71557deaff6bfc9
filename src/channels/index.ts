// The channel registry: one plug-in per channel kind, checked by the compiler against CHANNELS.
import type { Channel, Outgoing, SendOutcome } from '../domain/notification.js';
import { email } from './email.js';
import { pushover } from './pushover.js';
import { slack } from './slack.js';
import { teams } from './teams.js';
import type { ChannelPlugin, ChannelSettings, SendContext } from './types.js';
import { webhook } from './webhook.js';

export const channels = {
  email,
  webhook,
  slack,
  pushover,
  teams,
} satisfies Record<Channel, ChannelPlugin<unknown>>;

export type { SendContext } from './types.js';

/** One attempt of `message` on `channel`: render (pure) then send (I/O). Render errors are permanent. */
export async function deliverOnce(
  channel: Channel,
  message: Outgoing,
  settings: ChannelSettings,
  ctx: SendContext,
): Promise<SendOutcome & { preview: string }> {
  const plugin: ChannelPlugin<unknown> = channels[channel];
  let rendered: unknown;
  try {
    rendered = plugin.render(message, settings);
  } catch (err) {
    return { ok: false, status: null, transient: false, error: `${channel}: ${(err as Error).message}`, preview: '' };
  }
  const out = await plugin.send(rendered, ctx);
  return { ...out, preview: plugin.preview(rendered) };
}
