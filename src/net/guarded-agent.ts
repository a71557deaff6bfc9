// The HTTP client of the notification channels (webhooks, provider APIs) and of RDAP: undici's Agent
// whose connector looks the host up through the guarded resolver and connects to that very address,
// so DOMMON_OUTBOUND_DENY is checked on what is dialled (no second look-up for DNS rebinding to slip past).
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { createResolver, type Resolver } from './resolve.js';
import { outboundPolicy } from '../domain/outbound.js';

export function guardedAgent(resolver: Resolver, opts: { ca?: string | string[] } = {}): Dispatcher {
  const connect = buildConnector(opts.ca ? { ca: opts.ca } : {});
  return new Agent({
    connect(o, callback) {
      // `host` keeps the name, so TLS still sends SNI and checks the certificate against it.
      resolver.resolve(o.hostname).then(
        (a) => connect({ ...o, hostname: a.address }, callback),
        (err: Error) => callback(err, null),
      );
    },
  });
}

let fallback: Dispatcher | undefined;

/** For callers given no dispatcher: the system resolvers and the default policy (`metadata`). */
export function defaultGuardedAgent(): Dispatcher {
  return (fallback ??= guardedAgent(createResolver([], { policy: outboundPolicy(undefined, undefined) })));
}
