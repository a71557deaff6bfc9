import { managedGuard } from './managed.js';
import { Conflict, Duplicate, Invalid, NotFound, PlanLimit, ServiceError } from '../domain/errors.js';
import { isoNow } from '../domain/clock.js';
import { givenFields, requiresPort, settingsFor, validSubdomain, type EndpointSettings } from '../domain/endpoint.js';
import type { AuditChange } from '../domain/audit.js';
import type {
  CertificateSummary,
  CreatedEndpoint,
  Domain,
  Endpoint,
  EndpointDetail,
  EndpointFilter,
  EndpointType,
  Page,
  PageOf,
} from '../domain/types.js';
import type { ServiceDeps } from './deps.js';
import { bulkCreateMany } from './bulk.js';
import { livenessRow, type LivenessSettings, type NewLivenessRow } from './liveness.js';
import { insertPush, pushSettings, PUSH_INTERVAL_SECONDS } from './push.js';
import type { PushCheck } from '../domain/push.js';

export interface EndpointInput {
  domain_id: string;
  name: string;
  endpoint_type: EndpointType;
  subdomain?: string | null;
  path?: string | null;
  port?: number | null;
  is_enabled?: boolean;
  timeout_seconds?: number;
  notes?: string | null;
  /** Extension: the endpoint's liveness configuration, created in the same transaction (both or neither). */
  liveness?: LivenessSettings;
}

const DEFAULT_ENDPOINT_TIMEOUT = 10;

/** One item of createMany: the endpoint made, or the service error that refused it. */
type CreateOutcome = { ok: true; value: CreatedEndpoint } | { ok: false; error: ServiceError };

function clean(input: Partial<EndpointInput>): Partial<EndpointInput> {
  const out = { ...input };
  if (typeof out.subdomain === 'string') {
    out.subdomain = out.subdomain.trim().toLowerCase().replace(/\.+$/, '') || null;
    if (out.subdomain && !validSubdomain(out.subdomain))
      throw new Invalid(`subdomain: "${input.subdomain}" is not a valid host prefix`);
  }
  if (typeof out.path === 'string') {
    const p = out.path.trim();
    out.path = p ? (p.startsWith('/') ? p : `/${p}`) : null;
    if (out.path && /\s/.test(out.path)) throw new Invalid('path: must not contain spaces');
  }
  if (typeof out.name === 'string') {
    out.name = out.name.trim();
    if (!out.name) throw new Invalid('name: must not be empty');
  }
  return out;
}

/**
 * The settings the endpoint stores: its type's fields from the request (flat beside the common
 * ones, as the API takes them), else kept, else defaulted; a field of another type is refused.
 */
function settingsOf(
  raw: object,
  type: EndpointType,
  current?: { endpoint_type: EndpointType; settings: EndpointSettings },
): EndpointSettings {
  const r = settingsFor(type, givenFields(raw), current);
  if (!r.ok) throw new Invalid(r.error);
  return r.settings;
}

/** A push endpoint is a heartbeat from its creation on: its type does not change, to or from `push`. */
function samePushness(from: EndpointType, to: EndpointType | undefined): void {
  if (to !== undefined && (from === 'push') !== (to === 'push'))
    throw new Invalid('endpoint_type: a push endpoint stays one, and another endpoint cannot become one');
}

function requirePort(type: EndpointType, port: number | null | undefined): void {
  if (requiresPort(type) && (port === null || port === undefined))
    throw new Invalid(`port: required for endpoint_type "${type}"`);
}

/** An endpoint as detail views show it, from its latest TLS inspection and its liveness configuration (if any). */
export function toDetail(
  endpoint: Endpoint,
  cert: CertificateSummary | undefined,
  live: { id: string; is_enabled: boolean } | undefined,
): EndpointDetail {
  return {
    endpoint,
    ssl_status: cert?.ssl_status ?? 'unknown',
    ssl_expiry_date: cert?.not_after ? cert.not_after.slice(0, 10) : null,
    ssl_issuer: cert?.issuer ?? null,
    ssl_subject: cert?.subject ?? null,
    ssl_checked_at: cert?.checked_at ?? null,
    liveness_enabled: live?.is_enabled ?? false,
    liveness_id: live?.id ?? null,
  };
}

export function createEndpointService({
  store,
  clock,
  limits,
  recomputeHealth,
  changes,
  audit,
  asConfigFile,
}: ServiceDeps) {
  const label = (e: Endpoint) => `${e.domain}/${e.name}`;
  const guard = managedGuard(asConfigFile);
  async function get(teamId: string, id: string): Promise<Endpoint> {
    const e = await store.endpoints.get(teamId, id);
    if (!e) throw new NotFound('Endpoint');
    return e;
  }

  /**
   * Creates the endpoints (each with its liveness configuration, if it has one) in one transaction and
   * gives each item's outcome in order: the endpoint, or the service error that refuses it (the checks
   * and messages of a single create, an earlier item of the list counting as stored). The rows are
   * written a few hundred per statement and each domain's health is recomputed once: a configuration
   * file's thousands of endpoints cost a few dozen statements, not a dozen each. An item refused
   * does not stop the others: the caller decides (a configuration file is applied whole or not at all).
   */
  async function createMany(teamId: string, raws: readonly EndpointInput[]): Promise<CreateOutcome[]> {
    const out: CreateOutcome[] = new Array<CreateOutcome>(raws.length);
    const refuse = (i: number, err: unknown) => {
      // A unique index another writer got to first (Duplicate) has aborted the transaction on
      // PostgreSQL: the whole list fails, and the caller decides (a single create answers 409).
      if (!(err instanceof ServiceError) || err instanceof Duplicate) throw err;
      out[i] = { ok: false, error: err };
    };
    const checked: { i: number; input: EndpointInput; settings: EndpointSettings }[] = [];
    for (const [i, raw] of raws.entries()) {
      try {
        const input = clean(raw) as EndpointInput;
        requirePort(input.endpoint_type, input.port);
        const settings = settingsOf(raw, input.endpoint_type);
        if (input.endpoint_type === 'push') pushSettings(settings);
        checked.push({ i, input, settings });
      } catch (err) {
        refuse(i, err);
      }
    }
    const made: {
      i: number;
      domainId: string;
      isPush: boolean;
      live?: NewLivenessRow;
      id?: string;
      livenessId?: string;
      push?: PushCheck;
    }[] = [];
    await store.transaction(async (tx) => {
      const domains = new Map<string, Domain | undefined>();
      for (const { input } of checked)
        if (!domains.has(input.domain_id)) domains.set(input.domain_id, await tx.domains.get(teamId, input.domain_id));
      let count = limits.maxEndpoints !== null && checked.length ? await tx.endpoints.count(teamId) : 0;
      const taken = await tx.endpoints.namesIn([...domains.keys()].filter((id) => domains.get(id)));
      const now = isoNow(clock);
      const rows: Parameters<typeof tx.endpoints.insertMany>[0][number][] = [];
      for (const { i, input, settings } of checked) {
        try {
          const domain = domains.get(input.domain_id);
          if (!domain) throw new NotFound('Domain');
          if (limits.maxEndpoints !== null && count >= limits.maxEndpoints)
            throw new PlanLimit(`endpoint limit reached (${limits.maxEndpoints} per team)`, 'ENDPOINT_LIMIT');
          const key = `${domain.id}/${input.name}`;
          if (taken.has(key))
            throw new Conflict(`endpoint "${input.name}" already exists for ${domain.domain}`, 'ENDPOINT_EXISTS');
          const row = {
            team_id: teamId,
            domain_id: domain.id,
            name: input.name,
            endpoint_type: input.endpoint_type,
            subdomain: input.subdomain ?? null,
            path: input.path ?? null,
            port: input.port ?? null,
            is_enabled: input.is_enabled !== false,
            timeout_seconds: input.timeout_seconds ?? DEFAULT_ENDPOINT_TIMEOUT,
            notes: input.notes ?? null,
            settings,
            created_at: now,
            updated_at: now,
          };
          const isPush = input.endpoint_type === 'push';
          // A push endpoint is judged by its liveness configuration (created with it, whether asked or not).
          const liveness = isPush ? { interval_seconds: PUSH_INTERVAL_SECONDS, ...input.liveness } : input.liveness;
          // Its endpoint_id is set once the endpoint has its id.
          const live = liveness && livenessRow(tx, clock, teamId, { ...row, id: '', domain: domain.domain }, liveness);
          taken.add(key);
          count++;
          rows.push(row);
          made.push({ i, domainId: domain.id, isPush, live });
        } catch (err) {
          refuse(i, err);
        }
      }
      if (!made.length) return;
      const ids = await tx.endpoints.insertMany(rows);
      for (const [k, m] of made.entries()) {
        m.id = ids[k]!;
        if (m.live) m.live.endpoint_id = m.id;
        if (m.isPush) m.push = await insertPush(tx, clock, teamId, m.id);
      }
      const withLiveness = made.filter((m) => m.live);
      const livenessIds = await tx.liveness.insertMany(withLiveness.map((m) => m.live!));
      for (const [k, m] of withLiveness.entries()) m.livenessId = livenessIds[k];
      // In id order: each recompute locks its domain's row, and every locker takes them in that order.
      for (const domainId of [...new Set(made.map((m) => m.domainId))].sort()) await recomputeHealth?.(tx, domainId);
      const endpoints = new Map((await tx.endpoints.byIds(ids)).map((e) => [e.id, e]));
      const configs = await tx.liveness.getMany(teamId, livenessIds);
      const changes: AuditChange[] = [];
      for (const m of made) {
        const endpoint = endpoints.get(m.id!)!;
        const live = m.livenessId ? configs.get(m.livenessId) : undefined;
        changes.push({ action: 'create', kind: 'endpoint', id: endpoint.id, name: label(endpoint), after: endpoint });
        if (live) changes.push({ action: 'create', kind: 'liveness', id: live.id, name: label(endpoint), after: live });
        out[m.i] = {
          ok: true,
          value: live ? { ...endpoint, liveness: live, ...(m.push && { push: m.push }) } : endpoint,
        };
      }
      await audit?.record(tx, teamId, ...changes);
    });
    // New configs in the working set: the scheduler reads them (and their endpoints) now.
    for (const m of made) if (m.livenessId) changes?.emit({ config: m.livenessId, created: true });
    return out;
  }

  async function create(teamId: string, raw: EndpointInput): Promise<CreatedEndpoint> {
    let r: CreateOutcome;
    try {
      [r] = (await createMany(teamId, [raw])) as [CreateOutcome];
    } catch (err) {
      if (err instanceof Duplicate)
        throw new Conflict(`endpoint "${raw.name}" already exists for this domain`, 'ENDPOINT_EXISTS');
      throw err;
    }
    if (!r.ok) throw r.error;
    return r.value;
  }

  /** Endpoint plus what detail views show: certificate state and liveness switch. */
  async function detail(teamId: string, id: string): Promise<EndpointDetail> {
    const endpoint = await get(teamId, id);
    const [cert, live] = await Promise.all([store.endpoints.certificate(id), store.liveness.byEndpoint(id)]);
    return toDetail(endpoint, cert, live);
  }

  return {
    get,
    detail,
    create,
    createMany,
    list: (teamId: string, f: EndpointFilter, page: Page): Promise<PageOf<Endpoint>> =>
      store.endpoints.list(teamId, f, page),
    forDomain: (teamId: string, domainId: string) => store.endpoints.forDomain(teamId, domainId),
    bulkCreate: bulkCreateMany(createMany, create),

    async update(teamId: string, id: string, raw: Partial<Omit<EndpointInput, 'domain_id'>>): Promise<Endpoint> {
      const input = clean(raw);
      try {
        await store.transaction(async (tx) => {
          const cur = await tx.endpoints.get(teamId, id);
          if (!cur) throw new NotFound('Endpoint');
          await guard(tx, 'endpoint', id);
          samePushness(cur.endpoint_type, input.endpoint_type);
          const type = input.endpoint_type ?? cur.endpoint_type;
          requirePort(type, input.port === undefined ? cur.port : input.port);
          const settings = settingsOf(raw, type, cur);
          if (type === 'push') pushSettings(settings);
          if (input.name && input.name !== cur.name && (await tx.endpoints.byName(cur.domain_id, input.name))) {
            throw new Conflict(`endpoint "${input.name}" already exists for ${cur.domain}`, 'ENDPOINT_EXISTS');
          }
          await tx.endpoints.update(teamId, id, {
            name: input.name,
            endpoint_type: input.endpoint_type,
            subdomain: input.subdomain,
            path: input.path,
            port: input.port,
            is_enabled: input.is_enabled,
            timeout_seconds: input.timeout_seconds,
            notes: input.notes,
            settings,
            updated_at: isoNow(clock),
          });
          // Enabled, host or port changed: which liveness and certificate inputs count may have too.
          await recomputeHealth?.(tx, cur.domain_id);
          const after = (await tx.endpoints.get(teamId, id))!;
          await audit?.record(tx, teamId, {
            action: 'update',
            kind: 'endpoint',
            id,
            name: label(after),
            before: cur,
            after,
          });
        });
      } catch (err) {
        if (err instanceof Duplicate)
          throw new Conflict(`endpoint "${input.name}" already exists for this domain`, 'ENDPOINT_EXISTS');
        throw err;
      }
      // Host, port, path, type or enabled may have changed: the scheduler re-reads this endpoint's config.
      changes?.emit({ endpoint: id });
      return get(teamId, id);
    },

    /** Deletes the endpoint; its liveness config, results and certificates cascade. */
    async remove(teamId: string, id: string): Promise<Endpoint> {
      const removed = await store.transaction(async (tx) => {
        const e = await tx.endpoints.get(teamId, id);
        if (!e) throw new NotFound('Endpoint');
        await guard(tx, 'endpoint', id);
        await tx.endpoints.remove(teamId, id);
        await recomputeHealth?.(tx, e.domain_id);
        await audit?.record(tx, teamId, { action: 'delete', kind: 'endpoint', id, name: label(e), before: e });
        return e;
      });
      changes?.emit({ endpoint: id });
      return removed;
    },
  };
}

export type EndpointService = ReturnType<typeof createEndpointService>;
