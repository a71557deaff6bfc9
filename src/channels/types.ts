// The shape every channel plug-in shares: a pure render() and an I/O send() of what render() built.
import type { Dispatcher } from 'undici';
import type { SmtpTlsPolicy } from '../config/index.js';
import type { Outgoing, SendOutcome } from '../domain/notification.js';

/** What render() reads from a settings row (test sends build one from the recipient). */
export interface ChannelSettings {
  config: Record<string, unknown>;
}

/** What send() needs from outside: config values and the per-attempt bounds. */
export interface SendContext {
  /** Upper bound of one attempt (the spec's 30 s; tests shorten it through AppOptions). */
  timeoutMs: number;
  /** Aborted when the daemon stops: the attempt is abandoned, not recorded. */
  signal?: AbortSignal;
  smtpUrl: string | null;
  smtpFrom: string;
  smtpTls: SmtpTlsPolicy;
  /** Extra trusted CA certificates (PEM) for the SMTP relay; tests pass their own CA (AppOptions.smtp). */
  smtpCa?: string | string[];
  pushoverUrl: string;
  /** The HTTP client (guarded by DOMMON_OUTBOUND_DENY); default: system resolvers, default policy. */
  dispatcher?: Dispatcher;
}

export interface ChannelPlugin<R> {
  /** Pure: the exact request (or e-mail) this message becomes on this channel. */
  render(message: Outgoing, settings: ChannelSettings): R;
  /** One attempt; never throws for a failing peer (only when ctx.signal aborts). */
  send(rendered: R, ctx: SendContext): Promise<SendOutcome>;
  /** First characters for the delivery log. */
  preview(rendered: R): string;
}

/** A JSON POST: webhook, Slack, Teams and Pushover all render to this. */
export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  /** The exact bytes sent (signatures are computed over them). */
  body: string;
  preview: string;
}

/** Thrown by send() when the daemon is stopping mid-attempt. */
export class AttemptAborted extends Error {
  constructor() {
    super('attempt abandoned: the notification worker is stopping');
  }
}
