// The channel registry, the only list of channel kinds: the API's enums (schemas/), the OpenAPI
// document, the CLI's choices and docs/channels.md are all generated from it (npm run build).
import type { Outgoing, SendOutcome } from '../domain/notification.js';
import { discord } from './discord.js';
import { email } from './email.js';
import { googlechat } from './googlechat.js';
import { matrix } from './matrix.js';
import { mattermost } from './mattermost.js';
import { ntfy } from './ntfy.js';
import { opsgenie } from './opsgenie.js';
import { pagerduty } from './pagerduty.js';
import { pushover } from './pushover.js';
import { slack } from './slack.js';
import { teams } from './teams.js';
import { telegram } from './telegram.js';
import type { ChannelPlugin, ChannelSettings, SendContext } from './types.js';
import { webhook } from './webhook.js';

/** One line per channel; the key is the channel kind (`notification_type`). Order is the docs' order. */
export const channels = {
  email,
  webhook,
  slack,
  pushover,
  teams,
  discord,
  telegram,
  ntfy,
  googlechat,
  mattermost,
  matrix,
  pagerduty,
  opsgenie,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each plug-in has its own rendered type; the map only checks the shape
} satisfies Record<string, ChannelPlugin<any>>;

export type Channel = keyof typeof channels;
export const CHANNELS = Object.keys(channels) as Channel[];

function isChannel(kind: string): kind is Channel {
  return Object.prototype.hasOwnProperty.call(channels, kind);
}

/** The plug-in of a kind, or undefined for a kind the registry does not know (e.g. an old row). */
export function pluginOf(kind: string): ChannelPlugin<unknown> | undefined {
  return isChannel(kind) ? (channels[kind] as ChannelPlugin<unknown>) : undefined;
}

export type { SendContext } from './types.js';

/** One attempt of `message` on `channel`: render (pure) then send (I/O). Render errors are permanent. */
export async function deliverOnce(
  channel: string,
  message: Outgoing,
  settings: ChannelSettings,
  ctx: SendContext,
): Promise<SendOutcome & { preview: string }> {
  const plugin = pluginOf(channel);
  if (!plugin) return { ok: false, status: null, transient: false, error: `unknown channel ${channel}`, preview: '' };
  let rendered: unknown;
  try {
    rendered = plugin.render(message, settings);
  } catch (err) {
    return { ok: false, status: null, transient: false, error: `${channel}: ${(err as Error).message}`, preview: '' };
  }
  const out = await plugin.send(rendered, ctx);
  return { ...out, preview: plugin.preview(rendered) };
}
