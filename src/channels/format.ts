// Pure text helpers the renderers share: headline of an event, its target, the digest listing.
import { digestItemCount, type Outgoing, type OutgoingDigest, type OutgoingEvent } from '../domain/notification.js';

const LABELS: Record<string, string> = {
  whois: 'Domain expiry (WHOIS)',
  domain_expiry: 'Domain renewal',
  ssl: 'SSL certificate',
  ssl_expiry: 'SSL certificate expiry',
  liveness: 'Liveness',
  exposure: 'Exposure finding',
  exposure_resolved: 'Exposure finding resolved',
  registration: 'Registration change',
  delegation: 'Nameserver change at the parent zone',
  test: 'Test notification',
};

function eventLabel(eventType: string): string {
  return LABELS[eventType] ?? eventType.replace(/_/g, ' ');
}

/** `api (example.com)`, `example.com` or null. */
export function eventTarget(e: OutgoingEvent): string | null {
  if (e.endpoint_name && e.domain) return `${e.endpoint_name} (${e.domain})`;
  return e.endpoint_name ?? e.domain ?? null;
}

/** `[HIGH] Exposure finding: example.com`. */
export function headline(e: OutgoingEvent): string {
  const target = eventTarget(e);
  return `[${e.severity.toUpperCase()}] ${eventLabel(e.event_type)}${target ? `: ${target}` : ''}`;
}

/** The labelled facts of an event, in the order every channel shows them; empty ones left out. */
export function eventFacts(e: OutgoingEvent, include: { team?: boolean; time?: boolean } = {}): [string, string][] {
  const facts: [string, string | null | undefined][] = [
    ['Event', eventLabel(e.event_type)],
    ['Severity', e.severity],
    ['Domain', e.domain],
    ['Endpoint', e.endpoint_name],
    ['Category', e.category],
    ...(include.team ? [['Team', e.team] as [string, string]] : []),
    ...(include.time ? [['Time', e.timestamp] as [string, string]] : []),
  ];
  return facts.filter((f): f is [string, string] => typeof f[1] === 'string' && f[1] !== '');
}

export function digestTitle(d: OutgoingDigest): string {
  const n = digestItemCount(d);
  return `dommon digest for ${d.team}: ${n} item${n === 1 ? '' : 's'}`;
}

export function portfolioName(p: string | null): string {
  return p ?? 'No portfolio';
}

/** One line per digest item: `[HIGH] Exposure finding: example.com: message`. */
export function digestLine(e: OutgoingEvent): string {
  return `${headline(e)} - ${e.message}`;
}

export function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, Math.max(0, max - 1))}…`;
}

/** Slack mrkdwn needs only &, < and > escaped. */
export function escapeSlack(s: string): string {
  return s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

/** The title and plain-text body every text-only channel shows (ntfy, Google Chat, Telegram before markup). */
export function plainText(m: Outgoing): { title: string; body: string } {
  if (m.kind === 'digest') {
    return {
      title: digestTitle(m),
      body: [
        `${m.from} to ${m.to}`,
        ...m.groups.flatMap((g) => [
          '',
          `${portfolioName(g.portfolio)}:`,
          ...g.items.map((it) => `- ${digestLine(it)}`),
        ]),
      ].join('\n'),
    };
  }
  return {
    title: headline(m),
    body: [m.message, '', ...eventFacts(m, { team: true, time: true }).map(([k, v]) => `${k}: ${v}`)].join('\n'),
  };
}

/** `**Bold**`-style Markdown (Mattermost, Discord) of a message, with `*`, `_`, `` ` `` and `~` escaped in our values. */
export function escapeMarkdown(s: string): string {
  return s.replace(/([\\*_`~|>#[\]])/g, '\\$1');
}
