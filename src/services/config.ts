// Configuration as code (docs/configuration-file.md): makes a team's setup match a checked file.
// The plan is the difference between the file and what is stored (objects matched by name); applying
// runs it in ONE transaction through the same services the API uses (same validation and limits),
// built over that transaction, so the file applies whole or not at all. A field the file leaves out
// keeps its stored value; without `prune` nothing absent from the file is deleted.
import { randomUUID } from 'node:crypto';
import { Duplicate, Invalid, ServiceError } from '../domain/errors.js';
import type { ConfigChannel, ConfigDocument, ConfigDomain, ConfigEndpoint, ConfigPath } from '../domain/config-file.js';
import {
  livenessSettings,
  type Endpoint,
  type LivenessConfig,
  type Page,
  type PageOf,
  type Principal,
} from '../domain/types.js';
import type { Store } from '../store/index.js';
import type { ServiceDeps } from './deps.js';
import type { ChangeFeed, WorkingSetChange } from './changes.js';
import { createPortfolioService } from './portfolios.js';
import { createDomainService } from './domains.js';
import { createEndpointService, type EndpointInput } from './endpoints.js';
import { createLivenessService, type LivenessSettings } from './liveness.js';
import { createStatusPageService } from './status-pages.js';
import { createMaintenanceWindowService } from './maintenance-windows.js';
import { createNotificationService } from './notifications.js';
import { managedGuard } from './managed.js';
import { pingKeyOf } from '../domain/push.js';

export type ConfigKind =
  'portfolio' | 'channel' | 'domain' | 'endpoint' | 'liveness' | 'status_page' | 'maintenance_window';

const KINDS: ConfigKind[] = [
  'portfolio',
  'channel',
  'domain',
  'endpoint',
  'liveness',
  'status_page',
  'maintenance_window',
];

interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface PlanStep {
  kind: ConfigKind;
  action: 'create' | 'update' | 'delete';
  /** The object's key in the file: a name, `<domain>/<endpoint>`, a slug, `<type> <class>`. */
  name: string;
  /** update: each field that changes (secrets shown as `********`). */
  changes?: FieldChange[];
}

export interface ConfigPlan {
  /** false for a dry run, or when there was nothing to change. */
  applied: boolean;
  dry_run: boolean;
  prune: boolean;
  /** The apply's id when it wrote something (the audit entries of its changes carry it). */
  apply_id?: string;
  summary: Record<ConfigKind, { create: number; update: number; delete: number }>;
  steps: PlanStep[];
}

/** Errors the services found in the file, each at the path of the object it concerns (the reader places them). */
export class ConfigRejected extends Invalid {
  constructor(readonly problems: { path: ConfigPath; message: string }[]) {
    super(`the file has ${problems.length} error${problems.length === 1 ? '' : 's'}`, 'INVALID_CONFIG');
  }
}

/** A new endpoint of the file, created with the others (createEndpoints). */
interface EndpointCreate {
  path: ConfigPath;
  /** `<domain>/<endpoint>` as the file's references name it. */
  key: string;
  label: string;
  pingKey: string | undefined;
  input: EndpointInput;
}

/** Thrown to roll a dry run back after the services checked it. */
class DryRun extends Error {}

const SECRET_MASK = '********';

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v ?? null;
}

/** Fields of `want` (those the file sets) whose stored value differs. */
function diff(
  want: Record<string, unknown>,
  have: Record<string, unknown>,
  secret: (field: string) => boolean = () => false,
): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, to] of Object.entries(want)) {
    if (to === undefined) continue;
    const from = have[field];
    if (!same(to, from))
      out.push(secret(field) ? { field, from: SECRET_MASK, to: SECRET_MASK } : { field, from: from ?? null, to });
  }
  return out;
}

async function all<T>(read: (page: Page) => Promise<PageOf<T>>): Promise<T[]> {
  const out: T[] = [];
  for (;;) {
    const p = await read({ limit: 1000, offset: out.length });
    out.push(...p.items);
    if (!p.items.length || out.length >= p.total) return out;
  }
}

/** The services over one transaction's repositories: every nested transaction is that one. */
function scopedServices(
  deps: ServiceDeps,
  tx: Parameters<Parameters<Store['transaction']>[0]>[0],
  changes: ChangeFeed,
  asConfigFile: boolean,
  dryRun: boolean,
) {
  const store = { ...deps.store, ...tx, transaction: <T>(fn: (t: typeof tx) => Promise<T>) => fn(tx) } as Store;
  // A dry run is rolled back: a domain's health recompute refuses nothing, so it is skipped there.
  const d: ServiceDeps = {
    ...deps,
    store,
    changes,
    asConfigFile,
    ...(dryRun && { recomputeHealth: undefined }),
  };
  const maintenanceWindows = createMaintenanceWindowService(d);
  return {
    /** The transaction's repositories (a read outside it would wait for SQLite's one connection). */
    store,
    portfolios: createPortfolioService(d),
    domains: createDomainService(d),
    endpoints: createEndpointService(d),
    liveness: createLivenessService(d),
    statusPages: createStatusPageService({ ...d, maintenance: maintenanceWindows }),
    maintenanceWindows,
    notifications: createNotificationService(d),
  };
}

type Scoped = ReturnType<typeof scopedServices>;

const domainKey = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** The endpoint fields of the file as the API's endpoint body (`type` is `endpoint_type`). */
function endpointBody(e: ConfigEndpoint): Omit<EndpointInput, 'domain_id'> & Record<string, unknown> {
  const { type, liveness: _l, ping_key: _k, ...rest } = e;
  return { ...rest, endpoint_type: type } as Omit<EndpointInput, 'domain_id'> & Record<string, unknown>;
}

/** A stored endpoint in the file's terms (its type's settings flat beside the common fields). */
function endpointFields(ep: Endpoint): Record<string, unknown> {
  return {
    name: ep.name,
    endpoint_type: ep.endpoint_type,
    subdomain: ep.subdomain,
    path: ep.path,
    port: ep.port,
    is_enabled: ep.is_enabled,
    timeout_seconds: ep.timeout_seconds,
    notes: ep.notes,
    ...(ep.settings as Record<string, unknown>),
  };
}

/** A stored liveness configuration in the file's terms; credentials as their type (and user name). */
function livenessFields(c: LivenessConfig): Record<string, unknown> {
  return {
    ...livenessSettings(c),
    auth: c.auth ? { type: c.auth.type, ...(c.auth.username !== null ? { username: c.auth.username } : {}) } : null,
  };
}

/** The file's credentials compared as the stored ones are known (type and user name): the secret itself is sealed. */
function livenessWant(l: Record<string, unknown>): Record<string, unknown> {
  const auth = l.auth as { type: string; username?: string } | null | undefined;
  if (!auth) return l;
  return { ...l, auth: { type: auth.type, ...(auth.username !== undefined ? { username: auth.username } : {}) } };
}

const CHANNEL_ROW_FIELDS = [
  'type',
  'delivery_class',
  'is_enabled',
  'frequency_days',
  'notification_time',
  'min_severity',
];

function channelParts(c: ConfigChannel) {
  const config: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) if (!CHANNEL_ROW_FIELDS.includes(k)) config[k] = v;
  return {
    delivery_class: c.delivery_class ?? 'instant',
    row: {
      is_enabled: c.is_enabled,
      frequency_days: c.frequency_days,
      notification_time: c.notification_time,
      min_severity: c.min_severity,
    },
    config,
  };
}

export function createConfigService(
  deps: ServiceDeps & { changes: ChangeFeed },
  secretsOf: (channel: string) => string[],
) {
  async function run(
    p: Principal,
    doc: ConfigDocument,
    opts: { dryRun: boolean; prune: boolean; source?: string },
  ): Promise<ConfigPlan> {
    const steps: PlanStep[] = [];
    const problems: { path: ConfigPath; message: string }[] = [];
    const pending: WorkingSetChange[] = [];
    const feed: ChangeFeed = { emit: (c) => void pending.push(c), subscribe: (fn) => deps.changes.subscribe(fn) };
    const team = p.team_id;

    /** Runs one write; a service's refusal is recorded at `path` and the rest goes on (all errors, not the first). */
    async function attempt<T>(path: ConfigPath, what: string, fn: () => Promise<T>): Promise<T | undefined> {
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        problems.push({ path, message: `${what}: ${err.message}` });
        // A unique key hit by a statement ends a PostgreSQL transaction: nothing more can be tried in it.
        if (err instanceof Duplicate) throw new ConfigRejected(problems);
        return undefined;
      }
    }

    // Under `serve --config` the file's prune deletes only what it manages: objects made by hand stay.
    let ours = new Set<string>();
    const mine = (kind: ConfigKind, id: string) => !opts.source || ours.has(`${kind}:${id}`);
    /** The ping keys of the team's push endpoints, by endpoint id. */
    const pushKeys = new Map<string, string>();

    async function body(s: Scoped) {
      await s.store.configManaged.lockApply();
      if (opts.source) {
        const marks = await s.store.configManaged.ofTeam(team);
        ours = new Set(marks.filter((m) => m.source === opts.source).map((m) => `${m.kind}:${m.object_id}`));
      }
      // What is stored.
      const portfolios = await all((pg) => s.portfolios.list(team, {}, pg));
      const domains = await all((pg) => s.domains.list(team, {}, pg));
      const endpoints = await all((pg) => s.endpoints.list(team, {}, pg));
      const liveness = await all((pg) => s.liveness.list(team, {}, pg));
      const pages = await all((pg) => s.statusPages.list(team, {}, pg));
      const windows = await all((pg) => s.maintenanceWindows.list(team, pg));
      const settings = await s.store.notifications.settingsForUser(p.user_id);
      const pushIds = endpoints.filter((x) => x.endpoint_type === 'push').map((x) => x.id);
      for (let i = 0; i < pushIds.length; i += 500)
        for (const c of (await s.store.push.ofEndpoints(pushIds.slice(i, i + 500))).values())
          pushKeys.set(c.endpoint_id, c.ping_key);

      // Every lookup by key is a Map: a file of thousands of objects is matched in linear time.
      const portfolioByName = new Map(portfolios.map((x) => [x.name, x]));
      const settingByRow = new Map(settings.map((x) => [`${x.notification_type} ${x.delivery_class}`, x]));
      const domainByKey = new Map(domains.map((x) => [domainKey(x.domain), x]));
      const domainById = new Map(domains.map((x) => [x.id, x]));
      const pageBySlug = new Map(pages.map((x) => [x.slug, x]));
      const windowByName = new Map(windows.map((x) => [x.name, x]));
      const portfolioIds = new Map(portfolios.map((x) => [x.name, x.id]));
      const domainIds = new Map(domains.map((x) => [domainKey(x.domain), x.id]));
      const endpointIds = new Map(endpoints.map((x) => [`${domainKey(x.domain)}/${x.name}`, x.id]));
      const livenessByEndpoint = new Map(liveness.map((c) => [c.endpoint_id, c]));
      const endpointByKey = new Map(endpoints.map((x) => [`${x.domain_id}/${x.name}`, x]));
      const endpointName = new Map(endpoints.map((x) => [x.id, `${x.domain}/${x.name}`]));
      const portfolioName = new Map(portfolios.map((x) => [x.id, x.name]));
      const refPortfolio = (name: string, path: ConfigPath) => {
        const id = portfolioIds.get(name);
        if (!id) problems.push({ path, message: `no portfolio named "${name}"` });
        return id;
      };
      const refDomain = (name: string, path: ConfigPath) => {
        const id = domainIds.get(domainKey(name));
        if (!id) problems.push({ path, message: `no domain named "${name}"` });
        return id;
      };
      const refEndpoint = (ref: string, path: ConfigPath) => {
        const [d, ...rest] = ref.split('/');
        const id = endpointIds.get(`${domainKey(d ?? '')}/${rest.join('/')}`);
        if (!id) problems.push({ path, message: `no endpoint "${ref}" (as <domain>/<endpoint name>)` });
        return id;
      };

      // Portfolios.
      for (const [i, f] of (doc.portfolios ?? []).entries()) {
        const cur = portfolioByName.get(f.name);
        const path = ['portfolios', i];
        if (!cur) {
          steps.push({ kind: 'portfolio', action: 'create', name: f.name });
          const made = await attempt(path, `portfolio ${f.name}`, () => s.portfolios.create(team, f));
          if (made) portfolioIds.set(made.name, made.id);
        } else {
          const changes = diff({ description: f.description }, cur as unknown as Record<string, unknown>);
          if (changes.length) {
            steps.push({ kind: 'portfolio', action: 'update', name: f.name, changes });
            await attempt(path, `portfolio ${f.name}`, () =>
              s.portfolios.update(team, cur.id, { description: f.description }),
            );
          }
        }
      }

      // Channels: the (type, class) rows of the applying user.
      for (const [i, c] of (doc.channels ?? []).entries()) {
        const parts = channelParts(c);
        const name = `${c.type} ${parts.delivery_class}`;
        const cur = settingByRow.get(name);
        const secrets = secretsOf(c.type);
        const want: Record<string, unknown> = {
          ...parts.row,
          ...Object.fromEntries(Object.entries(parts.config).map(([k, v]) => [`config.${k}`, v])),
        };
        const have = cur
          ? {
              ...(cur as unknown as Record<string, unknown>),
              ...Object.fromEntries(Object.entries(cur.config ?? {}).map(([k, v]) => [`config.${k}`, v])),
            }
          : {};
        // A config field the file leaves out is not kept by the settings' PUT: it is a change too.
        for (const k of Object.keys(cur?.config ?? {})) if (!(k in parts.config)) want[`config.${k}`] = null;
        const changes = diff(want, have, (f) => secrets.includes(f.replace(/^config\./, '')));
        if (cur && !changes.length) continue;
        steps.push({ kind: 'channel', action: cur ? 'update' : 'create', name, ...(cur ? { changes } : {}) });
        const input = { delivery_class: parts.delivery_class, ...parts.row, config: parts.config };
        await attempt(['channels', i], `channel ${name}`, () =>
          s.notifications.upsertSetting(p, c.type, input as Parameters<Scoped['notifications']['upsertSetting']>[2]),
        );
      }

      // Domains and their endpoints: the new domains are created together first, then each domain's
      // changes are made in the file's order, and its new endpoints created together at the end.
      const fileEndpoints = new Set<string>();
      const creates: EndpointCreate[] = [];
      const fileDomains = (doc.domains ?? []).map((f, i) => {
        const path = ['domains', i];
        const key = domainKey(f.name);
        const portfolio_id =
          f.portfolio === undefined
            ? undefined
            : f.portfolio === null
              ? null
              : refPortfolio(f.portfolio, [...path, 'portfolio']);
        const input = {
          domain: f.name,
          ...(portfolio_id !== undefined ? { portfolio_id } : {}),
          notes: f.notes,
          expiry_date: f.manual_expiry,
          dkim_selectors: f.dkim_selectors,
        };
        return { f, path, key, cur: domainByKey.get(key), input };
      });
      const fresh = fileDomains.filter((x) => !x.cur);
      for (const [k, r] of (
        await s.domains.createMany(
          team,
          fresh.map((x) => x.input),
        )
      ).entries()) {
        const { f, path, key } = fresh[k]!;
        if (r.ok) domainIds.set(key, r.value.id);
        else problems.push({ path, message: `domain ${f.name}: ${r.error.message}` });
      }
      for (const { f, path, key, cur, input } of fileDomains) {
        const domainId = cur?.id ?? domainIds.get(key);
        if (!cur) {
          steps.push({ kind: 'domain', action: 'create', name: f.name });
        } else {
          const changes = diff(
            {
              portfolio: f.portfolio,
              notes: f.notes,
              manual_expiry: f.manual_expiry,
              dkim_selectors: f.dkim_selectors,
            },
            {
              portfolio: (cur.portfolio_id && portfolioName.get(cur.portfolio_id)) ?? null,
              notes: cur.notes,
              manual_expiry: cur.expiry_override,
              dkim_selectors: cur.dkim_selectors,
            },
          );
          if (changes.length) {
            steps.push({ kind: 'domain', action: 'update', name: f.name, changes });
            const { domain: _d, ...rest } = input;
            await attempt(path, `domain ${f.name}`, () => s.domains.update(team, cur.id, rest));
          }
        }
        await applyEndpoints(s, f, path, domainId, fileEndpoints, endpointByKey, livenessByEndpoint, creates);
      }
      await createEndpoints(s, creates, endpointIds);

      // Status pages.
      for (const [i, f] of (doc.status_pages ?? []).entries()) {
        const path = ['status_pages', i];
        const cur = pageBySlug.get(f.slug);
        const portfolio_id = refPortfolio(f.portfolio, [...path, 'portfolio']);
        const eps = (f.endpoints ?? []).map((e, j) => ({
          endpoint_id: refEndpoint(e.endpoint, [...path, 'endpoints', j, 'endpoint']),
          display_name: e.display_name ?? null,
        }));
        const input = {
          portfolio_id: portfolio_id ?? '',
          slug: f.slug,
          title: f.title,
          description: f.description,
          show_certificates: f.show_certificates,
          enabled: f.enabled,
          ...(f.endpoints ? { endpoints: eps as { endpoint_id: string; display_name: string | null }[] } : {}),
        };
        if (!cur) {
          steps.push({ kind: 'status_page', action: 'create', name: f.slug });
          if (portfolio_id) await attempt(path, `status page ${f.slug}`, () => s.statusPages.create(team, input));
        } else {
          const changes = diff(
            {
              title: f.title,
              portfolio: f.portfolio,
              description: f.description,
              show_certificates: f.show_certificates,
              enabled: f.enabled,
              endpoints: f.endpoints?.map((e) => ({ endpoint: e.endpoint, display_name: e.display_name ?? null })),
            },
            {
              ...(cur as unknown as Record<string, unknown>),
              portfolio: (cur.portfolio_id && portfolioName.get(cur.portfolio_id)) ?? null,
              endpoints: cur.endpoints.map((e) => ({
                endpoint: endpointName.get(e.endpoint_id) ?? e.endpoint_id,
                display_name: e.display_name,
              })),
            },
          );
          if (changes.length) {
            steps.push({ kind: 'status_page', action: 'update', name: f.slug, changes });
            await attempt(path, `status page ${f.slug}`, () => s.statusPages.update(team, cur.id, input));
          }
        }
      }

      // Maintenance windows.
      for (const [i, f] of (doc.maintenance_windows ?? []).entries()) {
        const path = ['maintenance_windows', i];
        const cur = windowByName.get(f.name);
        const { endpoints: eRefs, domains: dRefs, portfolios: pRefs, ...plain } = f;
        const ids = (
          refs: string[] | undefined,
          fn: (r: string, path: ConfigPath) => string | undefined,
          key: string,
        ) => refs?.map((r, j) => fn(r, [...path, key, j])).filter((x): x is string => !!x);
        const input = {
          ...plain,
          endpoint_ids: ids(eRefs, refEndpoint, 'endpoints'),
          domain_ids: ids(dRefs, refDomain, 'domains'),
          portfolio_ids: ids(pRefs, refPortfolio, 'portfolios'),
        };
        if (!cur) {
          steps.push({ kind: 'maintenance_window', action: 'create', name: f.name });
          await attempt(path, `maintenance window ${f.name}`, () => s.maintenanceWindows.create(team, input));
        } else {
          const changes = diff(
            { ...plain, endpoints: eRefs, domains: dRefs, portfolios: pRefs },
            {
              ...(cur as unknown as Record<string, unknown>),
              endpoints: cur.endpoint_ids.map((id) => endpointName.get(id) ?? id),
              domains: cur.domain_ids.map((id) => domainById.get(id)?.domain ?? id),
              portfolios: cur.portfolio_ids.map((id) => portfolioName.get(id) ?? id),
            },
          );
          if (changes.length) {
            steps.push({ kind: 'maintenance_window', action: 'update', name: f.name, changes });
            await attempt(path, `maintenance window ${f.name}`, () => s.maintenanceWindows.update(team, cur.id, input));
          }
        }
      }

      if (opts.prune) {
        const keep = <T>(items: T[] | undefined, key: (x: T) => string) => new Set((items ?? []).map(key));
        const pageSlugs = keep(doc.status_pages, (x) => x.slug);
        for (const x of pages)
          if (!pageSlugs.has(x.slug) && mine('status_page', x.id)) {
            steps.push({ kind: 'status_page', action: 'delete', name: x.slug });
            await attempt([], `status page ${x.slug}`, () => s.statusPages.remove(team, x.id));
          }
        const windowNames = keep(doc.maintenance_windows, (x) => x.name);
        for (const x of windows)
          if (!windowNames.has(x.name) && mine('maintenance_window', x.id)) {
            steps.push({ kind: 'maintenance_window', action: 'delete', name: x.name });
            await attempt([], `maintenance window ${x.name}`, () => s.maintenanceWindows.remove(team, x.id));
          }
        const domainNames = keep(doc.domains, (x) => domainKey(x.name));
        for (const x of endpoints) {
          const key = `${domainKey(x.domain)}/${x.name}`;
          if (domainNames.has(domainKey(x.domain)) && !fileEndpoints.has(key) && mine('endpoint', x.id)) {
            steps.push({ kind: 'endpoint', action: 'delete', name: key });
            await attempt([], `endpoint ${key}`, () => s.endpoints.remove(team, x.id));
          }
        }
        for (const x of domains)
          if (!domainNames.has(domainKey(x.domain)) && mine('domain', x.id)) {
            steps.push({ kind: 'domain', action: 'delete', name: x.domain });
            await attempt([], `domain ${x.domain}`, () => s.domains.remove(team, x.id));
          }
        const portfolioNames = keep(doc.portfolios, (x) => x.name);
        for (const x of portfolios)
          if (!portfolioNames.has(x.name) && mine('portfolio', x.id)) {
            steps.push({ kind: 'portfolio', action: 'delete', name: x.name });
            await attempt([], `portfolio ${x.name}`, () => s.portfolios.remove(team, x.id));
          }
      }
      if (problems.length) throw new ConfigRejected(problems);
      if (opts.source) await mark(s, opts.source);
    }

    /** Marks every object the file names as managed by it (and unmarks what it no longer names). */
    async function mark(s: Scoped, source: string) {
      const want: { kind: ConfigKind; object_id: string }[] = [];
      const add = (kind: ConfigKind, id: string | undefined) => id && want.push({ kind, object_id: id });
      const portfolios = new Map((await all((pg) => s.portfolios.list(team, {}, pg))).map((x) => [x.name, x.id]));
      const domains = new Map(
        (await all((pg) => s.domains.list(team, {}, pg))).map((x) => [domainKey(x.domain), x.id]),
      );
      const endpoints = await all((pg) => s.endpoints.list(team, {}, pg));
      const endpointIds = new Map(endpoints.map((x) => [`${domainKey(x.domain)}/${x.name}`, x.id]));
      const liveness = new Map((await all((pg) => s.liveness.list(team, {}, pg))).map((c) => [c.endpoint_id, c.id]));
      const pages = new Map((await all((pg) => s.statusPages.list(team, {}, pg))).map((x) => [x.slug, x.id]));
      const windows = new Map((await all((pg) => s.maintenanceWindows.list(team, pg))).map((x) => [x.name, x.id]));
      const settings = new Map(
        (await s.store.notifications.settingsForUser(p.user_id)).map((x) => [
          `${x.notification_type} ${x.delivery_class}`,
          x.id,
        ]),
      );
      for (const f of doc.portfolios ?? []) add('portfolio', portfolios.get(f.name));
      for (const c of doc.channels ?? []) add('channel', settings.get(`${c.type} ${c.delivery_class ?? 'instant'}`));
      for (const f of doc.domains ?? []) {
        add('domain', domains.get(domainKey(f.name)));
        for (const e of f.endpoints ?? []) {
          const id = endpointIds.get(`${domainKey(f.name)}/${e.name}`);
          add('endpoint', id);
          if (e.liveness && id) add('liveness', liveness.get(id));
        }
      }
      for (const f of doc.status_pages ?? []) add('status_page', pages.get(f.slug));
      for (const f of doc.maintenance_windows ?? []) add('maintenance_window', windows.get(f.name));
      await s.store.configManaged.sync(team, source, doc.editable === true, want);
    }

    /** Gives the endpoint the file's ping key, unless another push endpoint has it (keys are unique). */
    async function setPingKey(s: Scoped, path: ConfigPath, label: string, endpointId: string, k: string) {
      const holder = await s.store.push.byKey(k);
      if (holder && holder.endpoint_id !== endpointId) {
        problems.push({
          path: [...path, 'ping_key'],
          message: `endpoint ${label}: ping_key ${k} is the key of another push endpoint`,
        });
        return;
      }
      await s.store.push.setKey(endpointId, k);
      pushKeys.set(endpointId, k);
    }

    /** The file's new endpoints, in one createMany: each refusal recorded at its endpoint. */
    async function createEndpoints(s: Scoped, creates: EndpointCreate[], endpointIds: Map<string, string>) {
      const outcomes = await s.endpoints.createMany(
        team,
        creates.map((c) => c.input),
      );
      for (const [k, r] of outcomes.entries()) {
        const c = creates[k]!;
        if (!r.ok) {
          problems.push({ path: c.path, message: `endpoint ${c.label}: ${r.error.message}` });
          continue;
        }
        endpointIds.set(c.key, r.value.id);
        if (c.pingKey !== undefined) await setPingKey(s, c.path, c.label, r.value.id, c.pingKey);
      }
    }

    async function applyEndpoints(
      s: Scoped,
      f: ConfigDomain,
      path: ConfigPath,
      domainId: string | undefined,
      fileEndpoints: Set<string>,
      endpointByKey: Map<string, Endpoint>,
      livenessByEndpoint: Map<string, LivenessConfig>,
      creates: EndpointCreate[],
    ) {
      const dKey = domainKey(f.name);
      for (const [j, e] of (f.endpoints ?? []).entries()) {
        const epath = [...path, 'endpoints', j];
        const key = `${dKey}/${e.name}`;
        const label = `${f.name}/${e.name}`;
        fileEndpoints.add(key);
        const cur = endpointByKey.get(`${domainId}/${e.name}`);
        const want = endpointBody(e);
        const pingKey = typeof e.ping_key === 'string' ? pingKeyOf(e.ping_key) : undefined;
        if (pingKey !== undefined && e.type !== 'push') {
          problems.push({
            path: [...epath, 'ping_key'],
            message: `endpoint ${label}: ping_key is for push endpoints only`,
          });
          continue;
        }
        if (!cur) {
          steps.push({ kind: 'endpoint', action: 'create', name: label });
          if (e.liveness) steps.push({ kind: 'liveness', action: 'create', name: label });
          if (!domainId) continue;
          creates.push({
            path: epath,
            key,
            label,
            pingKey,
            input: { ...want, domain_id: domainId, liveness: e.liveness as LivenessSettings | undefined },
          });
          continue;
        }
        const changes = diff(want, endpointFields(cur));
        const keyNow = pushKeys.get(cur.id);
        if (pingKey !== undefined && cur.endpoint_type === 'push' && pingKey !== keyNow) {
          // The key is not one of the endpoint's fields: changed beside them, under the same managed-object check.
          changes.push({ field: 'ping_key', from: keyNow ?? null, to: pingKey });
          const guarded = await attempt(epath, `endpoint ${label}`, async () => {
            await managedGuard(opts.source !== undefined)(s.store, 'endpoint', cur.id);
            return true;
          });
          if (guarded) await setPingKey(s, epath, label, cur.id, pingKey);
        }
        const fieldChanges = changes.filter((c) => c.field !== 'ping_key');
        if (changes.length) steps.push({ kind: 'endpoint', action: 'update', name: label, changes });
        if (fieldChanges.length) {
          const { endpoint_type: _t, ...update } = want;
          if (want.endpoint_type !== cur.endpoint_type)
            problems.push({
              path: [...epath, 'type'],
              message: `endpoint ${label}: the type of an endpoint cannot change (${cur.endpoint_type})`,
            });
          else await attempt(epath, `endpoint ${label}`, () => s.endpoints.update(team, cur.id, update));
        }
        const live = livenessByEndpoint.get(cur.id);
        if (e.liveness && !live) {
          steps.push({ kind: 'liveness', action: 'create', name: label });
          await attempt([...epath, 'liveness'], `liveness of ${label}`, () =>
            s.liveness.create(team, { ...(e.liveness as LivenessSettings), endpoint_id: cur.id }),
          );
        } else if (e.liveness && live) {
          const lchanges = diff(livenessWant(e.liveness), livenessFields(live));
          if (lchanges.length) {
            steps.push({ kind: 'liveness', action: 'update', name: label, changes: lchanges });
            await attempt([...epath, 'liveness'], `liveness of ${label}`, () =>
              s.liveness.update(team, live.id, e.liveness as LivenessSettings),
            );
          }
        } else if (!e.liveness && live && opts.prune && cur.endpoint_type !== 'push' && mine('liveness', live.id)) {
          steps.push({ kind: 'liveness', action: 'delete', name: label });
          await attempt([...epath], `liveness of ${label}`, () => s.liveness.remove(team, live.id));
        }
      }
    }

    const applyId = randomUUID();
    const result = (applied: boolean): ConfigPlan => {
      const summary = Object.fromEntries(
        KINDS.map((k) => [k, { create: 0, update: 0, delete: 0 }]),
      ) as ConfigPlan['summary'];
      for (const st of steps) summary[st.kind][st.action]++;
      const wrote = applied && steps.length > 0;
      return {
        applied: wrote,
        dry_run: opts.dryRun,
        prune: opts.prune,
        ...(wrote && { apply_id: applyId }),
        summary,
        steps,
      };
    };

    try {
      // Each object changed is one audit entry, made through the apply (its id) by the caller; a dry run
      // records none (its transaction is rolled back).
      const apply = () =>
        deps.store.transaction(async (tx) => {
          // Under `serve --config` the file's own writes pass the managed-object check; another apply meets it.
          await body(scopedServices(deps, tx, feed, opts.source !== undefined, opts.dryRun));
          if (opts.dryRun) throw new DryRun();
        });
      // `serve --config` has no request: the principal it applies as is the actor.
      const by = deps.audit?.actor();
      await (deps.audit && opts.dryRun
        ? deps.audit.unrecorded(apply)
        : deps.audit
          ? deps.audit.run(
              {
                user_id: by?.user_id ?? p.user_id,
                user_email: by?.user_email ?? p.user_email,
                via: 'config-apply',
                via_id: applyId,
                via_name: by?.via_name ?? null,
                request_id: by?.request_id ?? null,
              },
              apply,
            )
          : apply());
    } catch (err) {
      if (err instanceof DryRun) return result(false);
      throw err;
    }
    for (const c of pending) deps.changes.emit(c);
    return result(true);
  }

  return {
    /** The plan and, unless `dryRun`, its application in one transaction; ConfigRejected lists every refusal. */
    apply: (p: Principal, doc: ConfigDocument, opts: { dryRun?: boolean; prune?: boolean; source?: string } = {}) =>
      run(p, doc, { dryRun: opts.dryRun ?? false, prune: opts.prune ?? false, source: opts.source }),
  };
}
