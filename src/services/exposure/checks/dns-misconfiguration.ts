// dns_misconfiguration: missing or weak SPF and DMARC, missing CAA on the apex.
import type { DetectedFinding, Severity } from '../../../domain/exposure.js';
import type { Lookup } from '../../../probes/dns.js';
import type { ExposureCheck } from '../types.js';

function values<T>(l: Lookup<T>, what: string): T[] {
  if (l.status === 'error') throw new Error(`${what} look-up failed: ${l.error}`);
  return l.status === 'ok' ? l.records : [];
}

export const dnsMisconfiguration: ExposureCheck = {
  category: 'dns_misconfiguration',
  description: 'SPF and DMARC present and not permissive, CAA present on the apex',
  async run(ctx) {
    const d = ctx.inventory.domain;
    const [txt, dmarcTxt, caa] = await Promise.all([
      ctx.dnsLimit(() => ctx.dns.lookup.txt(d)),
      ctx.dnsLimit(() => ctx.dns.lookup.txt(`_dmarc.${d}`)),
      ctx.dnsLimit(() => ctx.dns.lookup.caa(d)),
    ]);
    const out: DetectedFinding[] = [];
    const add = (severity: Severity, key: string, title: string, evidence: string, remediation: string) =>
      out.push({
        category: 'dns_misconfiguration',
        severity,
        host: d,
        key,
        title,
        details: { provider: null, evidence, remediation },
      });

    const spf = values(txt, 'TXT').filter((v) => /^v=spf1(\s|$)/i.test(v.trim()));
    if (spf.length === 0) {
      add(
        'medium',
        'spf-missing',
        `No SPF record on ${d}`,
        `no TXT record starting with v=spf1 at ${d}`,
        `Publish an SPF TXT record at ${d}, e.g. "v=spf1 -all" if the domain sends no mail, or list your senders and end with -all or ~all.`,
      );
    } else if (spf.length > 1) {
      add(
        'medium',
        'spf-multiple',
        `Multiple SPF records on ${d}`,
        spf.join(' | '),
        'Merge them into one v=spf1 record; with several, receivers treat SPF as a permanent error.',
      );
    } else if (/(^|\s)[+]?all(\s|$)/i.test(spf[0]!)) {
      add(
        'high',
        'spf-permissive',
        `SPF on ${d} allows every sender`,
        spf[0]!,
        'End the SPF record with -all (or ~all) instead of +all.',
      );
    }

    const dmarc = values(dmarcTxt, 'DMARC TXT').filter((v) => /^v=DMARC1/i.test(v.trim()));
    if (dmarc.length === 0) {
      add(
        'medium',
        'dmarc-missing',
        `No DMARC record on ${d}`,
        `no TXT record starting with v=DMARC1 at _dmarc.${d}`,
        `Publish a DMARC TXT record at _dmarc.${d}, e.g. "v=DMARC1; p=quarantine; rua=mailto:dmarc@${d}".`,
      );
    } else if (/;\s*p\s*=\s*none/i.test(dmarc[0]!)) {
      add(
        'low',
        'dmarc-none',
        `DMARC on ${d} only monitors (p=none)`,
        dmarc[0]!,
        'Move the DMARC policy to p=quarantine or p=reject once reports look clean.',
      );
    }

    if (values(caa, 'CAA').length === 0) {
      add(
        'low',
        'caa-missing',
        `No CAA record on ${d}`,
        `no CAA records at ${d}`,
        `Publish CAA records at ${d} naming the certificate authorities you use, e.g. 0 issue "letsencrypt.org".`,
      );
    }
    return out;
  },
};
