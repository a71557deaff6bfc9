// Actions on many endpoints at once (the dashboard's ticked rows): pause or resume their liveness
// checks, or delete them. Each endpoint is its own transaction, done as the single route would do
// it, and answered per item, so one endpoint that cannot be changed never holds back the others.
import { Conflict, NotFound, type ErrorMeaning } from '../domain/errors.js';
import type { Store } from '../store/index.js';
import { eachItem } from './bulk.js';
import type { EndpointService } from './endpoints.js';
import type { createLivenessService } from './liveness.js';

export const ENDPOINT_ACTIONS = ['pause', 'resume', 'delete'] as const;
export type EndpointAction = (typeof ENDPOINT_ACTIONS)[number];

export type EndpointActionOutcome =
  | { endpoint_id: string; ok: true }
  | { endpoint_id: string; ok: false; error: string; code: string | undefined; meaning: ErrorMeaning };

export function createEndpointActions({
  store,
  endpoints,
  liveness,
}: {
  store: Store;
  endpoints: EndpointService;
  liveness: ReturnType<typeof createLivenessService>;
}) {
  async function one(teamId: string, action: EndpointAction, id: string): Promise<void> {
    if (action === 'delete') {
      await endpoints.remove(teamId, id);
      return;
    }
    // Another team's endpoint is not found, as everywhere.
    if (!(await store.endpoints.get(teamId, id))) throw new NotFound('Endpoint');
    const config = (await liveness.list(teamId, { endpoint_id: id }, { limit: 1, offset: 0 })).items[0];
    if (!config) throw new Conflict('the endpoint has no liveness checks to pause or resume', 'NO_LIVENESS');
    const on = action === 'resume';
    // Already in that state: done, without a write.
    if (config.is_enabled !== on) await liveness.update(teamId, config.id, { is_enabled: on });
  }

  return {
    /** Runs `action` on each endpoint (ids unique, as the request schema requires) and answers in their order. */
    async run(teamId: string, action: EndpointAction, ids: readonly string[]): Promise<EndpointActionOutcome[]> {
      const outcomes = await eachItem(ids, (id) => one(teamId, action, id));
      return outcomes.map((r, i) =>
        r.ok
          ? { endpoint_id: ids[i]!, ok: true }
          : { endpoint_id: ids[i]!, ok: false, error: r.error, code: r.code, meaning: r.meaning },
      );
    },
  };
}
