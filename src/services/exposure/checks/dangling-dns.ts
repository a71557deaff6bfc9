// dangling_dns: CNAMEs (to services outside the takeover list) whose target does not exist, and
// A/AAAA records of the domain's own names where nothing answers on TCP 80 or 443 (nor on an admin port).
import type { DetectedFinding } from '../../../domain/exposure.js';
import { providerFor } from '../fingerprints.js';
import { ownAddressHosts, type ExposureCheck } from '../types.js';

export const danglingDns: ExposureCheck = {
  category: 'dangling_dns',
  description:
    'CNAMEs to names that do not exist, and A/AAAA records pointing at addresses where nothing answers on TCP 80 or 443',
  async run(ctx) {
    const out: DetectedFinding[] = [];
    for (const h of ctx.inventory.hosts) {
      if (h.cname && h.targetNxdomain && !providerFor(h.cname)) {
        out.push({
          category: 'dangling_dns',
          severity: 'high',
          host: h.name,
          key: `cname:${h.cname}`,
          title: `Dangling CNAME: ${h.name} points at ${h.cname}, which does not exist`,
          details: {
            provider: null,
            evidence: `${h.name} CNAME ${h.cname}; resolving ${h.cname} gives NXDOMAIN`,
            remediation: `Remove the CNAME record for ${h.name}, or point it at a name you control. Whoever registers ${h.cname} would serve content on your domain.`,
          },
        });
      }
    }
    // Nameservers and mail hosts answer on other ports; they are not web hosts.
    const service = new Set([...ctx.inventory.nameservers, ...ctx.inventory.mailHosts]);
    const hosts = ownAddressHosts(ctx.inventory).filter((h) => !service.has(h.name));
    await Promise.all(
      hosts.map(async (h) => {
        if (ctx.signal.aborted) return;
        const states = await Promise.all(
          h.addresses.flatMap((a) => [80, 443].map(async (p) => ({ a, p, s: await ctx.tcp(a, p) }))),
        );
        if (states.some((x) => x.s === 'open' || x.s === 'error')) return;
        // A host that answers on one of the admin ports (a database, a mail relay) is alive, not dangling.
        const others = await Promise.all(h.addresses.flatMap((a) => ctx.options.adminPorts.map((p) => ctx.tcp(a, p))));
        if (others.some((s) => s === 'open')) return;
        out.push({
          category: 'dangling_dns',
          severity: 'medium',
          host: h.name,
          key: `address:${[...h.addresses].sort().join(',')}`,
          title: `Dangling DNS record: nothing answers at ${h.name} (${h.addresses.join(', ')})`,
          details: {
            provider: null,
            evidence: states.map((x) => `${x.a}:${x.p} ${x.s === 'closed' ? 'refused' : 'timed out'}`).join('; '),
            remediation: `Remove the A/AAAA records of ${h.name} if the server is gone; an address released back to a cloud provider can be taken by someone else.`,
          },
        });
      }),
    );
    return out;
  },
};
