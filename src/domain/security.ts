// Pure DNS-security rules: SPF/DMARC/DKIM/CAA record evaluation, the security score and the
// one-sentence recommendation of every failed check. The look-ups themselves live in services/security.ts.
import type { DmarcResult } from './dmarc.js';
import { SPF_MAX_LOOKUPS, issueText, type SpfResult } from './spf.js';

/**
 * pass / fail: the look-ups answered (NXDOMAIN and NODATA mean the record is absent, so fail);
 * unknown: a look-up failed (SERVFAIL, REFUSED, timeout), so nothing is known and nothing is failed.
 */
export const CHECK_VALUES = ['pass', 'fail', 'unknown'] as const;
export type CheckValue = (typeof CHECK_VALUES)[number];
export const SECURITY_CHECKS = ['spf', 'dmarc', 'dkim', 'caa', 'dnssec'] as const;
export type SecurityCheck = (typeof SECURITY_CHECKS)[number];

/** A check whose look-up failed: status unknown and why, the rest of the result empty. */
export function unknownResult<T extends { status: CheckValue }>(empty: T, reason: string): T & { reason: string } {
  return { ...empty, status: 'unknown', reason };
}

function parseTags(record: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of record.split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim().toLowerCase()] = part.slice(i + 1).trim();
  }
  return out;
}

/** Selectors probed on every domain, plus the ones the user adds (dkim_selectors). */
export const COMMON_DKIM_SELECTORS = [
  'default',
  'dkim',
  'mail',
  'selector1',
  'selector2',
  'google',
  'k1',
  'k2',
  'k3',
  's1',
  's2',
  'key1',
  'key2',
  'smtp',
  'mandrill',
  'mxvault',
  'zoho',
  'protonmail',
  'protonmail2',
  'protonmail3',
  'fm1',
  'fm2',
  'fm3',
  'everlytickey1',
  'everlytickey2',
  'sig1',
  'dkim1',
  'mailjet',
  'sendgrid',
  's1024',
] as const;

/** A published (non-revoked) DKIM key: `v=DKIM1` optional, `p=` non-empty. */
export function isDkimKey(txt: string): boolean {
  const t = txt.trim();
  if (!/(^|;)\s*p=/i.test(t) && !/^v=DKIM1/i.test(t)) return false;
  const tags = parseTags(t);
  return !!tags.p && tags.p.length > 0;
}

interface DkimResult {
  status: CheckValue;
  reason?: string;
  selectors_checked: string[];
  selectors_found: string[];
}

export function evaluateDkim(checked: string[], found: string[]): DkimResult {
  return { status: found.length ? 'pass' : 'fail', selectors_checked: checked, selectors_found: found };
}

interface CaaResult {
  status: CheckValue;
  reason?: string;
  issuers: string[];
  wildcard_issuers: string[];
  iodef: string[];
}

export function evaluateCaa(records: { tag: string; value: string }[]): CaaResult {
  const issuers = records.filter((r) => r.tag === 'issue').map((r) => r.value);
  const wildcard = records.filter((r) => r.tag === 'issuewild').map((r) => r.value);
  return {
    status: issuers.length + wildcard.length > 0 ? 'pass' : 'fail',
    issuers,
    wildcard_issuers: wildcard,
    iodef: records.filter((r) => r.tag === 'iodef').map((r) => r.value),
  };
}

interface DnssecResult {
  status: CheckValue;
  /** null when the DS or DNSKEY look-up failed. */
  enabled: boolean | null;
  reason?: string;
  ds_records: number;
  dnskey_records: number;
  /** secureDNS.delegationSigned from RDAP, when known. */
  registry_signed: boolean | null;
}

export function evaluateDnssec(ds: number, dnskey: number, registrySigned: boolean | null): DnssecResult {
  const enabled = ds > 0 && dnskey > 0;
  return {
    status: enabled ? 'pass' : 'fail',
    enabled,
    ds_records: ds,
    dnskey_records: dnskey,
    registry_signed: registrySigned,
  };
}

/** Points of each check in the 0-100 security score; a check whose result is unknown is left out and the rest scaled. */
const SECURITY_WEIGHTS = { spf: 20, dmarc: 20, dkim: 15, caa: 10, dnssec: 20, transfer_lock: 15 } as const;

interface SecurityInputs {
  spf: CheckValue;
  dmarc: CheckValue;
  dkim: CheckValue;
  caa: CheckValue;
  /** null: unknown. */
  dnssec: boolean | null;
  transfer_lock: boolean | null;
}

const known = (v: CheckValue): boolean | null => (v === 'unknown' ? null : v === 'pass');

/** 0-100 over the checks whose result is known; null when none is (every look-up failed). */
export function securityScore(i: SecurityInputs): number | null {
  const parts: [number, boolean | null][] = [
    [SECURITY_WEIGHTS.spf, known(i.spf)],
    [SECURITY_WEIGHTS.dmarc, known(i.dmarc)],
    [SECURITY_WEIGHTS.dkim, known(i.dkim)],
    [SECURITY_WEIGHTS.caa, known(i.caa)],
    [SECURITY_WEIGHTS.dnssec, i.dnssec],
    [SECURITY_WEIGHTS.transfer_lock, i.transfer_lock],
  ];
  const have = parts.filter(([, v]) => v !== null);
  const max = have.reduce((a, [w]) => a + w, 0);
  const got = have.reduce((a, [w, v]) => a + (v ? w : 0), 0);
  // Only the transfer lock known (DNS unreachable) says nothing about DNS security.
  if (!have.some(([w]) => w !== SECURITY_WEIGHTS.transfer_lock)) return null;
  return max ? Math.round((got / max) * 100) : null;
}

/** One input of the security score, as a grade's reasons show it. */
export interface SecurityPart {
  check: SecurityCheck | 'transfer_lock';
  /** This run's result (the transfer lock: pass when on, fail when off, unknown without registration data). */
  status: CheckValue;
  /** What the score counted: this run's result, or for an unknown check its last known one; null: left out. */
  counted: 'pass' | 'fail' | null;
  /** Points of the check in the 0-100 security score (before the unknown ones are left out). */
  weight: number;
  /** fail: what is wrong; unknown: why the look-up could not be made. */
  cause: string | null;
  /** Counted from an earlier run: when that result was seen. */
  since: string | null;
  /** DMARC: findings that do not fail the check (each with its fix), shown beside the result. */
  warnings?: string[];
}

const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
/** Stored `{ reason, fix }` findings as text (the words the check's problems use). */
const findingTexts = (v: unknown): string[] =>
  (Array.isArray(v) ? v : [])
    .map(obj)
    .filter((f) => typeof f.reason === 'string')
    .map((f) => (typeof f.fix === 'string' ? `${f.reason as string}; fix: ${f.fix}` : (f.reason as string)));
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** What is wrong with a failed check, in one phrase, from its stored result. */
function failCause(check: SecurityCheck, r: Record<string, unknown>): string {
  switch (check) {
    case 'spf':
    case 'dmarc':
      return strings(r.problems).join('; ') || `${check.toUpperCase()} record is not valid`;
    case 'dkim':
      return `no DKIM key at any of ${strings(r.selectors_checked).length} selectors`;
    case 'caa':
      return 'no CAA record (any certificate authority may issue)';
    case 'dnssec':
      return Number(r.ds_records) > 0 && Number(r.dnskey_records) === 0
        ? 'a DS record at the parent but no DNSKEY'
        : 'the zone is not signed (no DS and DNSKEY records)';
  }
}

/**
 * The parts of a security score from the check's stored details (or a one-shot evaluation's): each
 * check's result, what the score counted for it, and why. Null when the details are from before
 * they held every check's result.
 */
export function securityParts(details: Record<string, unknown>): SecurityPart[] | null {
  const last = obj(details.last_known) as LastKnown;
  const parts: SecurityPart[] = [];
  for (const check of SECURITY_CHECKS) {
    const r = obj(details[check]);
    const status = r.status;
    if (status !== 'pass' && status !== 'fail' && status !== 'unknown') return null;
    const before = status === 'unknown' ? last[check] : undefined;
    parts.push({
      check,
      status,
      counted: status === 'unknown' ? (before?.status ?? null) : status,
      weight: SECURITY_WEIGHTS[check],
      cause:
        status === 'fail'
          ? failCause(check, r)
          : status === 'unknown'
            ? typeof r.reason === 'string'
              ? r.reason
              : 'the look-up could not be made'
            : null,
      since: before?.checked_at ?? null,
      ...(check === 'dmarc' && status !== 'unknown' && findingTexts(r.warnings).length
        ? { warnings: findingTexts(r.warnings) }
        : {}),
    });
  }
  const locked = obj(details.transfer_lock).locked;
  const lock = typeof locked === 'boolean' ? locked : null;
  parts.push({
    check: 'transfer_lock',
    status: lock === null ? 'unknown' : lock ? 'pass' : 'fail',
    counted: lock === null ? null : lock ? 'pass' : 'fail',
    weight: SECURITY_WEIGHTS.transfer_lock,
    cause: lock === null ? 'no registration data says' : lock ? null : 'the registrar transfer lock is off',
    since: null,
  });
  return parts;
}

/** The score the parts give (what securityScore gave when they were stored). */
export function partsScore(parts: SecurityPart[]): number | null {
  const v = (c: SecurityPart['check']) => parts.find((p) => p.check === c)?.counted ?? 'unknown';
  const lock = v('transfer_lock');
  return securityScore({
    spf: v('spf'),
    dmarc: v('dmarc'),
    dkim: v('dkim'),
    caa: v('caa'),
    dnssec: v('dnssec') === 'unknown' ? null : v('dnssec') === 'pass',
    transfer_lock: lock === 'unknown' ? null : lock === 'pass',
  });
}

/** The last known result of each check, with when it was seen (kept through failed look-ups). */
export type LastKnown = Partial<Record<SecurityCheck, { status: 'pass' | 'fail'; checked_at: string }>>;

/** Updates last-known results with this run's known ones; unknown checks keep the earlier entry. */
export function mergeLastKnown(prev: LastKnown, current: Record<SecurityCheck, CheckValue>, at: string): LastKnown {
  const out: LastKnown = { ...prev };
  for (const k of SECURITY_CHECKS) {
    const v = current[k];
    if (v !== 'unknown') out[k] = { status: v, checked_at: at };
  }
  return out;
}

/** Each check's value for the score: this run's when known, else the last known one, else unknown. */
export function scoringValues(
  current: Record<SecurityCheck, CheckValue>,
  last: LastKnown,
): Record<SecurityCheck, CheckValue> {
  const out = { ...current };
  for (const k of SECURITY_CHECKS) if (out[k] === 'unknown' && last[k]) out[k] = last[k]!.status;
  return out;
}

interface RecommendationInputs {
  domain: string;
  spf: SpfResult;
  dmarc: DmarcResult;
  dkim: DkimResult;
  caa: CaaResult;
  dnssec: DnssecResult;
  transfer_lock: boolean | null;
}

/** One concrete sentence per failed check, in a fixed order. */
export function recommendations(r: RecommendationInputs): string[] {
  const out: string[] = [];
  const d = r.domain;
  if (r.spf.status === 'fail') {
    if (r.spf.records.length === 0)
      out.push(
        `Publish an SPF record at ${d}, for example "v=spf1 mx -all", listing only the servers that send mail for the domain.`,
      );
    else if (r.spf.records.length > 1)
      out.push(
        `Merge the ${r.spf.records.length} SPF records at ${d} into a single "v=spf1" TXT record; receivers treat several as a permanent error.`,
      );
    else if (r.spf.errors.some((e) => e.reason.includes(`more than ${SPF_MAX_LOOKUPS} (RFC 7208`)))
      out.push(
        `Reduce the SPF record of ${d} to at most ${SPF_MAX_LOOKUPS} DNS look-ups (it needs ${r.spf.lookups}): flatten includes or drop unused ones.`,
      );
    else if (r.spf.errors.length)
      out.push(
        `Fix the SPF record of ${d} (receivers answer permerror and ignore it): ${r.spf.errors.map(issueText).join('; ')}.`,
      );
    else
      out.push(
        `Replace "+all" in the SPF record of ${d} with "-all" (or "~all") so that servers you do not list cannot send as ${d}.`,
      );
  }
  if (r.dmarc.status === 'fail') {
    if (r.dmarc.dmarc_result === 'none' && r.dmarc.errors.length <= 1)
      out.push(`Publish a DMARC record at _dmarc.${d}, for example "v=DMARC1; p=quarantine; rua=mailto:dmarc@${d}".`);
    else if (r.dmarc.dmarc_result === 'valid' && r.dmarc.policy?.from === 'domain')
      out.push(
        `Raise the DMARC policy of ${d} from "p=none" to "p=quarantine" or "p=reject" once your reports show legitimate mail passes.`,
      );
    else
      out.push(`Fix the DMARC record at _dmarc.${r.dmarc.policy?.record_domain ?? d}: ${r.dmarc.problems.join('; ')}.`);
  }
  if (r.dkim.status === 'fail') {
    out.push(
      `Publish a DKIM key (TXT at <selector>._domainkey.${d}) for each service that sends mail as ${d}, and add its selector to the domain's dkim_selectors if it is not a common one.`,
    );
  }
  if (r.caa.status === 'fail') {
    out.push(
      `Add a CAA record at ${d}, for example "0 issue \\"letsencrypt.org\\"", so that only the certificate authorities you use may issue certificates for it.`,
    );
  }
  if (r.dnssec.enabled === false) {
    if (r.dnssec.ds_records > 0)
      out.push(
        `The parent zone has a DS record for ${d} but ${d} serves no DNSKEY: publish the signed zone or remove the DS record at your registrar, or resolution will fail.`,
      );
    else
      out.push(
        `Enable DNSSEC for ${d}: sign the zone at your DNS provider and publish its DS record at your registrar.`,
      );
  }
  if (r.transfer_lock === false) {
    out.push(
      `Turn on the registrar transfer lock (clientTransferProhibited) for ${d} to prevent unauthorised transfers.`,
    );
  }
  return out;
}

/** A domain's latest DNS-security check results. */
export interface SecurityRecord {
  domain_id: string;
  spf: CheckValue;
  dmarc: CheckValue;
  dkim: CheckValue;
  caa: CheckValue;
  /** null: never known (every DNSSEC look-up so far failed). */
  dnssec_enabled: boolean | null;
  /** null: no check result known (every look-up failed). */
  security_score: number | null;
  details: Record<string, unknown>;
  recommendations: string[];
  checked_at: string;
  next_check_at: string | null;
}
