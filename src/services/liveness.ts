import { Conflict, NotFound } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import type { LivenessConfig, Page, PageOf } from '../domain/types.js';
import type { LivenessFilter } from '../store/repos/liveness.js';
import { newId } from '../store/repos/util.js';
import { isUniqueViolation, type ServiceDeps } from './deps.js';
import { createChangeFeed, type WorkingSetChange } from './changes.js';

export interface LivenessInput {
  endpoint_id: string;
  is_enabled?: boolean;
  timeout_seconds?: number;
  expected_status_code?: number;
  interval_seconds?: number;
  failure_threshold?: number;
}

export const LIVENESS_DEFAULTS = { timeout_seconds: 10, expected_status_code: 200, interval_seconds: 60, failure_threshold: 1 } as const;

export function createLivenessService({ store, clock, recomputeHealth, changes = createChangeFeed() }: ServiceDeps) {
  const changed = (id: string) => changes.emit({ config: id });

  async function get(teamId: string, id: string): Promise<LivenessConfig> {
    const c = await store.liveness.get(teamId, id);
    if (!c) throw new NotFound('Liveness configuration');
    return c;
  }

  return {
    get,
    list: (teamId: string, f: LivenessFilter, page: Page): Promise<PageOf<LivenessConfig>> => store.liveness.list(teamId, f, page),
    /** The scheduler subscribes here: changes of configs, endpoints and domains made in this process. */
    onChange: (fn: (change: WorkingSetChange) => void): (() => void) => changes.subscribe(fn),

    async create(teamId: string, input: LivenessInput): Promise<LivenessConfig> {
      const id = newId();
      try {
        await store.transaction(async (tx) => {
          const ep = await tx.endpoints.get(teamId, input.endpoint_id);
          if (!ep) throw new NotFound('Endpoint');
          if (await tx.liveness.byEndpoint(ep.id)) throw new Conflict('a liveness configuration already exists for this endpoint', 'LIVENESS_EXISTS');
          const now = isoNow(clock);
          await tx.liveness.insert({
            id, team_id: teamId, endpoint_id: ep.id, is_enabled: input.is_enabled === false ? 0 : 1,
            timeout_seconds: input.timeout_seconds ?? LIVENESS_DEFAULTS.timeout_seconds,
            expected_status_code: input.expected_status_code ?? LIVENESS_DEFAULTS.expected_status_code,
            interval_seconds: input.interval_seconds ?? LIVENESS_DEFAULTS.interval_seconds,
            failure_threshold: input.failure_threshold ?? LIVENESS_DEFAULTS.failure_threshold,
            created_at: now, updated_at: now,
          });
          await recomputeHealth?.(tx, ep.domain_id);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new Conflict('a liveness configuration already exists for this endpoint', 'LIVENESS_EXISTS');
        throw err;
      }
      changed(id);
      return get(teamId, id);
    },

    async update(teamId: string, id: string, input: Partial<Omit<LivenessInput, 'endpoint_id'>>): Promise<LivenessConfig> {
      const cur = await get(teamId, id);
      await store.transaction(async (tx) => {
        await tx.liveness.update(teamId, id, {
          is_enabled: input.is_enabled === undefined ? undefined : input.is_enabled ? 1 : 0,
          timeout_seconds: input.timeout_seconds,
          expected_status_code: input.expected_status_code,
          interval_seconds: input.interval_seconds,
          failure_threshold: input.failure_threshold,
          updated_at: isoNow(clock),
        });
        // Enabling or disabling adds or drops this probe from the domain's liveness input.
        const ep = await tx.endpoints.byId(cur.endpoint_id);
        if (ep) await recomputeHealth?.(tx, ep.domain_id);
      });
      changed(id);
      return get(teamId, id);
    },

    /** Deletes the configuration; its result history and aggregates cascade. */
    async remove(teamId: string, id: string): Promise<LivenessConfig> {
      const c = await store.transaction(async (tx) => {
        const cur = await tx.liveness.get(teamId, id);
        if (!cur) throw new NotFound('Liveness configuration');
        await tx.liveness.remove(teamId, id);
        const ep = await tx.endpoints.byId(cur.endpoint_id);
        if (ep) await recomputeHealth?.(tx, ep.domain_id);
        return cur;
      });
      changed(id);
      return c;
    },
  };
}

export type LivenessService = ReturnType<typeof createLivenessService>;
