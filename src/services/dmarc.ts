// The DMARC look-ups of a name: `_dmarc.<name>`, else `_dmarc.<organisational domain>` (RFC 7489
// 6.6.3), and the authorisation records of external report destinations (7.1); domain/dmarc.ts judges.
import {
  dmarcFallback,
  dmarcRecords,
  evaluateDmarc,
  reportAuthorizationNames,
  type DmarcResult,
} from '../domain/dmarc.js';
import type { DnsResolver } from '../probes/dns.js';

const errText = (err: unknown) => (err as Error)?.message ?? String(err);

/** A failed record look-up throws (the caller makes it temperror); a failed authorisation look-up is a warning. */
export async function lookUpDmarc(dns: Pick<DnsResolver, 'txt'>, name: string): Promise<DmarcResult> {
  const txts = await dns.txt(`_dmarc.${name}`);
  const fallback = dmarcFallback(name, txts);
  const org = fallback ? { domain: fallback, txts: await dns.txt(`_dmarc.${fallback}`) } : undefined;
  const used = dmarcRecords(org ? org.txts : txts);
  const names = used.length === 1 ? reportAuthorizationNames(used[0]!, org ? org.domain : name) : [];
  const answers = await Promise.all(
    names.map((n) =>
      dns.txt(n).then(
        (v): string[] | { error: string } => v,
        (err: unknown) => ({ error: errText(err) }),
      ),
    ),
  );
  return evaluateDmarc({ domain: name, txts, org, reports: Object.fromEntries(names.map((n, i) => [n, answers[i]!])) });
}
