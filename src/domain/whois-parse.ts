// Reading WHOIS answers (pure): the answer is split into label/value pairs (every layout registries
// use: "Label: value", "Label:value", dot leaders, JPRS "[Label] value", indented blocks), the
// pairs are looked up in our label tables, and dates are read with the registry's own date order.
// docs/registration.md describes the families and forms.
import { EMPTY_REGISTRATION, hasTransferLock, normalizeStatus, type RegistrationData } from './registration.js';
import { dateOrderFor, parseWhoisDate, parseWhoisTimestamp } from './registry-dates.js';

type WhoisField = 'expiry' | 'registrar' | 'created' | 'updated' | 'nameserver' | 'status' | 'dnssec';

/**
 * Labels (lower case, spaces collapsed, leader dots removed) per field, by registry family. Inside a
 * field, earlier labels win (the registry's expiry before a registrar's copy of it). Block sub-labels
 * are written `block/label` (Registrar:\n  Name: X -> registrar/name).
 */
const FAMILIES: Record<string, Partial<Record<WhoisField, string[]>>> = {
  // The registrar's own section (.it/.eu/.be blocks, .ua's "registrar: handle" + "organization:").
  sections: {
    registrar: ['registrar/organization', 'registrar/organisation', 'registrar/name', 'registrar/registrar name'],
  },
  // ICANN-format gTLDs and the ccTLDs that copied it (Verisign, PIR, Donuts, CentralNic, Afilias).
  icann: {
    expiry: [
      'registry expiry date',
      'registry expiration date',
      'expiry date',
      'expiration date',
      'domain expiration date',
      'registrar registration expiration date',
    ],
    registrar: [
      'registrar',
      'sponsoring registrar',
      'registrar name',
      'registrar organization',
      'sponsoring registrar organization',
    ],
    created: ['creation date', 'created date', 'domain registration date', 'registration date'],
    updated: ['updated date', 'domain last updated date', 'last updated date'],
    nameserver: ['name server', 'nameserver', 'nameservers', 'name servers'],
    status: ['domain status', 'status'],
    dnssec: ['dnssec'],
  },
  // Nominet (.uk) and the block layouts of .eu/.be/.nl/.it/.pl: a header line, values indented below.
  blocks: {
    expiry: ['expiry date', 'renewal date', 'expire date'],
    created: ['registered on', 'registered', 'created'],
    updated: ['last updated', 'last update', 'last modified'],
    nameserver: [
      'name servers',
      'nameservers',
      'name servers/dns',
      'name server information',
      'domain nameservers',
      'domain servers',
    ],
    status: ['registration status'],
  },
  // RIPE-style ccTLDs (.ru .su .br .cl .ua .fr .ch .at .cz ...): short lower-case keys.
  ripe: {
    expiry: [
      'expires',
      'expire',
      'expired',
      'paid-till',
      'expires on',
      'expiration',
      'expiration time',
      'ok-until',
      'valid until',
      'valid-date',
      'validity',
      'exp date',
      'expiry',
      // Older layouts: IEDR's (.ie) "renewal:", CIRA's (.ca) "date_renewal:", .ws "Domain Currently Expires:".
      'renewal',
      'date_renewal',
      'domain currently expires',
    ],
    registrar: ['registrar', 'sponsoring registrar', 'registrar-name', 'current registrar', 'current registar'],
    created: [
      'created',
      'created on',
      'domain created',
      'registered',
      'registration time',
      'record created',
      'record created on',
      'domain record activated',
      'activated',
      'registration',
      'date_approved',
      'domain created',
    ],
    updated: [
      'changed',
      'modified',
      'last-update',
      'last modified',
      'updated',
      'domain record last updated',
      'last updated on',
      'date_modified',
      'domain last updated',
    ],
    nameserver: [
      'nserver',
      'ns',
      'name-server',
      'dns servers',
      'domain servers in listed order',
      'hostname',
      'primary server',
      'secondary server',
      'ns1_hostname',
      'ns2_hostname',
    ],
    status: ['state', 'domain-status', 'eppstatus'],
  },
  // JPRS (.jp) "[Expires on] 2026/05/31", MYNIC (.my) "d [Record Expired] 2027-03-05" and their
  // Korean/Taiwanese/Spanish/Portuguese-language cousins.
  national: {
    expiry: [
      'record expires on',
      'record expired',
      'record will expire on',
      'fecha de vencimiento',
      'fecha de expiracion',
      'fecha de expiración',
      'data de expiração',
      'expiration date (dd/mm/yyyy)',
      'domain expires',
      'expires at',
      'free-date',
    ],
    registrar: ['account name', 'authorized agency', 'registration service provider', 'registrar of record'],
    created: [
      'registered date',
      'domain registered',
      'first registration date',
      'record created on',
      'fecha de registro',
      'fecha de creacion',
      'fecha de creación',
      'created on',
      'record created',
      'data de registo',
    ],
    updated: ['last update', 'fecha de actualizacion', 'record last modified'],
    nameserver: ['name server', 'host name', 'primary name server', 'secondary name server'],
  },
  // InternetNZ (.nz) registry keys.
  nz: {
    expiry: ['domain_datebilleduntil'],
    registrar: ['registrar_name'],
    nameserver: ['ns_name'],
    created: ['domain_dateregistered'],
    updated: ['domain_datelastmodified'],
    status: ['query_status'],
  },
};

/** label -> field, first family and position first. `free-date` only counts when nothing else does. */
const LABELS = new Map<string, { field: WhoisField; rank: number }>();
{
  let rank = 0;
  for (const fam of Object.values(FAMILIES)) {
    for (const [field, labels] of Object.entries(fam) as [WhoisField, string[]][]) {
      for (const l of labels) if (!LABELS.has(l)) LABELS.set(l, { field, rank: rank++ });
    }
  }
  LABELS.set('free-date', { field: 'expiry', rank: 10_000 });
}

/** Registries whose WHOIS answers carry no expiry date at all. */
const NO_EXPIRY_TLDS: ReadonlySet<string> = new Set([
  'de',
  'eu',
  'nl',
  'be',
  'ch',
  'li',
  'at',
  'lu',
  'lv',
  'hu',
  'bg',
  'sa',
  'om',
  'kz',
  'pe',
  'au',
  'nz',
]);

interface WhoisPair {
  label: string;
  value: string;
}

function normLabel(l: string): string {
  return l
    .toLowerCase()
    .replace(/^[\s*>#%-]+/, '')
    .replace(/[\s.:]+$/, '')
    .replace(/\.{2,}/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

// Labels written without a colon before their value ("Record expires on 2026-01-01", "Valid-date 2026-01-01").
const BARE_LABELS =
  /^\s*(record expires on|record created on|expires on|valid-date|domain record activated|domain record last updated|domain expires|registered on|renewal date)\s+(?!.*:\s)(.*\d.*)$/i;

const HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;

function indentOf(line: string): number {
  return /^[ \t]*/.exec(line)![0].replace(/\t/g, '        ').length;
}

/** Label/value pairs of an answer, in order, in every layout registries use. */
export function whoisPairs(text: string): WhoisPair[] {
  const lines = text.replace(/\r/g, '').split('\n');
  const out: WhoisPair[] = [];
  let handle = false;
  let section: string | null = null;
  const push = (label: string, value: string) => {
    const l = normLabel(label)
      .replace(/^(ns_name)_\d+$/, '$1')
      .replace(/^ns \d+$/, 'ns');
    if (!l) return;
    // DNS.PT's bilingual labels ("Data de expiração / Expiration Date"): each half is a label too.
    if (l.includes(' / '))
      for (const half of l.split(' / ')) if (half.trim()) out.push({ label: half.trim(), value: value.trim() });
    // RIPE-style registrar objects (.ua, .sk): "registrar: <handle>", its name on the next line.
    if (handle && /^(organization|organisation|org|name)$/.test(l))
      out.push({ label: 'registrar/organization', value: value.trim() });
    handle = l === 'registrar' && /^\S+$/.test(value.trim());
    out.push({ label: l, value: value.trim() });
  };
  const pairOf = (line: string): [string, string] | null => {
    // JPRS "a. [Domain Name]", MYNIC "a [Domain Name]".
    let m = /^\s*(?:[a-z]\.?\s*)?\[([^\]]{2,60})\]\s*(.*)$/i.exec(line);
    if (m) return [m[1]!, m[2]!];
    m = BARE_LABELS.exec(line);
    if (m) return [m[1]!, m[2]!];
    // SWITCH (.ch/.li) separates label and value by a tab, without a colon.
    m = /^([A-Za-z][A-Za-z -]{1,40})\t+([^\t].*)$/.exec(line);
    if (m) return [m[1]!, m[2]!];
    m = /^\s*([^:]{1,80}?)\s*:(?!\/\/)\s*(.*)$/.exec(line);
    // A label that names its date order ("Expiration Date (dd/mm/yyyy)"): the order is the registry's own.
    if (m) m[1] = m[1]!.replace(/\s*\((?:dd|mm|yyyy)[/.-](?:dd|mm)[/.-](?:yyyy|dd)\)$/i, '');
    if (m && /[A-Za-z]/.test(m[1]!) && !/[[(]/.test(m[1]!) && !/^(https?|ftp)$/i.test(m[1]!)) return [m[1]!, m[2]!];
    return null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim() || /^\s*[%#]/.test(line)) {
      handle = false;
      section = null;
      continue;
    }
    const ind = indentOf(line);
    const pair = pairOf(line);
    const next = lines[i + 1];
    const indented =
      next !== undefined &&
      next.trim() !== '' &&
      indentOf(next) > ind &&
      (pair ? pair[1].trim() === '' : /^\s*[A-Za-z][A-Za-z /()-]{1,40}$/.test(line));
    // "NAME SERVER INFORMATION:" / "REGISTRAR:" followed by bare lines at the same indent (.bg, .pl).
    const bareNext = next !== undefined && next.trim() !== '' && pairOf(next) === null;
    const flat =
      !indented &&
      bareNext &&
      (pair
        ? pair[1].trim() === ''
        : /^[A-Za-z][A-Za-z ]{1,40}$/.test(line) && HOST.test(next!.trim().toLowerCase().replace(/\.$/, '')));
    const opensBlock = indented || flat;
    if (!opensBlock) {
      // "Registrar:" then "name: X" on the next lines, up to a blank line (.ee): a section.
      if (pair && !pair[1].trim() && next !== undefined && pairOf(next)?.[1].trim()) section = normLabel(pair[0]);
      else if (pair && section) push(`${section}/${normLabel(pair[0])}`, pair[1]);
      if (pair) {
        push(pair[0], pair[1]);
        // Values continued on more indented lines (.pl "nameservers:" lists one host a line).
        while (
          pair[1].trim() &&
          lines[i + 1]?.trim() &&
          indentOf(lines[i + 1]!) > ind &&
          pairOf(lines[i + 1]!) === null
        )
          push(pair[0], lines[++i]!);
      }
      // .jp "[State] Connected (2026/05/31)" and .ua "status: OK-UNTIL 20260531000000" carry the expiry.
      if (pair && /^(state|status)$/i.test(normLabel(pair[0]))) {
        const e = /(?:connected|ok-until)\s*\(?\s*([\d/.-]{8,})/i.exec(pair[1]);
        if (e) push('ok-until', e[1]!);
      }
      continue;
    }
    const header = normLabel(pair ? pair[0] : line);
    for (i = i + 1; i < lines.length; i++) {
      const sub = lines[i]!;
      if (!sub.trim() || (flat ? pairOf(sub) !== null : indentOf(sub) <= ind)) {
        i--;
        break;
      }
      const sp = pairOf(sub);
      if (sp && sp[1].trim()) {
        push(sp[0], sp[1]);
        push(`${header}/${normLabel(sp[0])}`, sp[1]);
      } else if (!sp) push(header, sub);
    }
  }
  return out;
}

interface WhoisReading {
  data: RegistrationData;
  /** Said when the answer is read but publishes no expiry date. */
  reason: string | null;
}

function tldOf(name: string): string {
  return name.toLowerCase().replace(/\.$/, '').split('.').pop() ?? '';
}

const JUNK_REGISTRAR = /^(not? (available|disclosed)|redacted|n\/a|none|-|\d+)$/i;

/** Reads an answer into registration data; the registry's TLD picks its date order. */
export function parseWhoisAnswer(name: string, text: string): WhoisReading {
  const tld = tldOf(name);
  const order = dateOrderFor(tld);
  const self = name.toLowerCase().replace(/\.$/, '');
  const best: Partial<Record<WhoisField, { rank: number; value: string }>> = {};
  const nameservers: string[] = [];
  const statuses: string[] = [];
  for (const { label, value } of whoisPairs(text)) {
    const hit = LABELS.get(label);
    if (!hit || !value) continue;
    if (hit.field === 'nameserver') {
      for (const tok of value.toLowerCase().split(/[\s,]+/)) {
        const h = tok.replace(/\.$/, '');
        // DNS.PT writes "Nameserver: example.pt NS ns1.example.pt.": the owner name is not a server.
        if (h === self) continue;
        if (HOST.test(h) && !nameservers.includes(h)) {
          nameservers.push(h);
          break;
        }
      }
      continue;
    }
    if (hit.field === 'status') {
      for (const part of value.split(/,\s*/)) {
        const s = normalizeStatus(part);
        if (/^[a-zA-Z]+$/.test(s) && !statuses.includes(s)) statuses.push(s);
      }
      continue;
    }
    if (hit.field === 'expiry' && !parseWhoisDate(value, order)) continue;
    if ((hit.field === 'created' || hit.field === 'updated') && !parseWhoisDate(value, order)) continue;
    if (hit.field === 'registrar' && (JUNK_REGISTRAR.test(value.trim()) || /^https?:/i.test(value))) continue;
    const cur = best[hit.field];
    if (!cur || hit.rank < cur.rank) best[hit.field] = { rank: hit.rank, value };
  }
  const registrar =
    best.registrar?.value
      .replace(/\s*\[Tag = [^\]]*\]\s*/i, '')
      .replace(/\s*\(\s*https?:[^)]*\)\s*$/i, '')
      // PIR's "MarkMonitor Inc. (R37-LROR)": the registry's handle for the registrar.
      .replace(/\s*\([A-Z0-9]+-[A-Z]+\)\s*$/, '')
      .replace(/\s+/g, ' ')
      .trim() || null;
  const dnssec = best.dnssec?.value.toLowerCase() ?? null;
  const data: RegistrationData = {
    ...EMPTY_REGISTRATION,
    registrar,
    expiry_date: parseWhoisDate(best.expiry?.value, order),
    creation_date: parseWhoisTimestamp(best.created?.value, order),
    updated_date: parseWhoisTimestamp(best.updated?.value, order),
    nameservers: [...nameservers].sort(),
    statuses,
    transfer_lock: hasTransferLock(statuses),
    dnssec_signed: dnssec ? /signed|yes|active/.test(dnssec) && !/unsigned/.test(dnssec) : null,
  };
  let reason: string | null = null;
  if (!data.expiry_date) {
    reason = NO_EXPIRY_TLDS.has(tld)
      ? `the .${tld} registry publishes no expiry date`
      : `the .${tld} registry's answer names no expiry date`;
  }
  return { data, reason };
}

/** True when the answer says something about a registered domain. */
function hasDomainData(d: RegistrationData): boolean {
  return !!(d.expiry_date || d.registrar || d.creation_date || d.nameservers.length);
}

const NO_MATCH = [
  /^\s*no match/im,
  /^\s*not found/im,
  /no entries found/i,
  /no data found/i,
  /domain not found/i,
  /^\s*status:\s*(free|available)\s*$/im,
  /this domain name has not been registered/i,
  /the queried object does not exist/i,
  /^%% no matching objects found/im,
  /^\s*no such domain/im,
  /is available for registration/i,
];

const RATE_LIMITED = [
  /limit exceeded/i,
  /query rate/i,
  /too many (requests|queries|connections)/i,
  /access control limit/i,
  /exceeded (the )?(maximum|allowed|query)/i,
  /quota exceeded/i,
  /try again (later|in)/i,
  /rate limit/i,
  /(allowed )?queries exceeded/i,
];

export type WhoisClass = 'ok' | 'not_found' | 'rate_limited' | 'empty';

/**
 * What kind of answer this is. An answer that carries domain data is an answer, whatever its
 * footer says (Nominet's and Donuts' legal text talks about query limits); a throttled answer is
 * a short refusal with no domain data.
 */
export function classifyWhoisAnswer(name: string, text: string): WhoisClass {
  if (!text.trim()) return 'empty';
  if (hasDomainData(parseWhoisAnswer(name, text).data)) return 'ok';
  if (NO_MATCH.some((r) => r.test(text))) return 'not_found';
  const body = text
    .split('\n')
    .filter((l) => l.trim() && !/^\s*[%#]/.test(l))
    .join('\n');
  if (body.length <= 1500 && RATE_LIMITED.some((r) => r.test(text))) return 'rate_limited';
  return 'ok';
}

type WhoisVerdict =
  | { kind: 'ok'; data: RegistrationData; reason: string | null }
  | { kind: 'not_found' | 'rate_limited' | 'empty' | 'unreadable' };

/** What an answer means for `name`: data (with a reason when no expiry is published) or why not. */
export function readWhoisAnswer(name: string, text: string): WhoisVerdict {
  const cls = classifyWhoisAnswer(name, text);
  if (cls !== 'ok') return { kind: cls };
  const { data, reason } = parseWhoisAnswer(name, text);
  if (hasDomainData(data) || data.statuses.length || NO_EXPIRY_TLDS.has(tldOf(name)))
    return { kind: 'ok', data, reason };
  return { kind: 'unreadable' };
}
