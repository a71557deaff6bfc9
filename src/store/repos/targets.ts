// A liveness target as the scheduler reads it: an enabled config and its enabled endpoint (with its
// domain's name), in one result row. Read by a claim round (store/repos/liveness-due.ts: with the
// claim itself on PostgreSQL) and by id (repos/liveness.ts). The columns are named (a prepared
// statement must not return `*`: store/prepared.ts) and checked against the tables at compile time.
import { sql, type Selectable } from 'kysely';
import type { EndpointsTable, LivenessConfigsTable } from '../schema.js';
import type { Endpoint, HttpMethod, LivenessAuth, LivenessConfig } from '../../domain/types.js';
import { allColumns, prefixedColumns, toBool, unprefixed } from './util.js';
import { toEndpoint, type EndpointRow } from './endpoints.js';

export function toConfig(r: Selectable<LivenessConfigsTable>): LivenessConfig {
  return {
    id: r.id,
    team_id: r.team_id,
    endpoint_id: r.endpoint_id,
    is_enabled: toBool(r.is_enabled),
    timeout_seconds: r.timeout_seconds,
    expected_status_code: r.expected_status_code,
    interval_seconds: r.interval_seconds,
    failure_threshold: r.failure_threshold,
    regions: r.regions ? (JSON.parse(r.regions) as string[]) : [],
    confirm_from: r.confirm_from ?? 1,
    method: (r.method ?? 'GET') as HttpMethod,
    headers: r.headers ? (JSON.parse(r.headers) as Record<string, string>) : {},
    body: r.body ?? null,
    follow_redirects: toBool(r.follow_redirects ?? 0),
    conditions: r.conditions ? (JSON.parse(r.conditions) as string[]) : [],
    auth:
      r.auth_type && r.auth_secret
        ? { type: r.auth_type as LivenessAuth['type'], username: r.auth_username ?? null, sealed: r.auth_secret }
        : null,
    seq: r.seq,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

const CONFIG_COLUMNS = allColumns<LivenessConfigsTable>()([
  'id',
  'seq',
  'team_id',
  'endpoint_id',
  'is_enabled',
  'timeout_seconds',
  'expected_status_code',
  'interval_seconds',
  'failure_threshold',
  'regions',
  'confirm_from',
  'method',
  'headers',
  'body',
  'follow_redirects',
  'conditions',
  'auth_type',
  'auth_username',
  'auth_secret',
  'created_at',
  'updated_at',
]);
const ENDPOINT_COLUMNS = allColumns<EndpointsTable>()([
  'id',
  'team_id',
  'domain_id',
  'name',
  'endpoint_type',
  'subdomain',
  'path',
  'port',
  'is_enabled',
  'timeout_seconds',
  'notes',
  'settings',
  'created_at',
  'updated_at',
]);

/** What a liveness check runs against: the config and its endpoint. */
export interface LivenessTarget {
  config: LivenessConfig;
  endpoint: Endpoint;
}

/** A row of targetColumns(): the config's columns prefixed `c_`, the endpoint's `e_` (null: none read). */
export type TargetRow = Record<string, unknown>;

/** The select list of a target: config `configAlias`'s columns, endpoint `endpointAlias`'s, its domain's name. */
export const targetColumns = (configAlias: string, endpointAlias: string) =>
  sql`${prefixedColumns(configAlias, CONFIG_COLUMNS, 'c_')}, ${prefixedColumns(endpointAlias, ENDPOINT_COLUMNS, 'e_')},
    (select d.domain from domains d where d.id = ${sql.ref(`${endpointAlias}.domain_id`)}) as e_domain`;

/**
 * The enabled endpoint of config `configAlias`, found by key, as a LATERAL FROM item named `alias`
 * (no row: the endpoint is disabled or gone). OFFSET 0 keeps it one primary-key probe per config
 * (a join makes PostgreSQL's planner hash the whole endpoint table once the fleet is large).
 */
export const enabledEndpointOf = (configAlias: string, alias: string) =>
  sql`lateral (select * from endpoints x where x.id = ${sql.ref(`${configAlias}.endpoint_id`)}
    and x.is_enabled = 1 offset 0) ${sql.raw(alias)}`;

/** The target of a row of targetColumns(); undefined when the config or the endpoint was not read (disabled, deleted). */
export function toTarget(r: TargetRow): LivenessTarget | undefined {
  if (r.c_id == null || r.e_id == null) return undefined;
  return {
    config: toConfig(unprefixed<Selectable<LivenessConfigsTable>>(r, CONFIG_COLUMNS, 'c_')),
    endpoint: toEndpoint(unprefixed<EndpointRow>(r, [...ENDPOINT_COLUMNS, 'domain'], 'e_')),
  };
}
