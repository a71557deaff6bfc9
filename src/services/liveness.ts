import { managedGuard } from './managed.js';
import { Conflict, Duplicate, Invalid, NotFound, Unprocessable } from '../domain/errors.js';
import { isoNow, type Clock } from '../domain/clock.js';
import { ConditionSyntaxError, parseConditions } from '../domain/conditions.js';
import { fullUrl } from '../domain/endpoint.js';
import type {
  Endpoint,
  HttpMethod,
  LivenessAuth,
  LivenessConfig,
  LivenessFilter,
  Page,
  PageOf,
} from '../domain/types.js';
import { pluginOf } from '../probes/index.js';
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
  method?: HttpMethod;
  headers?: Record<string, string>;
  body?: string | null;
  follow_redirects?: boolean;
  conditions?: string[];
  /** Credentials; a masked secret (`********...`) keeps the stored one while the endpoint's origin is unchanged; null removes them. */
  auth?: AuthInput | null;
}

export type AuthInput = { type: 'basic'; username: string; password: string } | { type: 'bearer'; token: string };

/** A secret as reads show it; sent back, it keeps the stored one. */
export const MASKED_SECRET = '********';
const isMasked = (v: string) => /^\*{8}/.test(v);

/** Request headers a configuration may not set: the probe writes them itself, or they carry credentials (`auth` seals those). */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'authorization',
  'proxy-authorization',
]);

/** scheme://host[:port] of an endpoint's URL: where its credentials may be sent. */
const originOf = (e: Endpoint): string => {
  try {
    return new URL(fullUrl(e)).origin;
  } catch {
    return '';
  }
};

type RequestPatch = Partial<
  Pick<LivenessConfig, 'method' | 'headers' | 'body' | 'follow_redirects' | 'conditions' | 'auth'>
>;

/**
 * The request fields of a create or an update, checked against the endpoint's type, with the
 * credentials sealed (bound to the endpoint's origin) or, for a masked secret, kept from `cur`.
 */
function requestPatch(
  tx: Pick<Repos, 'liveness'>,
  endpoint: Endpoint,
  input: LivenessSettings,
  cur?: LivenessConfig,
): RequestPatch {
  const plugin = pluginOf(endpoint.endpoint_type);
  const patch: RequestPatch = {};
  const http = ['method', 'headers', 'body', 'follow_redirects', 'auth'] as const;
  if (!plugin.httpRequest) {
    const set = http.filter((k) => input[k] !== undefined && input[k] !== null);
    if (set.length)
      throw new Invalid(
        `${set.join(', ')}: only for endpoints that are checked by an HTTP request (${endpoint.endpoint_type} is not)`,
      );
  }
  if (input.method !== undefined) patch.method = input.method;
  if (input.body !== undefined) patch.body = input.body;
  if (input.follow_redirects !== undefined) patch.follow_redirects = input.follow_redirects;
  if (input.headers !== undefined) {
    for (const name of Object.keys(input.headers))
      if (RESERVED_HEADERS.has(name.toLowerCase()))
        throw new Invalid(
          /authorization/i.test(name)
            ? `headers.${name}: credentials go in auth, where they are sealed and never shown`
            : `headers.${name}: set by the probe itself`,
        );
    patch.headers = input.headers;
  }
  if (input.conditions !== undefined) {
    if (input.conditions.length && !plugin.placeholders)
      throw new Invalid(`conditions: ${endpoint.endpoint_type} endpoints take no conditions`);
    try {
      parseConditions(input.conditions, { placeholders: plugin.placeholders });
    } catch (err) {
      if (!(err instanceof ConditionSyntaxError)) throw err;
      const field = `conditions[${err.index}]`;
      throw new Invalid(`${field}: ${err.message} at position ${err.position}`, 'VALIDATION_ERROR', {
        field,
        position: err.position,
      });
    }
    patch.conditions = input.conditions;
  }
  if (input.auth !== undefined) patch.auth = input.auth && sealAuth(tx, endpoint, input.auth, cur);
  return patch;
}

function sealAuth(
  tx: Pick<Repos, 'liveness'>,
  endpoint: Endpoint,
  input: AuthInput,
  cur: LivenessConfig | undefined,
): LivenessAuth {
  const origin = originOf(endpoint);
  const username = input.type === 'basic' ? input.username : null;
  const secret = input.type === 'basic' ? input.password : input.token;
  const field = input.type === 'basic' ? 'auth.password' : 'auth.token';
  if (!isMasked(secret)) return { type: input.type, username, sealed: tx.liveness.sealAuth({ secret, origin }) };
  // A masked value keeps the stored secret, but only for the same kind of credentials and the same
  // origin: a secret never follows the endpoint to a host its owner did not give it for.
  if (!cur?.auth || cur.auth.type !== input.type)
    throw new Invalid(`${field}: a masked value can only keep a stored secret; send the real value`);
  let stored: { secret: string; origin: string };
  try {
    stored = tx.liveness.openAuth(cur.auth.sealed);
  } catch (err) {
    throw new Unprocessable(
      `${field}: the stored secret cannot be read (${(err as Error).message}); send the real value`,
      'SECRET_REQUIRED',
    );
  }
  if (stored.origin !== origin)
    throw new Unprocessable(
      `${field}: the secret was given for ${stored.origin} and the endpoint is now ${origin}, so it is not kept; send the real value`,
      'SECRET_REQUIRED',
    );
  return { type: input.type, username, sealed: cur.auth.sealed };
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

/** A new configuration's row as the store inserts it. */
export type NewLivenessRow = Parameters<Repos['liveness']['insert']>[0];

/**
 * The row of a new configuration of `endpoint` (defaults filled in, the request fields checked
 * against the endpoint's type, credentials sealed), or the Invalid that refuses it.
 */
export function livenessRow(
  tx: Pick<Repos, 'liveness'>,
  clock: Clock,
  teamId: string,
  endpoint: Endpoint,
  input: LivenessSettings,
): NewLivenessRow {
  const request = requestPatch(tx, endpoint, input);
  const now = isoNow(clock);
  return {
    ...request,
    team_id: teamId,
    endpoint_id: endpoint.id,
    is_enabled: input.is_enabled !== false,
    timeout_seconds: input.timeout_seconds ?? LIVENESS_DEFAULTS.timeout_seconds,
    expected_status_code: input.expected_status_code ?? LIVENESS_DEFAULTS.expected_status_code,
    interval_seconds: input.interval_seconds ?? LIVENESS_DEFAULTS.interval_seconds,
    failure_threshold: input.failure_threshold ?? LIVENESS_DEFAULTS.failure_threshold,
    ...vantage(input),
    created_at: now,
    updated_at: now,
  };
}

/**
 * Inserts an endpoint's configuration (defaults filled in) with the caller's transaction and returns
 * its id. The caller has checked the endpoint belongs to the team, recomputes the domain's health in
 * the same transaction and, after the commit, emits `{ config: id }` so the scheduler picks it up.
 */
async function insertLiveness(
  tx: Repos,
  clock: Clock,
  teamId: string,
  endpointId: string,
  input: LivenessSettings,
): Promise<string> {
  if (await tx.liveness.byEndpoint(endpointId)) throw exists();
  const endpoint = await tx.endpoints.byId(endpointId);
  if (!endpoint) throw new NotFound('Endpoint');
  return tx.liveness.insert(livenessRow(tx, clock, teamId, endpoint, input));
}

export function createLivenessService({
  store,
  clock,
  recomputeHealth,
  changes = createChangeFeed(),
  audit,
  asConfigFile,
}: ServiceDeps) {
  const guard = managedGuard(asConfigFile);
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
        const after = await tx.liveness.get(teamId, inserted);
        await audit?.record(tx, teamId, {
          action: 'create',
          kind: 'liveness',
          id: inserted,
          name: `${ep.domain}/${ep.name}`,
          after,
        });
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
      // Pausing and resuming (`is_enabled` alone) is operation, not configuration: allowed on a managed check.
      const pauseOnly = Object.entries(input).every(([k, v]) => k === 'is_enabled' || v === undefined);
      await store.transaction(async (tx) => {
        if (!pauseOnly) await guard(tx, 'liveness', id);
        const endpoint = await tx.endpoints.byId(cur.endpoint_id);
        if (!endpoint) throw new NotFound('Endpoint');
        await tx.liveness.update(teamId, id, {
          ...requestPatch(tx, endpoint, input, cur),
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
        await recomputeHealth?.(tx, endpoint.domain_id);
        const after = await tx.liveness.get(teamId, id);
        // Switching the check on or off is what the dashboard's pause and resume do.
        const action =
          input.is_enabled !== undefined && input.is_enabled !== cur.is_enabled
            ? input.is_enabled
              ? 'resume'
              : 'pause'
            : 'update';
        await audit?.record(tx, teamId, {
          action,
          kind: 'liveness',
          id,
          name: `${endpoint.domain}/${endpoint.name}`,
          before: cur,
          after,
        });
      });
      changed(id);
      return get(teamId, id);
    },

    /** Deletes the configuration; its result history and aggregates cascade. */
    async remove(teamId: string, id: string): Promise<LivenessConfig> {
      const c = await store.transaction(async (tx) => {
        const cur = await tx.liveness.get(teamId, id);
        if (!cur) throw new NotFound('Liveness configuration');
        await guard(tx, 'liveness', id);
        await tx.liveness.remove(teamId, id);
        const ep = await tx.endpoints.byId(cur.endpoint_id);
        if (ep) await recomputeHealth?.(tx, ep.domain_id);
        await audit?.record(tx, teamId, {
          action: 'delete',
          kind: 'liveness',
          id,
          name: ep ? `${ep.domain}/${ep.name}` : null,
          before: cur,
        });
        return cur;
      });
      changed(id);
      return c;
    },
  };
}
