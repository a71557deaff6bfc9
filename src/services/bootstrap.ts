// The RDAP bootstrap refresh as a singleton: the node holding the `rdap-bootstrap` lock fetches IANA's
// copy when its own is a week old and publishes it in the database (meta `rdap.bootstrap`); every
// other node, once its copy is a week old, takes the published one (looked up at most hourly). So
// IANA is asked by one node, and every node's copy stays as fresh as that node's.
import type { Logger } from 'pino';
import type { BootstrapStore } from '../probes/rdap.js';
import type { Store } from '../store/index.js';
import type { SingletonLocks } from '../store/singletons.js';

const SHARED_KEY = 'rdap.bootstrap';
const ADOPT_CHECK_MS = 3_600_000;

export function sharedBootstrapRefresh(deps: {
  bootstrap: BootstrapStore;
  store: Store;
  locks: SingletonLocks;
  log: Logger;
}): (now: Date) => Promise<void> {
  const { bootstrap, store, locks, log } = deps;
  let checkedAt = -Infinity;
  return async (now) => {
    const refreshed = await locks.run('rdap-bootstrap', async () => {
      if ((await bootstrap.refreshIfStale(now)) !== 'refreshed') return false;
      log.info('RDAP bootstrap refreshed from IANA');
      await store.meta.set(SHARED_KEY, bootstrap.saved());
      return true;
    });
    if (refreshed !== null || !bootstrap.stale(now) || performance.now() - checkedAt < ADOPT_CHECK_MS) return;
    checkedAt = performance.now();
    const shared = await store.meta.get(SHARED_KEY);
    if (shared && bootstrap.adopt(shared)) log.info('RDAP bootstrap taken from the copy another node fetched');
  };
}
