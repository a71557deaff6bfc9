// The key failed authentications are counted under (services/auth-throttle.ts). Pure.
import ipaddr from 'ipaddr.js';

/**
 * IPv4 as it is (also when written as ::ffff:a.b.c.d), IPv6 by its /64 (one host usually holds a whole
 * /64, so counting single addresses would not slow it down); anything else as given.
 */
export function clientKey(ip: string | undefined): string {
  const a = (ip ?? '').trim().replace(/%.*$/, '');
  if (!ipaddr.isValid(a)) return a || 'unknown';
  const addr = ipaddr.process(a);
  if (addr.kind() === 'ipv4') return addr.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/64`).toString()}/64`;
}
