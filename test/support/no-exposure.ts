// Service dependencies for tests that build the services by hand and never scan: the exposure
// scanner is given no way out (every address denied, every DNS question refused), so a scan that
// ran by mistake would fail in the test rather than reach the network.
import type { ServiceDeps } from '../../src/services/deps.js';
import { createExposureNet } from '../../src/probes/exposure-net.js';
import { outboundPolicy } from '../../src/domain/outbound.js';

export function noExposure(): ServiceDeps['exposure'] {
  const refuse = () => Promise.reject(new Error('this test gives the exposure scanner no DNS'));
  return {
    dns: {
      lookup: { a: refuse, aaaa: refuse, cname: refuse, ns: refuse, txt: refuse, caa: refuse, mx: refuse },
      axfr: refuse,
    },
    net: createExposureNet({ policy: outboundPolicy('0.0.0.0/0,::/0', undefined) }),
  };
}
