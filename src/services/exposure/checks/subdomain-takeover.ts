// subdomain_takeover: a CNAME to a takeover-prone service whose target no longer exists (NXDOMAIN),
// or whose site answers with the provider's "no such site" page.
import type { DetectedFinding } from '../../../domain/exposure.js';
import { providerFor, type TakeoverFingerprint } from '../fingerprints.js';
import type { CheckContext, ExposureCheck, HostInfo } from '../types.js';

async function unclaimedPage(ctx: CheckContext, h: HostInfo, fp: TakeoverFingerprint): Promise<string | null> {
  if (!fp.markers.length || !h.addresses.length) return null;
  const address = h.addresses[0]!;
  for (const tlsOn of [false, true]) {
    const res = await ctx.limit(() => ctx.net.http(address, h.name, tlsOn, ctx.options.httpTimeoutMs));
    const marker = res.ok ? fp.markers.find((m) => res.body?.includes(m)) : undefined;
    if (marker) return `${tlsOn ? 'https' : 'http'}://${h.name}/ answered ${res.status} with "${marker}"`;
    if (res.ok) return null;
  }
  return null;
}

export const subdomainTakeover: ExposureCheck = {
  category: 'subdomain_takeover',
  description:
    'CNAMEs to takeover-prone services (GitHub Pages, Heroku, S3, Azure, ...) whose target is NXDOMAIN or shows the provider\'s "no such site" page',
  async run(ctx) {
    const out: DetectedFinding[] = [];
    await Promise.all(
      ctx.inventory.hosts.map(async (h) => {
        if (!h.cname || ctx.signal.aborted) return;
        const fp = providerFor(h.cname);
        if (!fp) return;
        let evidence: string | null = null;
        if (h.targetNxdomain) {
          evidence = `${h.name} is a CNAME to ${h.cname}, which does not exist (NXDOMAIN)`;
        } else {
          const page = await unclaimedPage(ctx, h, fp);
          if (page) evidence = `${h.name} is a CNAME to ${h.cname}; ${page}`;
        }
        if (!evidence) return;
        out.push({
          category: 'subdomain_takeover',
          severity: 'critical',
          host: h.name,
          key: `cname:${h.cname}`,
          title: `Subdomain takeover possible: ${h.name} points at an unclaimed ${fp.provider} name`,
          details: { provider: fp.provider, evidence, remediation: fp.remediation },
        });
      }),
    );
    return out;
  },
};
