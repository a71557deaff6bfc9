// The SPF record tree of a name walked with the real look-ups, for every address (as checkdmarc does):
// every include and redirect is followed, past an `all` and past terms one sender would match, so that
// a permerror any sender could meet is found. The rules and the verdict are in domain/spf.ts.
import {
  SPF_MAX_LOOKUPS,
  SPF_MAX_MX_NAMES,
  SPF_MAX_VOID_LOOKUPS,
  expandStatic,
  isSpf,
  parseSpfRecord,
  ptrWarning,
  queryableName,
  weaknesses,
  type SpfIssue,
  type SpfMechanism,
  type SpfWalk,
} from '../domain/spf.js';
import type { Lookup, MxRecord } from '../probes/dns.js';

/** The questions an SPF walk asks (DnsResolver.lookup answers them). */
interface SpfResolver {
  txt(name: string): Promise<Lookup<string>>;
  a(name: string): Promise<Lookup<string>>;
  aaaa(name: string): Promise<Lookup<string>>;
  mx(name: string): Promise<Lookup<MxRecord>>;
}

/** Past this many look-ups the walk stops (the record is a permerror since the 11th). */
const WALK_CAP = SPF_MAX_LOOKUPS * 4;
/** Resolver answers that say the name cannot be asked: no match, as for a name that does not exist. */
const BAD_NAME = new Set(['EBADNAME', 'EBADQUERY', 'EBADSTR']);

export async function walkSpf(name: string, records: string[], dns: SpfResolver): Promise<SpfWalk> {
  const errors: SpfIssue[] = [];
  const warnings: SpfIssue[] = [];
  let temperror: string | null = null;
  let lookups = 0;
  let voids = 0;
  const at = (term: string, domain: string) => (domain === name ? term : `${term} (in the record of ${domain})`);
  const push = (list: SpfIssue[], term: string, domain: string, reason: string, fix: string) => {
    const t = at(term, domain);
    if (!list.some((i) => i.term === t && i.reason === reason)) list.push({ term: t, reason, fix });
  };

  const countVoid = (m: { text: string }, domain: string) => {
    if (++voids === SPF_MAX_VOID_LOOKUPS + 1)
      push(
        errors,
        m.text,
        domain,
        `a third look-up that finds nothing (more than ${SPF_MAX_VOID_LOOKUPS} void look-ups, RFC 7208 4.6.4)`,
        'Remove terms that name domains without the records asked (no A/AAAA, no MX, or no such name).',
      );
  };
  /** One look-up; a failure other than "no such name" is a temperror (what the walk found stays). */
  async function ask<T>(m: { text: string }, fn: () => Promise<Lookup<T>>): Promise<Lookup<T>> {
    const r = await fn();
    if (r.status === 'error') {
      if (BAD_NAME.has(r.error)) return { status: 'nxdomain' };
      temperror ??= `${m.text}: DNS ${r.error}`;
    }
    return r;
  }
  const isVoid = (r: Lookup<unknown>) => r.status === 'nxdomain' || r.status === 'nodata';
  /** Counts a look-up term; false once past the cap (stop walking). */
  const count = (m: { text: string }, domain: string): boolean => {
    lookups++;
    if (lookups === SPF_MAX_LOOKUPS + 1)
      push(
        errors,
        m.text,
        domain,
        `the ${SPF_MAX_LOOKUPS + 1}th DNS look-up: the record tree needs more than ${SPF_MAX_LOOKUPS} (RFC 7208 4.6.4)`,
        `Flatten includes (list their ip4/ip6 networks) or drop unused terms to need at most ${SPF_MAX_LOOKUPS}.`,
      );
    return lookups <= WALK_CAP;
  };
  /** The target name of a term, or null when it depends on the sender (macros) and cannot be asked. */
  const target = (m: SpfMechanism | { text: string; domain: string }, domain: string): string | null =>
    m.domain === null ? domain : expandStatic(m.domain, domain, name);

  /** The one SPF record at an include or redirect target; null (with the error or temperror noted) otherwise. */
  async function recordAt(m: { text: string }, domain: string, to: string, what: string): Promise<string | null> {
    const r = queryableName(to) ? await ask(m, () => dns.txt(to)) : ({ status: 'nxdomain' } as const);
    if (r.status === 'error') return null;
    const spf = r.status === 'ok' ? r.records.filter(isSpf) : [];
    if (isVoid(r)) countVoid(m, domain);
    if (spf.length === 1) return spf[0]!;
    push(
      errors,
      m.text,
      domain,
      spf.length ? `${what} ${to} has ${spf.length} SPF records` : `${what} ${to} has no SPF record`,
      spf.length
        ? `Ask the owner of ${to} to merge them into one, or stop using it.`
        : `Remove it, or point it at a name that publishes a "v=spf1" record.`,
    );
    return null;
  }

  /** Walks one record; returns the `all` that ends its evaluation (after its redirect), if any. */
  async function visit(domain: string, record: string, chain: string[]): Promise<string | null> {
    const p = parseSpfRecord(record);
    // A syntax error makes the record a permerror; the valid terms are still walked, to find the rest.
    for (const e of p.errors) push(errors, e.term, domain, e.reason, e.fix);
    const all = p.mechanisms.find((m) => m.name === 'all');
    for (const m of p.mechanisms) {
      if (m.name === 'ptr') push(warnings, m.text, domain, ptrWarning(m.text).reason, ptrWarning(m.text).fix);
      if (m.name === 'all' || m.name === 'ip4' || m.name === 'ip6') continue;
      if (!count(m, domain)) return null;
      if (m.name === 'ptr') continue; // asks for the sender's address: nothing to ask without one
      const to = target(m, domain);
      if (to === null) {
        if (m.name === 'include')
          push(
            warnings,
            m.text,
            domain,
            'the include target depends on the sender (macros): not followed',
            'None needed if intended.',
          );
        continue;
      }
      if (m.name === 'include') {
        if (chain.includes(to.toLowerCase())) {
          push(
            errors,
            m.text,
            domain,
            `include loop: ${[...chain, to.toLowerCase()].join(' -> ')}`,
            'Remove the include that leads back.',
          );
          continue;
        }
        const inner = await recordAt(m, domain, to, 'the included name');
        if (inner !== null) await visit(to.toLowerCase(), inner, [...chain, to.toLowerCase()]);
        continue;
      }
      if (!queryableName(to)) {
        countVoid(m, domain);
        continue;
      }
      if (m.name === 'exists') {
        if (isVoid(await ask(m, () => dns.a(to)))) countVoid(m, domain);
      } else if (m.name === 'a') {
        // Void when the name has neither A nor AAAA (an IPv4-only host is no void look-up for anyone).
        const [v4, v6] = [await ask(m, () => dns.a(to)), await ask(m, () => dns.aaaa(to))];
        if (isVoid(v4) && isVoid(v6)) countVoid(m, domain);
      } else {
        const mx = await ask(m, () => dns.mx(to));
        if (isVoid(mx)) countVoid(m, domain);
        if (mx.status !== 'ok') continue;
        if (mx.records.length > SPF_MAX_MX_NAMES)
          push(
            errors,
            m.text,
            domain,
            `${to} has ${mx.records.length} MX names (more than ${SPF_MAX_MX_NAMES}, RFC 7208 4.6.4)`,
            `List the mail servers' networks with ip4/ip6 instead of "${m.text}".`,
          );
        const hosts = mx.records.map((r) => r.exchange.replace(/\.$/, '')).filter((h) => h !== '');
        for (const h of hosts.slice(0, SPF_MAX_MX_NAMES)) {
          if (!queryableName(h)) continue;
          await ask(m, () => dns.a(h));
          await ask(m, () => dns.aaaa(h));
        }
      }
    }
    if (p.redirect === null) return all ? `${all.qualifier}all` : null;
    const redirect = { text: `redirect=${p.redirect}`, domain: p.redirect };
    if (all) {
      push(warnings, redirect.text, domain, 'redirect= is ignored: the record has "all"', 'Remove one of them.');
      return `${all.qualifier}all`;
    }
    if (!count(redirect, domain)) return null;
    const to = target(redirect, domain);
    if (to === null) {
      push(
        warnings,
        redirect.text,
        domain,
        'the redirect target depends on the sender (macros): not followed',
        'None needed if intended.',
      );
      return null;
    }
    if (chain.includes(to.toLowerCase())) {
      push(
        errors,
        redirect.text,
        domain,
        `redirect loop: ${[...chain, to.toLowerCase()].join(' -> ')}`,
        'Point redirect= at a record that does not lead back.',
      );
      return null;
    }
    const inner = await recordAt(redirect, domain, to, 'the redirect target');
    return inner === null ? null : visit(to.toLowerCase(), inner, [...chain, to.toLowerCase()]);
  }

  let all: string | null = null;
  if (records.length > 1) {
    push(
      errors,
      `${records.length} records`,
      name,
      `${records.length} SPF records at ${name} (exactly one is allowed)`,
      `Merge them into a single "v=spf1" TXT record.`,
    );
    const first = parseSpfRecord(records[0]!).mechanisms.find((m) => m.name === 'all');
    all = first ? `${first.qualifier}all` : null;
  } else if (records.length === 1) {
    all = await visit(name.toLowerCase(), records[0]!, [name.toLowerCase()]);
    const top = parseSpfRecord(records[0]!);
    if (!top.errors.length && errors.length === 0) {
      const allMech = top.mechanisms.find((m) => m.name === 'all');
      // The top record's own weaknesses; "+all" reached through a redirect too.
      const weak = weaknesses(top, allMech ?? (all ? ({ text: all, qualifier: all[0] } as SpfMechanism) : undefined));
      warnings.unshift(...weak.filter((w) => !(top.redirect !== null && w.term === '(no all)')));
    }
  }
  return {
    records,
    failed: null,
    errors,
    warnings,
    temperror,
    lookups,
    void_lookups: voids,
    all,
  };
}
