// Flat SVG badges (the shields.io look) for the endpoints of public status pages: a grey label and a
// coloured message. Every text is XML-escaped; widths are estimated from the characters (Verdana 11
// px averages about 7 px a character), so no font metrics are read. docs/status-pages.md#badges.
import type { PublicBadge } from '../services/status-pages.js';
import { escapeHtml } from '../domain/html.js';

type BadgeColor = 'green' | 'yellow' | 'red' | 'blue' | 'grey';

const FILL: Record<BadgeColor, string> = {
  green: '#4c1',
  yellow: '#dfb317',
  red: '#e05d44',
  blue: '#007ec6',
  grey: '#9f9f9f',
};

// SVG is XML: the numeric reference for ' that escapeHtml writes is valid there too.
const esc = escapeHtml;

/** Width in px of `text` plus its padding (counted in code points, so surrogate pairs count once). */
const widthOf = (text: string): number => [...text].length * 7 + 10;

/** Label and message longer than this are cut (with an ellipsis) so a badge stays a badge. */
const MAX_TEXT = 64;
const cut = (s: string): string => ([...s].length > MAX_TEXT ? `${[...s].slice(0, MAX_TEXT - 1).join('')}…` : s);

export function badgeSvg(label: string, message: string, color: BadgeColor): string {
  const l = cut(label);
  const m = cut(message);
  const lw = widthOf(l);
  const mw = widthOf(m);
  const w = lw + mw;
  const title = esc(`${l}: ${m}`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    `<rect width="${lw}" height="20" fill="#555"/>` +
    `<rect x="${lw}" width="${mw}" height="20" fill="${FILL[color]}"/>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${lw / 2}" y="14">${esc(l)}</text>` +
    `<text x="${lw + mw / 2}" y="14">${esc(m)}</text>` +
    `</g></svg>`
  );
}

const STATUS_COLOR: Record<PublicBadge['status'], BadgeColor> = {
  up: 'green',
  down: 'red',
  maintenance: 'blue',
  unknown: 'grey',
};

const uptimeBadge = (label: string, v: number | null): [string, string, BadgeColor] =>
  v === null ? [label, 'n/a', 'grey'] : [label, `${v}%`, v >= 99 ? 'green' : v >= 95 ? 'yellow' : 'red'];

/** Each kind of badge: its label, message and colour from the endpoint's public figures. */
export const BADGES: Record<string, (b: PublicBadge) => [string, string, BadgeColor]> = {
  status: (b) => [b.name, b.status, STATUS_COLOR[b.status]],
  'uptime-24h': (b) => uptimeBadge('uptime 24h', b.uptime_24h),
  'uptime-7d': (b) => uptimeBadge('uptime 7d', b.uptime_7d),
  'uptime-30d': (b) => uptimeBadge('uptime 30d', b.uptime_30d),
  'response-time': ({ response_time_ms: ms }) =>
    ms === null
      ? ['response time', 'n/a', 'grey']
      : ['response time', `${ms} ms`, ms < 500 ? 'green' : ms < 2000 ? 'yellow' : 'red'],
  certificate: ({ certificate_days_left: d }) =>
    d === null
      ? ['certificate', 'n/a', 'grey']
      : d < 0
        ? ['certificate', 'expired', 'red']
        : ['certificate', `${d} day${d === 1 ? '' : 's'} left`, d >= 30 ? 'green' : d >= 7 ? 'yellow' : 'red'],
};
/** The kinds, in the order the docs list them. */
export const BADGE_KINDS = Object.keys(BADGES);
