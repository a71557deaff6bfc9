// The shape every channel plug-in shares: a pure render() and an I/O send() of what render() built.
import type { DispatcherSource } from '../net/dispatcher.js';
import type { ChannelUrls, SmtpTlsPolicy } from '../config/index.js';
import type { Outgoing, SendOutcome } from '../domain/notification.js';

/** What render() reads from a settings row (test sends build one from the recipient). */
export interface ChannelSettings {
  config: Record<string, unknown>;
  /** The delivery's id, the same on every attempt (webhook: the X-Dommon-Delivery header). */
  deliveryId?: string;
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
  /** Provider API bases (DOMMON_PUSHOVER_URL, DOMMON_TELEGRAM_URL, ...: config CHANNEL_URLS). */
  urls: ChannelUrls;
  /** The HTTP client (guarded by DOMMON_OUTBOUND_DENY); default: system resolvers, default policy. */
  dispatcher?: DispatcherSource;
}

/** A JSON Schema object (draft-07 subset, as in schemas/). */
export type JsonSchema = Record<string, unknown>;

export interface ChannelPlugin<R> {
  /** Display name (docs, CLI help). */
  title: string;
  /** The provider request, one line (the docs table). */
  api: string;
  /** JSON Schema of the settings row's `config`; `npm run build` writes it to schemas/channels/<kind>.json. */
  configSchema: JsonSchema;
  /** A valid config (docs/channels.md shows it; the registry test validates it against configSchema). */
  example: Record<string, unknown>;
  /** What else a user should know, Markdown (docs/channels.md). */
  notes?: string;
  /** Config keys holding secrets: masked on read (`********` + last 4), never logged. */
  secrets: readonly string[];
  /**
   * Config keys that choose the server a request (and so its secrets) goes to: a URL, a homeserver.
   * A masked secret is kept only while every one of them is unchanged (otherwise SECRET_REQUIRED).
   * Every `format: uri` property must be listed (test/channels/registry.test.ts).
   */
  destinations: readonly string[];
  /**
   * Config keys that are credentials though the API shows them to their owner in full (an incoming-webhook
   * URL: whoever holds it can post). The configuration file's schema marks them `writeOnly` with the
   * secrets, and `dommon export` writes both as `${NAME}` references, never the value.
   */
  credentials?: readonly string[];
  /** Cannot send digests: a digest settings row is a 400. */
  instantOnly?: boolean;
  /** Checks beyond the schema on the stored config (e.g. a template parses): a message, or null. */
  check?(config: Record<string, unknown>): string | null;
  /** The delivery log's recipient of a settings row; null when there is none worth showing. */
  recipient(config: Record<string, unknown>, userEmail: string): string | null;
  /** How the team-wide delivery log shows a recipient (credentials cut); default as stored. */
  showRecipient?(recipient: string): string;
  /** Test sends (POST /notifications/test): what `recipient` is, and the config a test to it uses. */
  test: {
    what: string;
    valid(recipient: string): boolean;
    /** `own` is the caller's instant row of this channel (its stored secrets), if any. */
    config(recipient: string, own: Record<string, unknown> | undefined): Record<string, unknown> | { error: string };
  };
  /** Pure: the exact request (or e-mail) this message becomes on this channel. */
  render(message: Outgoing, settings: ChannelSettings): R;
  /** One attempt; never throws for a failing peer (only when ctx.signal aborts). */
  send(rendered: R, ctx: SendContext): Promise<SendOutcome>;
  /** First characters for the delivery log. */
  preview(rendered: R): string;
}

/** One JSON request: every HTTP channel renders to this (or to a list of them). */
export interface HttpRequest {
  /** Default POST (Matrix sends with PUT). */
  method?: 'POST' | 'PUT';
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
