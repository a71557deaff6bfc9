// SPF (RFC 7208): the record parser by the ABNF of section 12 and the static judgement of a record
// tree, pure. The look-ups that walk includes and redirects live in services/spf.ts.

/** Terms that cost a DNS look-up (include, a, mx, ptr, exists, redirect; RFC 7208 §4.6.4): at most 10 through the whole tree. */
export const SPF_MAX_LOOKUPS = 10;
/** Look-ups answering NXDOMAIN or no data (§4.6.4): more than this is a permerror. */
export const SPF_MAX_VOID_LOOKUPS = 2;
/** Names one `mx` term may return (§4.6.4). */
export const SPF_MAX_MX_NAMES = 10;

const MECHANISMS = ['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists'] as const;
type MechanismName = (typeof MECHANISMS)[number];

export type SpfQualifier = '+' | '-' | '~' | '?';

export interface SpfMechanism {
  kind: 'mechanism';
  /** The term as written. */
  text: string;
  qualifier: SpfQualifier;
  name: MechanismName;
  /** The domain-spec (macros unexpanded); null: the current domain (a, mx, ptr) or none. */
  domain: string | null;
}

interface SpfModifier {
  kind: 'modifier';
  text: string;
  name: string;
  value: string;
}

type SpfTerm = SpfMechanism | SpfModifier;

/** A finding: which term, what is wrong, how to fix it. */
export interface SpfIssue {
  term: string;
  reason: string;
  fix: string;
}

interface ParsedSpf {
  terms: SpfTerm[];
  mechanisms: SpfMechanism[];
  redirect: string | null;
  exp: string | null;
  errors: SpfIssue[];
}

/** A TXT record is an SPF record when it starts with exactly `v=spf1` (any case) then a space or its end (§4.5). */
export function isSpf(txt: string): boolean {
  return /^v=spf1( |$)/i.test(txt);
}

// --- ABNF pieces (section 12) ---
const MACRO_LETTERS_DOMAIN = 'slodiphv';
const MACRO_LETTERS_EXP = 'slodiphvcrt';
const macroExpand = (letters: string) => `%\\{[${letters}](?:\\d*r?)[.\\-+,/_=]*\\}|%%|%_|%-`;
const MACRO_LITERAL = '[\\x21-\\x24\\x26-\\x7e]';
const macroString = (letters: string) => new RegExp(`^(?:${macroExpand(letters)}|${MACRO_LITERAL})*$`, 'i');
const DOMAIN_MACRO_STRING = macroString(MACRO_LETTERS_DOMAIN);
const ANY_MACRO_STRING = macroString(MACRO_LETTERS_EXP);
const TOPLABEL = /^(?:[a-z0-9]*[a-z][a-z0-9]*|[a-z0-9]+-[a-z0-9-]*[a-z0-9])$/i;
const DOMAIN_END_MACRO = new RegExp(`(?:${macroExpand(MACRO_LETTERS_DOMAIN)})$`, 'i');
const QNUM = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)';
const IP4 = new RegExp(`^${QNUM}(?:\\.${QNUM}){3}$`);
const CIDR4 = /^(?:0|[1-9]\d?)$/;
const CIDR6 = /^(?:0|[1-9]\d{0,2})$/;

/** Why a domain-spec is not valid, or null (§7.1: macro-string ending in "." toplabel [ "." ] or a macro). */
function domainSpecError(spec: string): string | null {
  if (spec === '') return 'the domain is empty';
  if (!DOMAIN_MACRO_STRING.test(spec)) {
    if (ANY_MACRO_STRING.test(spec)) return 'the macros c, r and t are allowed only in explanation text';
    return /%/.test(spec)
      ? 'a "%" that starts no valid macro (use %% for a percent sign)'
      : 'a character no domain may hold';
  }
  if (DOMAIN_END_MACRO.test(spec)) return null;
  const body = spec.endsWith('.') ? spec.slice(0, -1) : spec;
  const dot = body.lastIndexOf('.');
  if (dot < 0) return 'the domain has a single label (a full domain name with a dot is needed)';
  const top = body.slice(dot + 1);
  if (!TOPLABEL.test(top))
    return /^\d+$/.test(top)
      ? 'the domain ends in a numeric label (an IP address is not a domain: use ip4:)'
      : `"${top}" is not a valid top-level label`;
  return null;
}

function ip6Valid(s: string): boolean {
  let head = s;
  let extra = 0;
  const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    if (!IP4.test(tail[2]!)) return false;
    head = tail[1]!.endsWith('::') ? tail[1]! : tail[1]!.slice(0, -1);
    extra = 2;
  }
  const halves = head.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((p) => (p === '' ? [] : p.split(':')));
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return false;
  const n = groups.length + extra;
  return halves.length === 2 ? n <= 7 : n === 8;
}

const issue = (term: string, reason: string, fix: string): SpfIssue => ({ term, reason, fix });

/** One term: a mechanism or modifier, or the syntax error it has. */
function parseTerm(text: string): SpfTerm | SpfIssue {
  const eq = /^([a-z][a-z0-9\-_.]*)=(.*)$/is.exec(text);
  if (eq) {
    const name = eq[1]!.toLowerCase();
    const value = eq[2]!;
    if (name === 'redirect' || name === 'exp') {
      const err = domainSpecError(value);
      if (err)
        return issue(text, `invalid ${name}= domain: ${err}`, `Write "${name}=" followed by a full domain name.`);
    } else if (!ANY_MACRO_STRING.test(value))
      return issue(
        text,
        'the modifier value holds an invalid macro',
        'Fix or remove this modifier ("%" starts a macro).',
      );
    return { kind: 'modifier', text, name, value };
  }
  const m = /^([+\-~?]?)([a-z][a-z0-9]*)(.*)$/is.exec(text);
  const name = m?.[2]?.toLowerCase() ?? '';
  if (!m || !(MECHANISMS as readonly string[]).includes(name)) {
    const known = /^[+\-~?]?(redirect|exp):/i.test(text);
    return issue(
      text,
      known
        ? 'a modifier is written with "=", not ":"'
        : /^[=]/.test(text)
          ? 'a modifier without a name'
          : 'not an SPF mechanism or modifier',
      known
        ? `Write it as "${text.replace(/^[+\-~?]?(redirect|exp):/i, (_s, n: string) => `${n.toLowerCase()}=`)}".`
        : 'Remove it, or correct it to one of all, include, a, mx, ptr, ip4, ip6, exists, redirect=, exp=.',
    );
  }
  const qualifier = (m[1] || '+') as SpfQualifier;
  const rest = m[3]!;
  const mech = (domain: string | null): SpfMechanism => ({
    kind: 'mechanism',
    text,
    qualifier,
    name: name as MechanismName,
    domain,
  });
  const badDomain = (err: string) =>
    issue(text, `invalid domain in ${name}: ${err}`, `Give ${name} a full domain name, e.g. "${name}:example.com".`);
  switch (name) {
    case 'all':
      return rest === ''
        ? mech(null)
        : issue(text, '"all" takes no argument', `Write "${qualifier === '+' ? '' : qualifier}all" alone.`);
    case 'include':
    case 'exists': {
      if (!rest.startsWith(':'))
        return issue(text, `${name} needs a domain ("${name}:domain")`, `Write "${name}:" followed by the domain.`);
      const err = domainSpecError(rest.slice(1));
      return err ? badDomain(err) : mech(rest.slice(1));
    }
    case 'ptr': {
      if (rest === '') return mech(null);
      if (!rest.startsWith(':'))
        return issue(
          text,
          'ptr takes no prefix length',
          'Remove the "/…" (and better: replace ptr with ip4/ip6 or a).',
        );
      const err = domainSpecError(rest.slice(1));
      return err ? badDomain(err) : mech(rest.slice(1));
    }
    case 'a':
    case 'mx': {
      // [ ":" domain-spec ] [ ip4-cidr-length ] [ "//" ip6-cidr-length ]
      const c = /^(.*?)(?:\/(\d+))?(?:\/\/(\d+))?$/s.exec(rest)!;
      const [, spec, c4, c6] = c;
      if (spec !== '' && !spec!.startsWith(':'))
        return issue(
          text,
          `${name} is followed by "${rest}", not ":domain" or a prefix length`,
          `Write "${name}", "${name}:domain" or "${name}/24//64".`,
        );
      if (c4 !== undefined && (!CIDR4.test(c4) || Number(c4) > 32))
        return issue(
          text,
          `IPv4 prefix length /${c4} is not 0-32`,
          'Use an IPv4 prefix length from 0 to 32 (no leading zero).',
        );
      if (c6 !== undefined && (!CIDR6.test(c6) || Number(c6) > 128))
        return issue(
          text,
          `IPv6 prefix length //${c6} is not 0-128`,
          'Use an IPv6 prefix length from 0 to 128, written after "//".',
        );
      if (spec === '') return mech(null);
      const err = domainSpecError(spec!.slice(1));
      return err ? badDomain(err) : mech(spec!.slice(1));
    }
    case 'ip4':
    case 'ip6': {
      if (!rest.startsWith(':'))
        return issue(
          text,
          `${name} needs an address ("${name}:address")`,
          `Write "${name}:" followed by the address or network.`,
        );
      const slash = rest.indexOf('/');
      const addr = slash < 0 ? rest.slice(1) : rest.slice(1, slash);
      const cidr = slash < 0 ? undefined : rest.slice(slash + 1);
      const v4 = name === 'ip4';
      if (!(v4 ? IP4.test(addr) : ip6Valid(addr)))
        return issue(
          text,
          `"${addr}" is not a full IPv${v4 ? 4 : 6} address`,
          v4
            ? 'Write all four parts (e.g. "ip4:192.0.2.0/24"), without a port.'
            : 'Write an IPv6 address (e.g. "ip6:2001:db8::/32").',
        );
      if (cidr !== undefined && (!(v4 ? CIDR4 : CIDR6).test(cidr) || Number(cidr) > (v4 ? 32 : 128)))
        return issue(
          text,
          `prefix length /${cidr} is not 0-${v4 ? 32 : 128}`,
          `Use one prefix length from 0 to ${v4 ? 32 : 128} (no leading zero).`,
        );
      return mech(null);
    }
  }
  return issue(text, 'not an SPF mechanism', 'Remove it.');
}

/** Parses one SPF record (starting with v=spf1); every syntax error is an issue (a permerror). */
export function parseSpfRecord(record: string): ParsedSpf {
  const out: ParsedSpf = { terms: [], mechanisms: [], redirect: null, exp: null, errors: [] };
  // Only visible US-ASCII and spaces (§3.1, §4.6.1): one bad byte makes the whole record a permerror.
  const bad = /[^\x20-\x7e]/.exec(record);
  if (bad) {
    const code = bad[0].charCodeAt(0);
    const where = record.slice(0, bad.index).split(' ').pop() ?? '';
    out.errors.push(
      issue(
        `${where}\\x${code.toString(16).padStart(2, '0')}`,
        code < 0x20 || code === 0x7f
          ? 'a control character in the record (terms are separated by spaces only)'
          : 'a non-ASCII character in the record',
        'Republish the record in plain ASCII, separating terms with single spaces.',
      ),
    );
    return out;
  }
  const words = record.split(' ').slice(1).filter(Boolean);
  for (const w of words) {
    const t = parseTerm(w);
    if ('reason' in t) out.errors.push(t);
    else {
      out.terms.push(t);
      if (t.kind === 'mechanism') out.mechanisms.push(t);
      else if (t.name === 'redirect' || t.name === 'exp') {
        if (out[t.name] !== null)
          out.errors.push(issue(w, `${t.name}= appears more than once`, `Keep a single ${t.name}= modifier.`));
        out[t.name] = t.value;
      }
    }
  }
  return out;
}

/**
 * Expands the macros of a domain-spec that are known without a sender (%{d}: the current domain,
 * %{o}: the checked domain, %%, %_, %-); null when it needs the sender's address, helo or local part.
 */
export function expandStatic(spec: string, current: string, checked: string): string | null {
  let dependent = false;
  const out = spec.replace(
    /%\{([a-z])(\d*)(r?)([.\-+,/_=]*)\}|%%|%_|%-/gi,
    (m, letter?: string, digits?: string, rev?: string, delims?: string) => {
      if (m === '%%') return '%';
      if (m === '%_') return ' ';
      if (m === '%-') return '%20';
      const l = letter!.toLowerCase();
      if (l !== 'd' && l !== 'o') {
        dependent = true;
        return '';
      }
      const value = l === 'd' ? current : checked;
      const split = new RegExp(`[${(delims || '.').replace(/[-\\\]^]/g, '\\$&')}]`);
      let parts = value.split(split);
      if (rev) parts = parts.reverse();
      if (digits && Number(digits) > 0) parts = parts.slice(-Number(digits));
      return parts.join('.');
    },
  );
  return dependent ? null : out.replace(/\.$/, '');
}

/** A name that a DNS query can be made of (no empty or over-long label, at most 253 characters). */
export function queryableName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && name.split('.').every((l) => l.length > 0 && l.length <= 63);
}

/** What the walk of the record tree found (services/spf.ts), to be judged. */
export interface SpfWalk {
  /** The SPF records at the checked name. */
  records: string[];
  /** null: the walk was made; a string: the look-up of the checked name failed (why). */
  failed: string | null;
  errors: SpfIssue[];
  warnings: SpfIssue[];
  /** A look-up inside the tree failed: a receiver would answer temperror for the senders that reach it. */
  temperror: string | null;
  lookups: number;
  void_lookups: number;
  /** The `all` that ends evaluation of the checked name (after redirects), e.g. "-all"; null when none. */
  all: string | null;
}

/** The finding as one line: the term, what is wrong and how to fix it (the reasons, CLI and dashboard show it). */
export const issueText = (i: SpfIssue): string => `${i.term}: ${i.reason} (fix: ${i.fix})`;

/**
 * The verdict. spf_result: valid, permerror (a receiver would give permerror for some sender),
 * temperror (a look-up failed) or none (no record). status: fail for none, permerror and "+all";
 * unknown for temperror; pass otherwise (other weaknesses are warnings).
 */
export function judgeSpf(w: SpfWalk) {
  const base = {
    records: w.records,
    lookups: w.lookups,
    void_lookups: w.void_lookups,
    all: w.all,
    errors: w.errors,
    warnings: w.warnings,
  };
  if (w.failed !== null)
    return { status: 'unknown' as const, reason: w.failed, spf_result: 'temperror' as const, ...base, problems: [] };
  if (w.records.length === 0)
    return { status: 'fail' as const, spf_result: 'none' as const, ...base, problems: ['no SPF record'] };
  const weak = w.all === '+all' ? ['"+all" lets every server on the internet send mail as this domain'] : [];
  if (w.errors.length)
    return {
      status: 'fail' as const,
      spf_result: 'permerror' as const,
      ...base,
      problems: [...w.errors.map(issueText), ...weak],
    };
  if (w.temperror !== null)
    return { status: 'unknown' as const, reason: w.temperror, spf_result: 'temperror' as const, ...base, problems: [] };
  return {
    status: weak.length ? ('fail' as const) : ('pass' as const),
    spf_result: 'valid' as const,
    ...base,
    problems: weak,
  };
}

export type SpfResult = ReturnType<typeof judgeSpf>;

/** The weaknesses of a valid top-level record: reported on top of validity, never instead of it. */
export function weaknesses(p: ParsedSpf, all: SpfMechanism | undefined): SpfIssue[] {
  const out: SpfIssue[] = [];
  if (all?.qualifier === '+')
    out.push(
      issue(
        all.text,
        '"+all" lets every server on the internet send mail as this domain',
        'Replace it with "-all" (or "~all").',
      ),
    );
  if (all?.qualifier === '?')
    out.push(
      issue(
        all.text,
        '"?all" is neutral: mail from any server is neither passed nor failed',
        'Replace it with "~all" or "-all".',
      ),
    );
  if (!all && p.redirect === null)
    out.push(
      issue(
        '(no all)',
        'the record ends without "all" or redirect=, so the default result is neutral',
        'End the record with "-all" (or "~all").',
      ),
    );
  return out;
}

export const ptrWarning = (term: string): SpfIssue =>
  issue(
    term,
    'ptr is slow and unreliable; RFC 7208 says not to use it',
    'Replace it with ip4/ip6, a or include terms.',
  );
