// DMARC by RFC 7489 and its successor (DMARCbis, draft-ietf-dmarc-dmarcbis): which TXT records at
// `_dmarc.<domain>` are DMARC, every tag's syntax and values, the organisational-domain fallback,
// external report authorisation (RFC 7489 7.1) and the policy a receiver would apply. Pure: the
// service makes the look-ups and hands their answers in.
import { registrableDomain } from './domain-name.js';
import type { CheckValue } from './security.js';

/** valid: one DMARC record without errors; invalid: errors; none: no DMARC record; temperror: a look-up failed. */
export type DmarcVerdict = 'valid' | 'invalid' | 'none' | 'temperror';

/** One finding: the tag it is about (null: the record as a whole), what is wrong, and how to fix it. */
export interface DmarcFinding {
  tag: string | null;
  reason: string;
  fix: string;
}

const POLICIES = ['none', 'quarantine', 'reject'] as const;
type Policy = (typeof POLICIES)[number];

/** The policy a receiver would apply, defaults filled in. */
export interface DmarcPolicy {
  /** What applies to mail from the checked domain itself. */
  applies: Policy;
  p: Policy;
  /** Subdomains (sp, else p). */
  sp: Policy;
  /** Non-existent subdomains (np, else sp, else p). */
  np: Policy;
  /** Share of failing mail the policy is applied to (pct, 7489; 100 when absent). */
  pct: number;
  /** Where the record is: at the domain, or at its organisational domain (the fallback). */
  from: 'domain' | 'organizational_domain';
  /** The domain whose `_dmarc` record it is. */
  record_domain: string;
}

export interface DmarcResult {
  status: CheckValue;
  /** Why the status is unknown. */
  reason?: string;
  dmarc_result: DmarcVerdict;
  /** The DMARC record used (null: none, or several). */
  record: string | null;
  /** null: a receiver applies no DMARC (no record, several, or no valid policy and no valid rua). */
  policy: DmarcPolicy | null;
  errors: DmarcFinding[];
  warnings: DmarcFinding[];
  /** The failure's findings as phrases (what the grade's reasons and `recommendations` show). */
  problems: string[];
  /** Kept from the details' older shape. */
  subdomain_policy: string | null;
  pct: number | null;
  rua: string | null;
}

const WSP = /^[ \t]+|[ \t]+$/g;
const trimWsp = (s: string) => s.replace(WSP, '');
const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);

/** Starts with the version tag (`v`, optional WSP, `=`, optional WSP, `DMARC1` in capitals). */
const isVersion = (txt: string) => /^[vV][ \t]*=[ \t]*DMARC1/.test(txt);

/** The TXT records at `_dmarc.<domain>` that are DMARC records (RFC 7489 6.6.3: only those that start with v=DMARC1). */
export function dmarcRecords(txts: string[]): string[] {
  return txts.filter(isVersion);
}

/** TXT records that were meant as DMARC but are not (a leading space, `v=dmarc1`, the version not first). */
function lookalikes(txts: string[]): DmarcFinding[] {
  const out: DmarcFinding[] = [];
  for (const t of txts) {
    if (isVersion(t) || !/v\s*=\s*dmarc1/i.test(t)) continue;
    const fix = (what: string) => `${what}, so that the record starts with exactly "v=DMARC1"`;
    if (/^\s/.test(t))
      out.push({
        tag: 'v',
        reason: `the TXT record ${quote(t)} starts with white space, so it is not a DMARC record`,
        fix: fix('remove the leading white space'),
      });
    else if (/^v\s*=\s*dmarc1/i.test(t))
      out.push({
        tag: 'v',
        reason: `the TXT record ${quote(t)} is not a DMARC record: the version must be "DMARC1" in capitals`,
        fix: fix('write the version as "DMARC1"'),
      });
    else
      out.push({
        tag: 'v',
        reason: `the TXT record ${quote(t)} does not start with "v=DMARC1", so it is not a DMARC record`,
        fix: fix('move "v=DMARC1;" to the front'),
      });
  }
  return out;
}

/** The organisational domain (public suffix list, ICANN part, and registry-run second levels). */
function organizationalDomain(name: string): string {
  return registrableDomain(name) ?? name;
}

const HOST = /^(?=.{1,253}$)(?:(?!-)[a-z0-9_-]{1,63}(?<!-)\.)+[a-z0-9-]{2,63}$/i;

interface ParsedUri {
  uri: string;
  host: string;
}

/** `mailto:` URIs of rua/ruf (comma-separated, each with an optional `!size[kmgt]`). */
function parseUris(tag: 'rua' | 'ruf', value: string, errors: DmarcFinding[]): ParsedUri[] {
  const out: ParsedUri[] = [];
  for (const raw of value.split(',')) {
    const uri = trimWsp(raw);
    const m = /^mailto:([^!@\s]+)@([^!\s]+?)(?:!(\d+)([kmgt])?)?$/i.exec(uri);
    if (!uri) {
      errors.push({
        tag,
        reason: `${tag} has an empty URI in ${quote(value)}`,
        fix: `remove the extra comma in ${tag}=`,
      });
    } else if (!/^mailto:/i.test(uri)) {
      errors.push({
        tag,
        reason: `${tag} URI ${quote(uri)} is not a mailto: URI (reports are sent only by e-mail)`,
        fix: `write it as ${tag}=mailto:dmarc@example.com`,
      });
    } else if (!m || !HOST.test(m[2]!)) {
      errors.push({
        tag,
        reason: `${tag} URI ${quote(uri)} is not a valid mailto: address (mailto:local@domain with an optional !size such as !10m)`,
        fix: `write it as ${tag}=mailto:dmarc@example.com or ${tag}=mailto:dmarc@example.com!10m`,
      });
    } else {
      out.push({ uri, host: m[2]!.toLowerCase() });
    }
  }
  return out;
}

/** The parts of a record: its tags, the URIs of rua/ruf, and what is wrong with them. */
interface ParsedRecord {
  tags: Map<string, string>;
  p: Policy | null;
  sp: Policy | null;
  np: Policy | null;
  pct: number | null;
  rua: ParsedUri[];
  ruf: ParsedUri[];
  /** p or sp present but not valid (RFC 7489 6.6.3 step 5). */
  badPolicy: boolean;
  errors: DmarcFinding[];
  warnings: DmarcFinding[];
}

const oneOf = (tag: string, value: string, allowed: readonly string[], meaning: string, errors: DmarcFinding[]) => {
  const v = value.toLowerCase();
  if (allowed.includes(v)) return v;
  errors.push({
    tag,
    reason: `${tag}=${value} is not valid: ${tag} is ${allowed.join(', ').replace(/, ([^,]*)$/, ' or $1')} (${meaning})`,
    fix: `set ${tag} to one of ${allowed.join(', ')}, or remove ${tag}=`,
  });
  return null;
};

/** Parses one DMARC record (the version tag first) by the RFC 7489 and DMARCbis grammar. */
function parseDmarcRecord(record: string): ParsedRecord {
  const errors: DmarcFinding[] = [];
  const warnings: DmarcFinding[] = [];
  const tags = new Map<string, string>();
  const seen = new Map<string, string[]>();
  const parts = record.split(';').map(trimWsp);
  const version = parts.shift()!;
  if (!/^[vV][ \t]*=[ \t]*DMARC1$/.test(version))
    errors.push({
      tag: 'v',
      reason: `the version tag ${quote(version)} must be exactly "v=DMARC1" followed by ";"`,
      fix: 'separate the tags with ";", as in "v=DMARC1; p=reject"',
    });
  const order: string[] = [];
  parts.forEach((part, i) => {
    if (part === '') return; // a trailing ";" (and empty tags) carry nothing
    const eq = part.indexOf('=');
    if (eq < 0) {
      errors.push({
        tag: null,
        reason: `${quote(part)} is not a tag=value pair`,
        fix: i === parts.length - 1 ? 'remove it' : 'write it as tag=value, or remove it',
      });
      return;
    }
    const name = trimWsp(part.slice(0, eq)).toLowerCase();
    const value = trimWsp(part.slice(eq + 1));
    if (!/^[a-z][a-z0-9_]*$/.test(name)) {
      errors.push({
        tag: null,
        reason: `${quote(part)} has no valid tag name`,
        fix: 'write it as tag=value, or remove it',
      });
      return;
    }
    seen.set(name, [...(seen.get(name) ?? []), value]);
    order.push(name);
    if (!tags.has(name)) tags.set(name, value);
  });
  // A duplicated tag has no value a receiver could rely on: neither is used (never "the later one wins").
  for (const [name, values] of seen)
    if (values.length > 1 || name === 'v') {
      tags.delete(name);
      errors.push({
        tag: name,
        reason: `the ${name} tag appears ${name === 'v' ? values.length + 1 : values.length} times (${values.map((v) => `${name}=${v}`).join(', ')}); a tag may appear only once`,
        fix: `keep a single ${name}= tag`,
      });
    }

  const pol = (tag: string) => {
    const v = tags.get(tag);
    if (v === undefined) return null;
    return oneOf(
      tag,
      v,
      POLICIES,
      tag === 'p' ? 'the policy' : `the policy for ${tag === 'sp' ? 'subdomains' : 'non-existent subdomains'}`,
      errors,
    ) as Policy | null;
  };
  const p = pol('p');
  const sp = pol('sp');
  const np = pol('np');
  if (!seen.has('p'))
    errors.push({
      tag: 'p',
      reason: 'the record has no policy (p=)',
      fix: 'add p=quarantine or p=reject right after v=DMARC1',
    });
  else if (tags.has('p') && order[0] !== 'p')
    warnings.push({
      tag: 'p',
      reason: 'p= is not the first tag after v=DMARC1 (RFC 7489 requires that order; DMARCbis does not)',
      fix: 'move p= right after v=DMARC1',
    });
  const badPolicy = p === null || (seen.has('sp') && sp === null);

  let pct: number | null = null;
  const rua: ParsedUri[] = [];
  const ruf: ParsedUri[] = [];
  for (const [tag, value] of tags) {
    switch (tag) {
      case 'v':
      case 'p':
      case 'sp':
      case 'np':
        break;
      case 'adkim':
      case 'aspf':
        oneOf(tag, value, ['r', 's'], 'r: relaxed, s: strict alignment', errors);
        break;
      case 'psd':
        oneOf(tag, value, ['y', 'n', 'u'], 'whether the domain is a public suffix domain', errors);
        break;
      case 't':
        oneOf(tag, value, ['y', 'n'], 'y: testing mode', errors);
        break;
      case 'fo': {
        const bad = value
          .split(':')
          .map(trimWsp)
          .filter((o) => !['0', '1', 'd', 's'].includes(o.toLowerCase()));
        if (bad.length || value === '')
          errors.push({
            tag,
            reason: `fo=${value} is not valid: fo is a colon-separated list of 0, 1, d and s`,
            fix: 'write it as fo=1 or fo=d:s, or remove fo=',
          });
        break;
      }
      case 'pct':
        if (/^\d{1,3}$/.test(value) && Number(value) <= 100) pct = Number(value);
        else
          errors.push({
            tag,
            reason: `pct=${value} is not valid: pct is a whole number from 0 to 100`,
            fix: 'remove pct= (100 %), or set a whole number from 0 to 100',
          });
        break;
      case 'rf': {
        const bad = value
          .split(':')
          .map(trimWsp)
          .filter((f) => f.toLowerCase() !== 'afrf');
        if (bad.length || value === '')
          errors.push({
            tag,
            reason: `rf=${value} is not valid: the only failure report format is afrf`,
            fix: 'remove rf= (afrf is the default)',
          });
        break;
      }
      case 'ri':
        if (!/^\d{1,10}$/.test(value) || Number(value) > 4294967295)
          errors.push({
            tag,
            reason: `ri=${value} is not valid: ri is a number of seconds (0 to 4294967295)`,
            fix: 'remove ri= (86400, a day, is the default) or set a number of seconds',
          });
        break;
      case 'rua':
      case 'ruf':
        (tag === 'rua' ? rua : ruf).push(...parseUris(tag, value, errors));
        break;
      default:
        warnings.push({
          tag,
          reason: `unknown tag ${tag}=${value} (receivers ignore it)`,
          fix: `remove ${tag}= or correct its name`,
        });
    }
  }
  return { tags, p, sp, np, pct, rua, ruf, badPolicy, errors, warnings };
}

/** Report destinations outside the record's organisational domain need `<domain>._report._dmarc.<host>` (RFC 7489 7.1). */
export function reportAuthorizationNames(record: string, recordDomain: string): string[] {
  const parsed = parseDmarcRecord(record);
  const org = organizationalDomain(recordDomain);
  const hosts = [...parsed.rua, ...parsed.ruf].map((u) => u.host).filter((h) => organizationalDomain(h) !== org);
  return [...new Set(hosts)].map((h) => `${recordDomain}._report._dmarc.${h}`);
}

/** What the look-ups answered: TXT at `_dmarc.<domain>`, at the organisational domain (when asked), and report authorisations. */
interface DmarcLookups {
  domain: string;
  txts: string[];
  /** Asked when the domain has no DMARC record and is not its own organisational domain. */
  org?: { domain: string; txts: string[] };
  /** By authorisation name: its TXT records, or the look-up's error. */
  reports?: Record<string, string[] | { error: string }>;
}

/** The name whose `_dmarc` record applies when the domain has none (null: no fallback). */
export function dmarcFallback(domain: string, txts: string[]): string | null {
  const org = organizationalDomain(domain);
  return dmarcRecords(txts).length === 0 && org !== domain ? org : null;
}

const findingText = (f: DmarcFinding) => `${f.reason}; fix: ${f.fix}`;

const NONE_TEXT = 'DMARC policy is "none" (monitoring only; spoofed mail is still delivered)';

function result(
  r: Omit<DmarcResult, 'status' | 'problems' | 'subdomain_policy' | 'pct' | 'rua'>,
  parsed: ParsedRecord | null,
): DmarcResult {
  const problems = r.errors.map(findingText);
  const weak = r.dmarc_result === 'valid' && r.policy?.applies === 'none';
  if (weak)
    problems.push(
      `${NONE_TEXT}; fix: raise ${r.policy!.from === 'domain' ? 'p' : `sp at _dmarc.${r.policy!.record_domain}`} to quarantine or reject once the reports show legitimate mail passes`,
    );
  return {
    status: r.dmarc_result === 'valid' && !weak ? 'pass' : 'fail',
    ...r,
    problems,
    subdomain_policy: parsed?.sp ?? null,
    pct: parsed?.pct ?? null,
    rua: parsed?.tags.get('rua') ?? null,
  };
}

/** The verdict from the look-ups' answers (a failed look-up is the caller's: `dmarcTempError`). */
export function evaluateDmarc(l: DmarcLookups): DmarcResult {
  const at = dmarcRecords(l.txts);
  const errors: DmarcFinding[] = [];
  const warnings: DmarcFinding[] = [];
  const fromOrg = at.length === 0 && l.org !== undefined;
  const records = fromOrg ? dmarcRecords(l.org!.txts) : at;
  const recordDomain = fromOrg ? l.org!.domain : l.domain;
  const odd = lookalikes(l.txts).concat(fromOrg ? lookalikes(l.org!.txts) : []);
  const empty = { record: null, policy: null, errors, warnings };
  if (records.length === 0) {
    errors.push(...odd);
    errors.push({
      tag: null,
      reason: `no DMARC record at _dmarc.${l.domain}${l.org ? ` nor at _dmarc.${l.org.domain}` : ''}`,
      fix: `publish a TXT record at _dmarc.${l.domain} such as "v=DMARC1; p=quarantine; rua=mailto:dmarc@${l.domain}"`,
    });
    return result({ ...empty, dmarc_result: 'none' }, null);
  }
  warnings.push(...odd);
  if (records.length > 1) {
    errors.push({
      tag: null,
      reason: `several DMARC records at _dmarc.${recordDomain} (${records.length}): receivers ignore them all`,
      fix: 'merge them into a single "v=DMARC1" TXT record',
    });
    return result({ ...empty, dmarc_result: 'invalid' }, null);
  }
  const record = records[0]!;
  const parsed = parseDmarcRecord(record);
  errors.push(...parsed.errors);
  warnings.push(...parsed.warnings);

  let p = parsed.p;
  let sp = parsed.sp;
  if (parsed.badPolicy) {
    // RFC 7489 6.6.3 step 5: without a valid p (or with an invalid sp), a valid rua means p=none; else no DMARC.
    if (parsed.rua.length === 0) return result({ ...empty, record, dmarc_result: 'invalid' }, parsed);
    p = 'none';
    sp = null;
    warnings.push({
      tag: 'p',
      reason: 'without a valid policy a receiver treats the record as p=none because rua= is valid',
      fix: 'set p=quarantine or p=reject',
    });
  }
  const policy: DmarcPolicy = {
    applies: p!,
    p: p!,
    sp: sp ?? p!,
    np: parsed.np ?? sp ?? p!,
    pct: parsed.pct ?? 100,
    from: fromOrg ? 'organizational_domain' : 'domain',
    record_domain: recordDomain,
  };
  if (fromOrg) policy.applies = policy.sp;
  if (policy.pct < 100 && policy.applies !== 'none')
    warnings.push({
      tag: 'pct',
      reason: `pct=${policy.pct}: the policy applies to only ${policy.pct} % of failing mail`,
      fix: 'remove pct= once you are confident (DMARCbis drops it)',
    });

  for (const name of reportAuthorizationNames(record, recordDomain)) {
    const host = name.slice(`${recordDomain}._report._dmarc.`.length);
    const answer = l.reports?.[name];
    if (answer === undefined) continue;
    if (!Array.isArray(answer))
      warnings.push({
        tag: 'rua',
        reason: `the report authorisation of ${host} (TXT at ${name}) could not be looked up: ${answer.error}`,
        fix: 'check again later',
      });
    else if (!answer.some(isVersion))
      warnings.push({
        tag: [...parsed.rua].some((u) => u.host === host) ? 'rua' : 'ruf',
        reason: `reports to ${host} are not authorised: no "v=DMARC1" TXT record at ${name}, so receivers will not send them`,
        fix: `ask the operator of ${host} to publish "v=DMARC1" at ${name}, or send reports to an address at ${organizationalDomain(recordDomain)}`,
      });
  }
  return result({ record, policy, errors, warnings, dmarc_result: errors.length ? 'invalid' : 'valid' }, parsed);
}

/** A failed look-up: status unknown, dmarc_result temperror, the cause in `reason`. */
export function dmarcTempError(reason: string): DmarcResult {
  return {
    status: 'unknown',
    reason,
    dmarc_result: 'temperror',
    record: null,
    policy: null,
    errors: [],
    warnings: [],
    problems: [],
    subdomain_policy: null,
    pct: null,
    rua: null,
  };
}
