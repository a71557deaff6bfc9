// The exposure checks, one per finding category: adding a check is one file plus one entry here.
import type { ExposureCategory } from '../../../domain/exposure.js';
import type { ExposureCheck } from '../types.js';
import { subdomainTakeover } from './subdomain-takeover.js';
import { danglingDns } from './dangling-dns.js';
import { openPort } from './open-port.js';
import { zoneTransfer } from './zone-transfer.js';
import { weakTls } from './weak-tls.js';
import { dnsMisconfiguration } from './dns-misconfiguration.js';

export const EXPOSURE_CHECKS = {
  subdomain_takeover: subdomainTakeover,
  dangling_dns: danglingDns,
  open_port: openPort,
  zone_transfer: zoneTransfer,
  weak_tls: weakTls,
  dns_misconfiguration: dnsMisconfiguration,
} satisfies Record<ExposureCategory, ExposureCheck>;

export { ADMIN_PORTS } from './open-port.js';
