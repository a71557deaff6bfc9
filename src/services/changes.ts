// What changed in the scheduler's working set, said by the service that changed it (after its commit):
// the liveness scheduler re-reads only that config, endpoint or domain instead of the whole fleet.
export type WorkingSetChange = { config: string } | { endpoint: string } | { domain: string };

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
