import { Conflict, Duplicate, Invalid, NotFound } from '../domain/errors.js';
import { isoNow, type Clock } from '../domain/clock.js';
import type { LivenessConfig, LivenessFilter, Page, PageOf } from '../domain/types.js';
import type { Repos } from '../store/index.js';
import type { ServiceDeps } from './deps.js';
import { createChangeFeed, type WorkingSetChange } from './changes.js';
import { bulkCreate } from './bulk.js';

export interface LivenessInput {
  endpoint_id: string;
  is_enabled?: boolean;
  timeout_seconds?: number;
  expected_status_code?: number;
  interval_seconds?: number;
  failure_threshold?: number;
  /** Check from each of these regions (empty: by any one node). */
  regions?: string[];
  /** Down only when this many of the regions agree (default 1). */
  confirm_from?: number;
}

/** A configuration's settings without its endpoint: the update body, and a create's inline `liveness` block. */
export type LivenessSettings = Omit<LivenessInput, 'endpoint_id'>;

const LIVENESS_DEFAULTS = {
  timeout_seconds: 10,
  expected_status_code: 200,
  interval_seconds: 60,
  failure_threshold: 1,
} as const;

/**
 * The regions and confirm_from a configuration ends with (an update's merged onto `cur`): unique
 * regions, confirm_from between 1 and their number (1 without regions).
 */
function vantage(
  input: Pick<LivenessSettings, 'regions' | 'confirm_from'>,
  cur: { regions: string[]; confirm_from: number } = { regions: [], confirm_from: 1 },
): { regions: string[]; confirm_from: number } {
  const regions = input.regions ?? cur.regions;
  if (new Set(regions).size !== regions.length) throw new Invalid('regions must not repeat a region');
  // Dropping regions without naming confirm_from falls back to 1; otherwise the old value must still fit.
  const confirm = input.confirm_from ?? (input.regions !== undefined && !regions.length ? 1 : cur.confirm_from);
  const most = Math.max(1, regions.length);
  if (confirm > most)
    throw new Invalid(
      regions.length
        ? `confirm_from (${confirm}) cannot exceed the number of regions (${regions.length})`
        : `confirm_from (${confirm}) needs regions: without them an endpoint is checked from one place`,
    );
  return { regions, confirm_from: confirm };
}

const exists = () => new Conflict('a liveness configuration already exists for this endpoint', 'LIVENESS_EXISTS');

/**
 * Inserts an endpoint's configuration (defaults filled in) with the caller's transaction and returns
 * its id. The caller has checked the endpoint belongs to the team, recomputes the domain's health in
 * the same transaction and, after the commit, emits `{ config: id }` so the scheduler picks it up.
 */
export async function insertLiveness(
  tx: Repos,
  clock: Clock,
  teamId: string,
  endpointId: string,
  input: LivenessSettings,
): Promise<string> {
  if (await tx.liveness.byEndpoint(endpointId)) throw exists();
  const now = isoNow(clock);
  return tx.liveness.insert({
    team_id: teamId,
    endpoint_id: endpointId,
    is_enabled: input.is_enabled !== false,
    timeout_seconds: input.timeout_seconds ?? LIVENESS_DEFAULTS.timeout_seconds,
    expected_status_code: input.expected_status_code ?? LIVENESS_DEFAULTS.expected_status_code,
    interval_seconds: input.interval_seconds ?? LIVENESS_DEFAULTS.interval_seconds,
    failure_threshold: input.failure_threshold ?? LIVENESS_DEFAULTS.failure_threshold,
    ...vantage(input),
    created_at: now,
    updated_at: now,
  });
}

export function createLivenessService({ store, clock, recomputeHealth, changes = createChangeFeed() }: ServiceDeps) {
  const changed = (id: string) => changes.emit({ config: id });

  async function get(teamId: string, id: string): Promise<LivenessConfig> {
    const c = await store.liveness.get(teamId, id);
    if (!c) throw new NotFound('Liveness configuration');
    return c;
  }

  async function create(teamId: string, input: LivenessInput): Promise<LivenessConfig> {
    let id: string;
    try {
      id = await store.transaction(async (tx) => {
        const ep = await tx.endpoints.get(teamId, input.endpoint_id);
        if (!ep) throw new NotFound('Endpoint');
        const inserted = await insertLiveness(tx, clock, teamId, ep.id, input);
        await recomputeHealth?.(tx, ep.domain_id);
        return inserted;
      });
    } catch (err) {
      if (err instanceof Duplicate) throw exists();
      throw err;
    }
    changes.emit({ config: id, created: true });
    return get(teamId, id);
  }

  return {
    get,
    list: (teamId: string, f: LivenessFilter, page: Page): Promise<PageOf<LivenessConfig>> =>
      store.liveness.list(teamId, f, page),
    /** The scheduler subscribes here: changes of configs, endpoints and domains made in this process. */
    onChange: (fn: (change: WorkingSetChange) => void): (() => void) => changes.subscribe(fn),

    create,
    /** Each item commits on its own: an unknown (or other team's) endpoint, an existing config or an invalid item fails that item only. */
    bulkCreate: bulkCreate(create),

    async update(teamId: string, id: string, input: LivenessSettings): Promise<LivenessConfig> {
      const cur = await get(teamId, id);
      const regions = input.regions !== undefined || input.confirm_from !== undefined ? vantage(input, cur) : undefined;
      await store.transaction(async (tx) => {
        await tx.liveness.update(teamId, id, {
          ...(regions && {
            regions: input.regions !== undefined ? regions.regions : undefined,
            confirm_from: regions.confirm_from,
          }),
          is_enabled: input.is_enabled,
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
