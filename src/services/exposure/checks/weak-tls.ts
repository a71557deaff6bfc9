// weak_tls: legacy protocol versions (TLS 1.0/1.1) accepted, and expired or mismatched certificates
// on the domain's names (port 443).
import type { DetectedFinding } from '../../../domain/exposure.js';
import type { TlsAnswer } from '../../../probes/exposure-net.js';
import type { CheckContext, ExposureCheck, HostInfo } from '../types.js';

async function inspect(ctx: CheckContext, h: HostInfo): Promise<DetectedFinding[]> {
  const address = h.addresses[0]!;
  if ((await ctx.tcp(address, 443)) !== 'open') return [];
  const t = ctx.options.tlsTimeoutMs;
  const hs = (min: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2', max: 'TLSv1' | 'TLSv1.1' | 'TLSv1.3'): Promise<TlsAnswer> =>
    ctx.limit(() => ctx.net.tls(address, h.name, { min, max }, t));
  const modern = await hs('TLSv1.2', 'TLSv1.3');
  const v10 = await hs('TLSv1', 'TLSv1');
  const v11 = await hs('TLSv1.1', 'TLSv1.1');
  const out: DetectedFinding[] = [];
  const legacy = [v10.ok ? 'TLS 1.0' : null, v11.ok ? 'TLS 1.1' : null].filter((x): x is string => x !== null);
  if (legacy.length) {
    out.push({
      category: 'weak_tls',
      severity: 'medium',
      host: h.name,
      key: 'legacy-protocols',
      title: `${h.name} accepts ${legacy.join(' and ')}`,
      details: {
        provider: null,
        evidence: `handshakes limited to ${legacy.join(', ')} succeeded on ${address}:443${modern.ok ? `; modern handshake: ${modern.protocol}` : '; TLS 1.2+ refused'}`,
        remediation:
          'Disable TLS 1.0 and 1.1 on the server (allow TLS 1.2 and 1.3 only); they are deprecated (RFC 8996).',
      },
    });
  }
  const cert = modern.cert ?? v10.cert ?? v11.cert;
  if (!cert) return out;
  const validTo = new Date(cert.validTo);
  if (!Number.isNaN(validTo.getTime()) && validTo.getTime() < ctx.clock.now().getTime()) {
    out.push({
      category: 'weak_tls',
      severity: 'high',
      host: h.name,
      key: 'expired-certificate',
      title: `Expired certificate on ${h.name}`,
      details: {
        provider: null,
        evidence: `certificate ${cert.subject.replace(/\n/g, ', ')} expired ${validTo.toISOString()}`,
        remediation: `Renew the certificate of ${h.name} (and automate renewal), or remove the name if it is no longer used.`,
      },
    });
  }
  if (cert.checkHost(h.name) === undefined) {
    out.push({
      category: 'weak_tls',
      severity: 'medium',
      host: h.name,
      key: 'name-mismatch',
      title: `Certificate on ${h.name} does not cover the name`,
      details: {
        provider: null,
        evidence: `certificate names: ${cert.subjectAltName ?? cert.subject.replace(/\n/g, ', ')}`,
        remediation: `Serve a certificate whose subject alternative names include ${h.name}.`,
      },
    });
  }
  return out;
}

export const weakTls: ExposureCheck = {
  category: 'weak_tls',
  description: 'TLS 1.0/1.1 accepted, expired or name-mismatched certificates on port 443 of each name',
  async run(ctx) {
    const hosts = ctx.inventory.hosts.filter((h) => h.addresses.length > 0);
    const found = await Promise.all(hosts.map((h) => (ctx.signal.aborted ? Promise.resolve([]) : inspect(ctx, h))));
    return found.flat();
  },
};
