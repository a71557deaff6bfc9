// What changed in the scheduler's working set, said by the service that changed it (after its commit):
// the liveness scheduler re-reads only that config, endpoint or domain instead of the whole fleet.
// `created`: a new config (its due-queue row was inserted, unleased and due, with it: nothing to wake).
export type WorkingSetChange = { config: string; created?: true } | { endpoint: string } | { domain: string };

export interface ChangeFeed {
  emit(change: WorkingSetChange): void;
  subscribe(fn: (change: WorkingSetChange) => void): () => void;
}

export function createChangeFeed(): ChangeFeed {
  const listeners = new Set<(change: WorkingSetChange) => void>();
  return {
    emit: (change) => listeners.forEach((l) => l(change)),
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
