// open_port: administrative and database ports reachable on the domain's own addresses.
import type { DetectedFinding, Severity } from '../../../domain/exposure.js';
import { ownAddressHosts, type ExposureCheck } from '../types.js';

export const ADMIN_PORTS = [21, 22, 23, 25, 3306, 5432, 6379, 9200, 11211, 27017, 3389] as const;

const SERVICES: Record<number, { name: string; severity: Severity }> = {
  21: { name: 'FTP', severity: 'medium' },
  22: { name: 'SSH', severity: 'low' },
  23: { name: 'Telnet', severity: 'high' },
  25: { name: 'SMTP', severity: 'info' },
  3306: { name: 'MySQL', severity: 'high' },
  5432: { name: 'PostgreSQL', severity: 'high' },
  6379: { name: 'Redis', severity: 'high' },
  9200: { name: 'Elasticsearch', severity: 'high' },
  11211: { name: 'Memcached', severity: 'high' },
  27017: { name: 'MongoDB', severity: 'high' },
  3389: { name: 'Remote Desktop (RDP)', severity: 'high' },
};

export const openPort: ExposureCheck = {
  category: 'open_port',
  description: `Administrative and database ports (${ADMIN_PORTS.join(', ')}) open on the addresses of the domain's own names`,
  async run(ctx) {
    const byAddress = new Map<string, string[]>();
    for (const h of ownAddressHosts(ctx.inventory))
      for (const a of h.addresses) byAddress.set(a, [...(byAddress.get(a) ?? []), h.name]);
    const out: DetectedFinding[] = [];
    await Promise.all(
      [...byAddress].flatMap(([address, names]) =>
        ctx.options.adminPorts.map(async (port) => {
          if (ctx.signal.aborted) return;
          if ((await ctx.tcp(address, port)) !== 'open') return;
          const svc = SERVICES[port] ?? { name: `port ${port}`, severity: 'medium' as Severity };
          const host = [...names].sort()[0]!;
          out.push({
            category: 'open_port',
            severity: svc.severity,
            host,
            key: `${address}:${port}`,
            title: `${svc.name} port ${port} open on ${host} (${address})`,
            details: {
              provider: null,
              evidence: `TCP connect to ${address}:${port} succeeded; names: ${[...names].sort().join(', ')}`,
              remediation:
                port === 25
                  ? 'Expected on mail servers; otherwise close the port.'
                  : `Do not expose ${svc.name} to the internet: firewall port ${port} to trusted addresses or reach it over a VPN/SSH tunnel.`,
            },
          });
        }),
      ),
    );
    return out;
  },
};
