// zone_transfer: the domain's nameservers answer a full zone transfer (AXFR) to anyone.
import type { DetectedFinding } from '../../../domain/exposure.js';
import type { ExposureCheck } from '../types.js';

export const zoneTransfer: ExposureCheck = {
  category: 'zone_transfer',
  description: "Open zone transfer: each of the domain's nameservers is asked for AXFR over TCP",
  async run(ctx) {
    const out: DetectedFinding[] = [];
    const zone = ctx.inventory.domain;
    const nsLookup = await ctx.dnsLimit(() => ctx.dns.lookup.ns(zone));
    if (nsLookup.status === 'error') throw new Error(`NS look-up failed: ${nsLookup.error}`);
    const nameservers = nsLookup.status === 'ok' ? nsLookup.records.map((n) => n.toLowerCase().replace(/\.$/, '')) : [];
    // One nameserver at a time: polite to the servers being tested.
    for (const ns of nameservers) {
      if (ctx.signal.aborted) break;
      const a = await ctx.dnsLimit(() => ctx.dns.lookup.a(ns));
      const addresses = a.status === 'ok' ? a.records : [];
      for (const address of addresses) {
        const r = await ctx.dns.axfr(address, ctx.net.portFor(53, address), zone, ctx.options.axfrTimeoutMs);
        if (!r.ok) continue;
        const names = [...new Set(r.records.map((x) => x.name.toLowerCase()))];
        out.push({
          category: 'zone_transfer',
          severity: 'high',
          host: ns,
          key: `axfr:${zone}`,
          title: `Open zone transfer: ${ns} hands out the whole ${zone} zone`,
          details: {
            provider: null,
            evidence: `AXFR of ${zone} from ${ns} (${address}) returned ${r.records.length} records, e.g. ${names.slice(0, 5).join(', ')}`,
            remediation: `Restrict zone transfers on ${ns} to your secondary nameservers (allow-transfer / TSIG), and refuse AXFR from anyone else.`,
          },
        });
        break;
      }
    }
    return out;
  },
};
