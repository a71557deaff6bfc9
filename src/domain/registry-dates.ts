// The date forms registries print, read as UTC without guessing: numeric day/month forms are read
// in the order the registry is known to use (MONTH_FIRST_TLDS), zones are converted, no Date.parse.

/**
 * Registries that write numeric dates month first (Freenom's .tk/.ml/.ga/.cf/.gq: "12/18/2001");
 * every other registry seen writes them day first (.fi "4.7.2014", .il "31-05-2026").
 */
const MONTH_FIRST_TLDS: ReadonlySet<string> = new Set(['tk', 'ml', 'ga', 'cf', 'gq']);

type DateOrder = 'dmy' | 'mdy';

export function dateOrderFor(tld: string): DateOrder {
  return MONTH_FIRST_TLDS.has(tld.toLowerCase()) ? 'mdy' : 'dmy';
}

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
  // Spanish, Portuguese, French, German, Dutch and Italian abbreviations that differ.
  ene: 1,
  fev: 2,
  fév: 2,
  abr: 4,
  avr: 4,
  mai: 5,
  mei: 5,
  mag: 5,
  giu: 6,
  juin: 6,
  juil: 7,
  lug: 7,
  ago: 8,
  aoû: 8,
  set: 9,
  okt: 10,
  ott: 10,
  out: 10,
  dic: 12,
  dez: 12,
  déc: 12,
};

/** Zone abbreviations registries print, in minutes east of UTC. */
const ZONES: Record<string, number> = {
  utc: 0,
  gmt: 0,
  z: 0,
  ut: 0,
  wet: 0,
  west: 60,
  bst: 60,
  cet: 60,
  cest: 120,
  met: 60,
  mest: 120,
  eet: 120,
  eest: 180,
  msk: 180,
  eat: 180,
  cat: 120,
  wat: 60,
  sast: 120,
  ist: 330,
  pkt: 300,
  ict: 420,
  wib: 420,
  hkt: 480,
  sgt: 480,
  myt: 480,
  awst: 480,
  jst: 540,
  kst: 540,
  aest: 600,
  aedt: 660,
  nzst: 720,
  nzdt: 780,
  clt: -240,
  clst: -180,
  art: -180,
  brt: -180,
  est: -300,
  edt: -240,
  pst: -480,
  pdt: -420,
  mst: -420,
  mdt: -360,
};

function ymd(y: number, m: number, d: number): { y: number; m: number; d: number } | null {
  if (y < 1970 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCMonth() === m - 1 ? { y, m, d } : null;
}

function month(word: string): number | undefined {
  return MONTHS[word.toLowerCase().slice(0, 4)] ?? MONTHS[word.toLowerCase().slice(0, 3)];
}

/**
 * A registry date, read as a UTC calendar day (YYYY-MM-DD) and, when the registry printed a time
 * and a zone, converted to UTC. Numeric day/month forms are read in `order`; nothing is guessed.
 */
function parseWhoisDateTime(
  raw: string | null | undefined,
  order: DateOrder = 'dmy',
): { date: string; time: string | null } | null {
  if (!raw) return null;
  let s = raw.trim().replace(/^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+/i, '');
  let d: { y: number; m: number; d: number } | null = null;
  let rest = '';
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})\s*[-./]\s*(\d{1,2})\s*[-./]\s*(\d{1,2})\.?(?![\d])(.*)$/.exec(s))) {
    d = ymd(+m[1]!, +m[2]!, +m[3]!);
    rest = m[4]!;
  } else if ((m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?(?!\d)(.*)$/.exec(s))) {
    d = ymd(+m[1]!, +m[2]!, +m[3]!);
    rest = m[4] ? ` ${m[4]}:${m[5]}:${m[6]}${m[7]}` : m[7]!;
  } else if ((m = /^(\d{4})[-\s]([A-Za-zéû]{3,})[-\s](\d{1,2})(?!\d)\.?(.*)$/.exec(s))) {
    const mo = month(m[2]!);
    d = mo ? ymd(+m[1]!, mo, +m[3]!) : null;
    rest = m[4]!;
  } else if ((m = /^(\d{1,2})\s*[-./]\s*(\d{1,2})\s*[-./]\s*(\d{4})(?!\d)\.?(.*)$/.exec(s))) {
    const [a, b] = [+m[1]!, +m[2]!];
    d = order === 'mdy' ? ymd(+m[3]!, a, b) : ymd(+m[3]!, b, a);
    rest = m[4]!;
  } else if (
    (m = /^(\d{1,2})(?:st|nd|rd|th)?[-\s/.]+(?:of\s+)?([A-Za-zéû]{3,})\.?,?[-\s/.]+(\d{4})(?!\d)(.*)$/.exec(s))
  ) {
    const mo = month(m[2]!);
    d = mo ? ymd(+m[3]!, mo, +m[1]!) : null;
    rest = m[4]!;
  } else if (
    (m =
      /^([A-Za-z]{3,})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{1,2}:\d{2}(?::\d{2})?)\s+([A-Za-z]{1,5}\s+)?)?(\d{4})(?!\d)(.*)$/.exec(
        s,
      ))
  ) {
    // "April 28, 2014", "Mar 21 2024", ctime "Mar 21 10:00:00 GMT 2024".
    const mo = month(m[1]!);
    d = mo ? ymd(+m[5]!, mo, +m[2]!) : null;
    rest = m[3] ? ` ${m[3]} ${m[4] ?? ''}` : m[6]!;
  }
  if (!d) return null;
  const p2 = (n: number) => String(n).padStart(2, '0');
  const date = `${d.y}-${p2(d.m)}-${p2(d.d)}`;
  s = rest.trim().replace(/^[,T]\s*/, '');
  const t =
    /^(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(?:\(?\s*(Z|[+-]\d{2}(?::?\d{2})?|(?:UTC|GMT)(?:\s*[+-]\d{1,2}(?::?\d{2})?)?|[A-Za-z]{2,5})\s*\)?)?/.exec(
      s,
    );
  if (!t) return { date, time: null };
  const hh = +t[1]!,
    mi = +t[2]!,
    ss = t[3] ? +t[3] : 0;
  let offset: number | null = null;
  const z = t[4];
  if (z) {
    const num = /^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(z);
    if (num) offset = (num[1] === '-' ? -1 : 1) * (+num[2]! * 60 + (num[3] ? +num[3] : 0));
    else offset = ZONES[z.toLowerCase()] ?? null;
  }
  // No zone printed: the registry's local time; the day is the one the registry wrote, and the
  // timestamp is taken as UTC (as RDAP's zone-less timestamps are).
  if (offset === null) return { date, time: new Date(Date.UTC(d.y, d.m - 1, d.d, hh, mi, ss)).toISOString() };
  const ms = Date.UTC(d.y, d.m - 1, d.d, hh, mi, ss) - offset * 60_000;
  const iso = new Date(ms).toISOString();
  return { date: iso.slice(0, 10), time: iso };
}

export function parseWhoisDate(raw: string | null | undefined, order: DateOrder = 'dmy'): string | null {
  return parseWhoisDateTime(raw, order)?.date ?? null;
}

export function parseWhoisTimestamp(raw: string | null | undefined, order: DateOrder = 'dmy'): string | null {
  const r = parseWhoisDateTime(raw, order);
  if (!r) return null;
  return r.time ?? `${r.date}T00:00:00.000Z`;
}
