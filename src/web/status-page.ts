// Server-rendered HTML of a public status page (and its 404), with no script and no inline style:
// the stylesheet is a file (status-page-css.ts), so the Content-Security-Policy can forbid both.
// Everything shown comes from the PublicStatusPage view, which carries no ids and no internal names.
import type { PublicStatusPage } from '../services/status-pages.js';
import { escapeHtml } from '../domain/html.js';

export const STATUS_PAGE_CSS_PATH = '/status/assets/status-page.css';

const esc = escapeHtml;

const STATUS_TEXT: Record<PublicStatusPage['status'], string> = {
  operational: 'All systems operational',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  unknown: 'Status not known yet',
  maintenance: 'Under maintenance',
};
const STATE_TEXT = { up: 'Up', down: 'Down', unknown: 'Unknown', maintenance: 'Under maintenance' } as const;

const pct = (n: number | null): string => (n === null ? 'no data' : `${n.toFixed(2)} %`);

/** 2026-11-26T08:05:00.000Z -> "2026-11-26 08:05 UTC" inside a <time>. */
const time = (iso: string): string =>
  `<time datetime="${esc(iso)}">${esc(iso.slice(0, 16).replace('T', ' '))} UTC</time>`;

function duration(s: number): string {
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

const barClass = (u: number | null): string =>
  u === null ? 'u-none' : u >= 99.5 ? 'u-full' : u >= 95 ? 'u-high' : 'u-low';

/**
 * How often an open status page reloads itself: a meta refresh (the page runs no script). The reload
 * is a conditional request, a 304 while nothing changed (the answer is kept 10 s anyway).
 */
const STATUS_PAGE_REFRESH_SECONDS = 60;

function shell(title: string, body: string, refresh?: number): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">${refresh ? `\n<meta http-equiv="refresh" content="${refresh}">` : ''}
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>${esc(title)}</title>
<link rel="stylesheet" href="${STATUS_PAGE_CSS_PATH}">
</head>
<body>
<div class="wrap">
${body}
</div>
</body>
</html>
`;
}

/** Days under this share of successful checks are named in the bars' text alternative. */
const NAMED_BELOW = 99.5;
const NAMED_DAYS = 10;

function endpointHtml(e: PublicStatusPage['endpoints'][number], i: number): string {
  const id = `ep-${i + 1}`;
  // One element with one text alternative for screen readers (role="img": 90 bars are one picture),
  // and a tooltip per bar for pointer users.
  const bars = e.days
    .map((d) => `<span class="${barClass(d.uptime)}" title="${d.date}: ${pct(d.uptime)}"></span>`)
    .join('');
  const low = e.days.filter((d) => d.uptime !== null && d.uptime < NAMED_BELOW);
  const named = low
    .slice(-NAMED_DAYS)
    .map((d) => `${d.date} ${pct(d.uptime)}`)
    .join(', ');
  const summary =
    `Daily uptime of ${e.name}, last ${e.days.length} days: ${pct(e.uptime_90d)}. ` +
    (low.length
      ? `${low.length} day(s) under ${NAMED_BELOW} %${low.length > NAMED_DAYS ? `, the latest ${NAMED_DAYS}` : ''}: ${named}.`
      : `No day under ${NAMED_BELOW} %.`);
  const cert = e.certificate
    ? `<span>Certificate: ${
        e.certificate.days_left < 0
          ? `expired ${-e.certificate.days_left} day(s) ago`
          : `${e.certificate.days_left} day(s) left`
      } (expires <time datetime="${esc(e.certificate.expires_on)}">${esc(e.certificate.expires_on)}</time>)</span>`
    : '';
  return `<article class="endpoint" aria-labelledby="${id}">
<h3 id="${id}"><span>${esc(e.name)}</span> <span class="state ${e.status}">${STATE_TEXT[e.status]}</span></h3>
<div class="bars" role="img" aria-label="${esc(summary)}">${bars}</div>
<p class="meta"><span>${e.days.length} days: ${pct(e.uptime_90d)} uptime</span>${cert}</p>
</article>`;
}

function incidentHtml(i: PublicStatusPage['incidents'][number]): string {
  const start = i.started_at ? time(i.started_at) : 'before the last 90 days';
  const end = i.resolved_at
    ? `resolved ${time(i.resolved_at)}${i.duration_seconds !== null ? ` (down ${duration(i.duration_seconds)})` : ''}`
    : '<span class="ongoing">ongoing</span>';
  return `<li><strong>${esc(i.endpoint)}</strong> down from ${start}, ${end}</li>`;
}

export function statusPageHtml(v: PublicStatusPage): string {
  const endpoints = v.endpoints.length
    ? v.endpoints.map(endpointHtml).join('\n')
    : '<p>No endpoints are shown on this page.</p>';
  const incidents = v.incidents.length
    ? `<ul class="incidents">${v.incidents.map(incidentHtml).join('')}</ul>`
    : '<p>No incidents in the last 90 days.</p>';
  return shell(
    v.title,
    `<header>
<h1>${esc(v.title)}</h1>
${v.description ? `<p>${esc(v.description)}</p>` : ''}
</header>
<main>
<p class="summary ${v.status}" role="status">${STATUS_TEXT[v.status]}</p>
<section aria-labelledby="h-endpoints">
<h2 id="h-endpoints">Endpoints</h2>
${endpoints}
</section>
<section aria-labelledby="h-incidents">
<h2 id="h-incidents">Incidents</h2>
${incidents}
</section>
</main>
<footer>
<p>Updated ${time(v.generated_at)}; this page reloads itself every minute. Uptime is the share of successful checks per UTC day. Monitored by dommon.</p>
</footer>`,
    STATUS_PAGE_REFRESH_SECONDS,
  );
}

export function statusPageNotFoundHtml(): string {
  return shell(
    'Status page not found',
    `<header><h1>Status page not found</h1></header>
<main><p>There is no status page at this address.</p></main>`,
  );
}
