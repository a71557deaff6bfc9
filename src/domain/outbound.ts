// DOMMON_OUTBOUND_DENY / DOMMON_OUTBOUND_ALLOW: which addresses no probe, scan, webhook or chat request
// may reach. Pure: the network code asks `denied(address)` of the address it is about to connect to.
import ipaddr from 'ipaddr.js';

/** The words DOMMON_OUTBOUND_DENY understands, and the ranges each stands for. */
const OUTBOUND_WORDS: Readonly<Record<string, readonly string[]>> = {
  // Loopback, RFC 1918, CGNAT, ULA, link-local; plus "this network" and the unspecified address,
  // which reach the local host on Linux (connect(0.0.0.0) is connect(127.0.0.1)).
  private: [
    '127.0.0.0/8',
    '10.0.0.0/8',
    '172.16.0.0/12',
    '192.168.0.0/16',
    '100.64.0.0/10',
    '169.254.0.0/16',
    '0.0.0.0/8',
    '::1/128',
    '::/128',
    'fc00::/7',
    'fe80::/10',
  ],
  // Cloud instance metadata services and link-local: 169.254.169.254 (AWS, GCP, Azure, Oracle, DigitalOcean,
  // OpenStack, ...) and the rest of 169.254/16 (ECS task metadata, Tencent's 169.254.0.23), 100.100.100.200
  // (Alibaba Cloud, inside CGNAT space and so not link-local), fd00:ec2::/64 (AWS over IPv6: the metadata
  // service fd00:ec2::254, its DNS and NTP), fd20:ce::254 (Google Cloud over IPv6).
  metadata: ['169.254.0.0/16', '100.100.100.200/32', 'fd00:ec2::/64', 'fd20:ce::254/128', 'fe80::/10'],
  none: [],
};

const DEFAULT_OUTBOUND_DENY = 'metadata';

type Range = { text: string; cidr: [ipaddr.IPv4 | ipaddr.IPv6, number] };

export interface OutboundPolicy {
  /** The deny entry that covers `address` (and no allow entry does), or null when it may be reached. */
  denied(address: string): string | null;
}

export class OutboundRuleError extends Error {}

/** "10.0.0.0/8", "::1/128", or a bare address (one host) -> a range; throws OutboundRuleError. */
function range(entry: string, variable: string): Range {
  const text = entry.trim();
  try {
    if (text.includes('/')) return { text, cidr: ipaddr.parseCIDR(text) };
    const a = ipaddr.parse(text);
    return { text, cidr: [a, a.kind() === 'ipv4' ? 32 : 128] };
  } catch {
    throw new OutboundRuleError(
      `${variable}: "${entry}" is not a CIDR (such as 10.0.0.0/8 or fd00::/8), an address${variable.endsWith('DENY') ? ', or one of the words private, metadata, none' : ''}`,
    );
  }
}

/** Parses the comma lists; unknown words and malformed ranges throw OutboundRuleError. */
export function outboundPolicy(deny: string | undefined, allow: string | undefined): OutboundPolicy {
  const denyRanges: Range[] = [];
  for (const entry of split(deny === undefined || deny.trim() === '' ? DEFAULT_OUTBOUND_DENY : deny)) {
    const word = OUTBOUND_WORDS[entry.toLowerCase()];
    if (word)
      denyRanges.push(
        ...word.map((c) => ({ ...range(c, 'DOMMON_OUTBOUND_DENY'), text: `${entry.toLowerCase()}: ${c}` })),
      );
    else denyRanges.push(range(entry, 'DOMMON_OUTBOUND_DENY'));
  }
  const allowRanges = split(allow ?? '').map((e) => range(e, 'DOMMON_OUTBOUND_ALLOW'));
  const covers = (rs: Range[], a: ipaddr.IPv4 | ipaddr.IPv6) =>
    rs.find((r) => r.cidr[0].kind() === a.kind() && a.match(r.cidr));
  return {
    denied(address: string): string | null {
      if (!denyRanges.length) return null;
      let a: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it reaches.
        a = ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
      } catch {
        return 'not an IP address';
      }
      if (covers(allowRanges, a)) return null;
      return covers(denyRanges, a)?.text ?? null;
    },
  };
}

function split(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The error text of a refused connection, the same for probes, scans and notifications. */
export function deniedMessage(address: string, rule: string): string {
  return `address ${address} is denied by DOMMON_OUTBOUND_DENY (${rule})`;
}
