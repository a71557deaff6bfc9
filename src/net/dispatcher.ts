// undici (the HTTP client of RDAP and of the notification channels) is the largest package dommon
// loads: it loads with the first request sent, not with whoever composes the services, so a command
// that sends none (`dommon domains list`) does not load it. Types stay static.
import type { Dispatcher, request } from 'undici';
import type { Resolver } from './resolve.js';

/** A dispatcher, or the function that makes it at its first use. */
export type DispatcherSource = Dispatcher | (() => Promise<Dispatcher>);

/** What the requests take from undici. */
interface Client {
  request: typeof request;
}
let client: Promise<Client> | undefined;

/**
 * undici, loaded once. A CommonJS package is read from `default` (module.exports): Node's import()
 * also offers its named exports, the esbuild bundles' (scripts/bundle.mjs, the test files') only `default`.
 */
export function undici(): Promise<Client> {
  return (client ??= import('undici').then((m) => m.default));
}

/** The guarded agent (net/guarded-agent.ts) over `resolver`, made by the first request that needs it. */
export function lazyGuardedAgent(resolver: Resolver, opts: { ca?: string | string[] } = {}): () => Promise<Dispatcher> {
  let made: Promise<Dispatcher> | undefined;
  return () => (made ??= import('./guarded-agent.js').then((m) => m.guardedAgent(resolver, opts)));
}

/** The dispatcher a request goes through: the one given (made now if it is made lazily), else the default policy's. */
export async function dispatcherOf(source: DispatcherSource | undefined): Promise<Dispatcher> {
  if (typeof source === 'function') return source();
  return source ?? (await import('./guarded-agent.js')).defaultGuardedAgent();
}
