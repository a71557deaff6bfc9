// The one table of documented operations: adding a route's documentation is one entry here
// (plus its response schema in schemas/responses/). The OpenAPI document, the route-coverage
// contract test and the response checks of the test suite are all derived from this table.
//
// Conventions, so entries stay short:
// - `path` uses koa-router syntax (`:domainId`); a second path (the User API twin served by the same
//   handler) goes in `alias`.
// - Path parameters are UUIDs unless `params` says otherwise.
// - `query` / `body` name schemas by their `$id` (schemas/queries, schemas/requests).
// - `responses` maps each success status to a response schema `$id` (schemas/responses) or to
//   `{ contentType }` for a non-JSON answer.
// - Error statuses are derived (400 everywhere, 401 + 429 when authenticated, 404 with a path
//   parameter, 413 + 415 + 500 everywhere); list only the others in `errors` (402, 403, 409, 503,
//   or 404 when a body field names a missing resource).

import { CHANNELS } from '../../channels/index.js';
import { DOCS_ASSETS } from './swagger-ui.js';
import { STATUS_PAGE_CACHE_SECONDS } from '../../domain/status-page.js';
import { PING_KEY } from '../../domain/push.js';
import { BADGE_KINDS } from '../../web/badge.js';
import type { Role } from '../../domain/roles.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

export type ResponseDoc =
  | string
  | {
      schema?: string;
      /** One type, or several (the answer has one of them). */ contentType?: string | string[];
      description?: string;
      /** Extra response headers: name -> description. */ headers?: Record<string, string>;
    };

export interface OperationDoc {
  method: HttpMethod;
  /** koa-router syntax: `/api/v1/domains/:domainId`. */
  path: string;
  /** The same handler also answers here (User API twin), documented as its own operation. */
  alias?: string;
  summary: string;
  description?: string;
  tag: string;
  /** Default true: Bearer header, `api_key` query parameter or `api_key` body field. */
  auth?: boolean;
  /**
   * The role a caller needs in the team (docs/accounts.md); enforced from this table (src/api/roles.ts).
   * Default: `viewer` for a GET, `owner` for any other method (a new write is the owner's until declared).
   */
  role?: Role;
  /** Schema `$id` of the query parameters. */
  query?: string;
  /** Schema `$id` of the JSON request body. */
  body?: string;
  /** Path parameter schemas other than the default UUID. */
  params?: Record<string, Record<string, unknown>>;
  responses: Record<number, ResponseDoc>;
  /** Extra error statuses beyond the derived ones. */
  errors?: number[];
  /**
   * Served ahead of the JSON API (no body parser, no token): it answers only what `responses` lists,
   * besides the server's own 500 and 503.
   */
  plain?: true;
  /** A request body of any content type, read as text: what it is for. */
  textBody?: string;
}

/** The role an operation needs: its declared one, else viewer for a read and owner for a write. */
export const requiredRole = (op: Pick<OperationDoc, 'method' | 'role'>): Role =>
  op.role ?? (op.method === 'get' ? 'viewer' : 'owner');

const CHANNEL = { type: 'string', enum: [...CHANNELS] };
/** A push endpoint's ping key (PING_KEY): a random UUID, or the key a configuration file set. */
const PING_KEY_PARAM = { type: 'string', pattern: PING_KEY.source };
const SLUG_PARAM = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$' };

export const OPERATIONS: OperationDoc[] = [
  // System
  {
    method: 'get',
    path: '/health',
    summary: 'Service and database health',
    tag: 'System',
    auth: false,
    responses: { 200: 'Health', 503: { schema: 'HealthDegraded', description: 'The database is not reachable' } },
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This OpenAPI document',
    tag: 'System',
    auth: false,
    responses: { 200: 'OpenApiDocument' },
  },
  {
    method: 'get',
    path: '/api/v1/config/schema.json',
    summary: "The configuration file's JSON Schema (docs/configuration-file.md)",
    description:
      'Generated from the same request, channel and endpoint-type schemas as this API; point an editor at it with `# yaml-language-server: $schema=<this URL>`.',
    tag: 'System',
    auth: false,
    responses: { 200: { contentType: 'application/schema+json' } },
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'This document as a readable HTML reference (Swagger UI)',
    tag: 'System',
    auth: false,
    responses: { 200: { contentType: 'text/html' } },
  },
  {
    method: 'get',
    path: '/docs/:asset',
    summary: 'A file of the /docs page (Swagger UI, served from the installed swagger-ui-dist package)',
    description: 'Only the listed files are served (CSS, JavaScript or PNG); any other name answers 404.',
    tag: 'System',
    auth: false,
    params: { asset: { type: 'string', enum: Object.keys(DOCS_ASSETS) } },
    responses: {
      200: {
        contentType: [...new Set(Object.values(DOCS_ASSETS).map((t) => t.split(';')[0]!))],
        description: 'The file, with its content type and an ETag',
      },
      304: { description: 'Not modified (If-None-Match)' },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    summary:
      'Prometheus metrics (Bearer DOMMON_METRICS_TOKEN when set; 403 without it on a non-loopback listen address)',
    tag: 'System',
    auth: false,
    responses: { 200: { contentType: 'text/plain' } },
    errors: [401, 403],
  },
  {
    method: 'get',
    path: '/api/v1/nodes',
    summary:
      'The dommon serve processes (nodes) on this database: role, region, version, heartbeat, work, checks per minute',
    description:
      'Not scoped to a team: any valid token may read it. A node writes its row every 10 s; one silent for more than 30 s is `stale`, one silent for 24 h is removed. Not served by `worker` nodes (DOMMON_ROLE).',
    tag: 'System',
    responses: { 200: 'NodeList' },
  },
  {
    method: 'get',
    path: '/api/v1/validate',
    summary: 'Check a token',
    tag: 'Auth',
    responses: { 200: 'TokenValidation' },
  },
  {
    method: 'post',
    path: '/api/v1/auth',
    role: 'viewer',
    summary: 'Authenticate a token (team, user, token)',
    tag: 'Auth',
    responses: { 200: 'TokenAuth' },
  },

  // Tokens (account settings; docs/accounts.md)
  {
    method: 'get',
    path: '/api/v1/account/tokens',
    summary: "The caller's own API tokens in the team (not revoked), with when each was last used",
    tag: 'Tokens',
    responses: { 200: 'ApiTokenList' },
  },
  {
    method: 'post',
    path: '/api/v1/account/tokens',
    role: 'viewer',
    summary: 'Create a token of your own: a name, read-only or a role no higher than yours, an expiry',
    description:
      "The secret is in this answer only. A role above the caller's is refused (403 FORBIDDEN_ROLE); an expiry not in the future is a 400 (INVALID_EXPIRY).",
    tag: 'Tokens',
    body: 'token-create',
    responses: { 201: 'ApiTokenCreated' },
  },
  {
    method: 'delete',
    path: '/api/v1/account/tokens/:tokenId',
    role: 'viewer',
    summary: 'Revoke a token of your own (its dashboard sessions end with it)',
    tag: 'Tokens',
    responses: { 200: 'ApiTokenRevoked' },
  },
  // Passkeys (account settings; docs/accounts.md#passkeys)
  {
    method: 'get',
    path: '/api/v1/account/passkeys',
    summary: "The passkeys of the caller's account (a token, which has no account, has none)",
    tag: 'Passkeys',
    responses: { 200: 'PasskeyList' },
  },
  {
    method: 'post',
    path: '/api/v1/account/passkeys/options',
    role: 'viewer',
    summary: 'Options to register a new passkey (WebAuthn creation options with a one-time challenge)',
    description:
      "Only a person's session (signed in with e-mail and password or a passkey) has an account: a token is refused (403 ACCOUNT_SESSION_REQUIRED).",
    tag: 'Passkeys',
    body: 'passkey-options',
    responses: { 200: 'PasskeyOptions' },
    errors: [403],
  },
  {
    method: 'post',
    path: '/api/v1/account/passkeys',
    role: 'viewer',
    summary: "Register a passkey: its name and the browser's answer to the options",
    description:
      "A response not made over a challenge of the options (used, expired, another account's, never handed out), with another origin, or without user verification is a 400 (PASSKEY_NOT_VERIFIED); a passkey registered already is a 409 (PASSKEY_EXISTS).",
    tag: 'Passkeys',
    body: 'passkey-create',
    responses: { 201: 'Passkey' },
    errors: [403, 409],
  },
  {
    method: 'delete',
    path: '/api/v1/account/passkeys/:passkeyId',
    role: 'viewer',
    summary: 'Remove one of your passkeys: it no longer signs in',
    tag: 'Passkeys',
    responses: { 200: 'PasskeyRemoved' },
  },
  {
    method: 'get',
    path: '/api/v1/tokens',
    role: 'owner',
    summary: "Every API token of the team (not revoked), whoever's it is",
    tag: 'Tokens',
    responses: { 200: 'ApiTokenList' },
  },
  {
    method: 'delete',
    path: '/api/v1/tokens/:tokenId',
    role: 'owner',
    summary: 'Revoke any token of the team (its dashboard sessions end with it)',
    tag: 'Tokens',
    responses: { 200: 'ApiTokenRevoked' },
  },

  // Members (docs/accounts.md)
  {
    method: 'get',
    path: '/api/v1/members',
    role: 'owner',
    summary: "The team's members and their roles",
    tag: 'Members',
    responses: { 200: 'MemberList' },
  },
  {
    method: 'put',
    path: '/api/v1/members/:memberId',
    role: 'owner',
    summary: "Change a member's role",
    description:
      "Applies at the member's next request, on every node. The team's last owner cannot be given another role (409 LAST_OWNER).",
    tag: 'Members',
    body: 'member-update',
    responses: { 200: 'Member' },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/api/v1/members/:memberId',
    role: 'owner',
    summary: 'Remove a member: their tokens are revoked and their sessions end, on every node at once',
    description: "The team's last owner cannot be removed (409 LAST_OWNER).",
    tag: 'Members',
    responses: { 200: 'MemberRemoved' },
    errors: [409],
  },

  // Invitations and owners' password-reset links (docs/accounts.md#invitations)
  {
    method: 'get',
    path: '/api/v1/invitations',
    role: 'owner',
    summary: "The team's invitations not used yet and still live (never their link)",
    tag: 'Invitations',
    responses: { 200: 'InvitationList' },
  },
  {
    method: 'post',
    path: '/api/v1/invitations',
    role: 'owner',
    summary: 'Invite an e-mail to the team with a role: a one-time link (24 h), answered and mailed',
    description:
      "The link is in this answer only; it is also sent with the SMTP relay when the team has an enabled e-mail channel (`email_sent`). A role above the caller's is 403 FORBIDDEN_ROLE; a member already in the team is 409 USER_EXISTS.",
    tag: 'Invitations',
    body: 'invitation-create',
    responses: { 201: 'OneTimeLinkCreated' },
    errors: [403, 409],
  },
  {
    method: 'delete',
    path: '/api/v1/invitations/:invitationId',
    role: 'owner',
    summary: 'Withdraw an invitation: its link no longer works',
    tag: 'Invitations',
    responses: { 200: 'InvitationRevoked' },
  },
  {
    method: 'post',
    path: '/api/v1/password-resets',
    role: 'owner',
    summary:
      "A one-time link (24 h) for a member of the team to set a new password; using it ends the person's other sessions",
    description:
      'The link is in this answer only; it is also mailed when the team has an enabled e-mail channel. A member without an account gets one. A person who belongs to other teams too is refused with 409 `ACCOUNT_SHARED`: the link would hand this team\'s owner those teams as well; they reset it themselves ("Forgot your password?").',
    tag: 'Invitations',
    body: 'password-reset-create',
    responses: { 201: 'OneTimeLinkCreated' },
    errors: [404, 409],
  },

  // Portfolios
  {
    method: 'get',
    path: '/api/v1/portfolios',
    summary: 'List portfolios',
    tag: 'Portfolios',
    query: 'portfolio-list',
    responses: { 200: 'PortfolioList' },
  },
  {
    method: 'post',
    path: '/api/v1/portfolios',
    role: 'editor',
    summary: 'Create a portfolio',
    tag: 'Portfolios',
    body: 'portfolio-create',
    responses: { 201: 'Portfolio' },
  },
  {
    method: 'get',
    path: '/api/v1/portfolios/:portfolioId',
    summary: 'Get a portfolio',
    tag: 'Portfolios',
    responses: { 200: 'Portfolio' },
  },
  {
    method: 'put',
    path: '/api/v1/portfolios/:portfolioId',
    role: 'editor',
    summary: 'Update a portfolio',
    tag: 'Portfolios',
    body: 'portfolio-update',
    responses: { 200: 'Portfolio' },
  },
  {
    method: 'delete',
    path: '/api/v1/portfolios/:portfolioId',
    role: 'editor',
    summary: 'Delete a portfolio (409 while domains are assigned)',
    tag: 'Portfolios',
    responses: { 200: 'PortfolioDeleted' },
    errors: [409],
  },

  // Maintenance windows (extension)
  {
    method: 'get',
    path: '/api/v1/maintenance-windows',
    summary: "List the team's maintenance windows",
    tag: 'Maintenance windows',
    query: 'maintenance-window-list',
    responses: { 200: 'MaintenanceWindowList' },
  },
  {
    method: 'post',
    path: '/api/v1/maintenance-windows',
    role: 'editor',
    summary: 'Create a maintenance window',
    description:
      'One-off (`starts_at`, `ends_at`) or recurring (`cron`, `duration_minutes`, `timezone`), covering `endpoint_ids`, the endpoints of `domain_ids`, or of the domains of `portfolio_ids`. While one covers an endpoint, its checks go on but raise no notification, and its liveness status reads `maintenance`.',
    tag: 'Maintenance windows',
    body: 'maintenance-window-create',
    responses: { 201: 'MaintenanceWindow' },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/maintenance-windows/:windowId',
    summary: 'Get a maintenance window',
    tag: 'Maintenance windows',
    responses: { 200: 'MaintenanceWindow' },
  },
  {
    method: 'put',
    path: '/api/v1/maintenance-windows/:windowId',
    role: 'editor',
    summary: 'Update a maintenance window',
    tag: 'Maintenance windows',
    body: 'maintenance-window-update',
    responses: { 200: 'MaintenanceWindow' },
  },
  {
    method: 'delete',
    path: '/api/v1/maintenance-windows/:windowId',
    role: 'editor',
    summary: 'Delete a maintenance window',
    tag: 'Maintenance windows',
    responses: { 200: 'MaintenanceWindowDeleted' },
  },

  // Domains (Public API + User API twins)
  {
    method: 'get',
    path: '/api/v1/domains',
    alias: '/api-domains',
    summary: 'List domains',
    tag: 'Domains',
    query: 'domain-list',
    responses: { 200: 'DomainList' },
  },
  {
    method: 'post',
    path: '/api/v1/domains',
    role: 'editor',
    alias: '/api-domains',
    summary: 'Add a domain',
    tag: 'Domains',
    body: 'domain-create',
    responses: { 201: 'Domain' },
    errors: [402, 404, 409],
  },
  {
    method: 'post',
    path: '/api/v1/domains/bulk',
    role: 'editor',
    alias: '/api-domains/bulk',
    summary: 'Add many domains (each item commits on its own)',
    tag: 'Domains',
    body: 'domain-bulk',
    responses: { 201: 'DomainBulkResult' },
  },
  {
    method: 'get',
    path: '/api/v1/domains/:domainId',
    alias: '/api-domains/:domainId',
    summary: 'Get a domain (include_endpoints adds its endpoints)',
    tag: 'Domains',
    query: 'domain-detail',
    responses: { 200: 'Domain' },
  },
  {
    method: 'put',
    path: '/api/v1/domains/:domainId',
    role: 'editor',
    alias: '/api-domains/:domainId',
    summary: 'Update a domain',
    tag: 'Domains',
    body: 'domain-update',
    responses: { 200: 'Domain' },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/api/v1/domains/:domainId',
    role: 'editor',
    alias: '/api-domains/:domainId',
    summary: 'Delete a domain (cascades)',
    tag: 'Domains',
    responses: { 200: 'DomainDeleted' },
  },
  {
    method: 'get',
    path: '/api/v1/domains/:domainId/status',
    alias: '/api-domain-status/:domainId',
    summary: 'Comprehensive domain status (both variants)',
    tag: 'Status',
    responses: { 200: 'DomainStatus' },
  },

  // Endpoints
  {
    method: 'get',
    path: '/api/v1/endpoints',
    alias: '/api-endpoints',
    summary: 'List endpoints',
    tag: 'Endpoints',
    query: 'endpoint-list',
    responses: { 200: 'EndpointList' },
  },
  {
    method: 'post',
    path: '/api/v1/endpoints',
    role: 'editor',
    alias: '/api-endpoints',
    summary: 'Add an endpoint (with `liveness`, its liveness configuration too: an extension)',
    tag: 'Endpoints',
    body: 'endpoint-create',
    responses: { 201: 'Endpoint' },
    errors: [402, 404, 409],
  },
  {
    method: 'post',
    path: '/api/v1/endpoints/bulk',
    role: 'editor',
    alias: '/api-endpoints/bulk',
    summary: 'Add many endpoints (each item commits on its own, with its inline `liveness` configuration if any)',
    tag: 'Endpoints',
    body: 'endpoint-bulk',
    responses: { 201: 'EndpointBulkResult' },
  },
  {
    method: 'post',
    path: '/api/v1/endpoints/bulk-actions',
    role: 'editor',
    alias: '/api-endpoints/bulk-actions',
    summary: 'Pause, resume or delete many endpoints (extension; each endpoint on its own, answered per endpoint)',
    description:
      "An extension of the spec, used by the web dashboard for its ticked rows: `action` (`pause` or `resume` the liveness checks, or `delete` the endpoints) on 1-1000 `endpoint_ids` of the team. Each endpoint commits on its own; `results` gives, in the order sent, the status its single route would have answered (200; 404 `NOT_FOUND` for an unknown or another team's id; 409 `NO_LIVENESS` to pause or resume an endpoint without liveness checks), `errors` the failures in the bulk creates' shape. An endpoint already paused (or running) stays so and counts as done.",
    tag: 'Endpoints',
    body: 'endpoint-actions',
    responses: { 200: 'EndpointActionsResult' },
  },
  {
    method: 'post',
    path: '/api/v1/config/apply',
    summary: "Make the team's setup match a configuration file (extension; docs/configuration-file.md)",
    description:
      "`file` is the file's text (YAML or JSON), `env` the values of the `${NAME}` variables it names. The answer is the plan: per kind the objects created, updated and deleted, and each change. It is applied in one transaction through the same checks as the single routes; `dry_run=true` checks and plans only (nothing is written), `prune=true` also deletes what the file does not list. An invalid file is a 400 `INVALID_CONFIG` whose `errors` lists every error as `file:line:col: rule`; nothing is applied. Applying the same file again answers an empty plan and writes nothing.",
    tag: 'Configuration',
    query: 'config-apply-options',
    body: 'config-apply',
    responses: { 200: 'ConfigPlan' },
  },
  {
    method: 'get',
    path: '/api/v1/config/export',
    // Decided, not defaulted (docs/accounts.md): it shows nothing a viewer cannot read through the
    // resources' own GETs, secrets only as references, and a read-only token may watch for drift.
    role: 'viewer',
    summary: "The team's setup as a configuration file (extension; docs/configuration-file.md)",
    description:
      "`file` is the text of the file `POST /api/v1/config/apply` (`dommon apply -f`) reads: the team's portfolios, domains with their endpoints and liveness checks, status pages, maintenance windows and the caller's notification channels, in a stable order. A secret or credential (fields `writeOnly` in the file's schema: channel tokens and webhook URLs, liveness passwords and tokens) is never written: it is a `${NAME}` reference, and `secrets` lists each name with what it stands for. Values equal to the schema's default, nulls and empty lists are left out.",
    tag: 'Configuration',
    query: 'config-export-options',
    responses: { 200: 'ConfigExport' },
  },
  {
    method: 'get',
    path: '/api/v1/endpoints/:endpointId',
    alias: '/api-endpoints/:endpointId',
    summary: 'Get an endpoint (detail)',
    tag: 'Endpoints',
    responses: { 200: 'EndpointDetail' },
  },
  {
    method: 'put',
    path: '/api/v1/endpoints/:endpointId',
    role: 'editor',
    alias: '/api-endpoints/:endpointId',
    summary: 'Update an endpoint',
    tag: 'Endpoints',
    body: 'endpoint-update',
    responses: { 200: 'EndpointDetail' },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/api/v1/endpoints/:endpointId',
    role: 'editor',
    alias: '/api-endpoints/:endpointId',
    summary: 'Delete an endpoint',
    tag: 'Endpoints',
    responses: { 200: 'EndpointDeleted' },
  },
  {
    method: 'get',
    path: '/api/v1/endpoints/:endpointId/pings',
    alias: '/api-endpoints/:endpointId/pings',
    summary: "A push endpoint's ping URL, schedule and latest pings (extension)",
    description:
      "An extension of the spec, for `push` endpoints (docs/push.md): the ping URL (on the origin the request was sent to), the schedule, and the latest pings, newest first: each with its kind (`start`, `success`, `fail`, `log`), exit status, the run's duration from its start ping, and the first 100,000 bytes of its body (`body_bytes` is the full size). 404 for an endpoint of another type.",
    tag: 'Endpoints',
    query: 'endpoint-pings',
    responses: { 200: 'EndpointPings' },
  },
  {
    method: 'get',
    path: '/api/v1/endpoints/:endpointId/certificates',
    alias: '/api-endpoints/:endpointId/certificates',
    summary: 'Current certificate and certificate history (extension)',
    description:
      'An extension of the spec: the latest TLS inspection of the endpoint (`current`, null before the first one or when the endpoint speaks no TLS) and every certificate seen on it, newest first, each marked `first`, `renewed` (same issuer as the one before) or `issuer_changed`. Only the leaf certificate is stored, not the chain.',
    tag: 'Endpoints',
    responses: { 200: 'EndpointCertificates' },
  },
  {
    method: 'get',
    path: '/api/v1/endpoints/:endpointId/status',
    alias: '/api-endpoint-status/:endpointId',
    summary: 'Comprehensive endpoint status (both variants)',
    tag: 'Status',
    responses: { 200: 'EndpointStatus' },
  },
  {
    method: 'get',
    path: '/api-endpoint-status',
    summary: 'Every endpoint status with summary counts',
    tag: 'Status',
    query: 'endpoint-status-list',
    responses: { 200: 'EndpointStatusList' },
  },

  // Liveness
  {
    method: 'get',
    path: '/api/v1/liveness',
    alias: '/api-liveness',
    summary: 'List liveness configurations',
    tag: 'Liveness',
    query: 'liveness-list',
    responses: { 200: 'LivenessList' },
  },
  {
    method: 'post',
    path: '/api/v1/liveness',
    role: 'editor',
    alias: '/api-liveness',
    summary: 'Configure liveness for an endpoint',
    tag: 'Liveness',
    body: 'liveness-create',
    responses: { 201: 'Liveness' },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/api/v1/liveness/bulk',
    role: 'editor',
    alias: '/api-liveness/bulk',
    summary: 'Configure liveness for many endpoints (extension; each item commits on its own)',
    description:
      'An extension of the spec, answered like the domains and endpoints bulk creates: each item is a liveness-create body; an invalid item, an unknown endpoint (`NOT_FOUND`) or one that already has a configuration (`LIVENESS_EXISTS`) is listed in `errors` with its index, and the other items are created.',
    tag: 'Liveness',
    body: 'liveness-bulk',
    responses: { 201: 'LivenessBulkResult' },
  },
  {
    method: 'get',
    path: '/api/v1/liveness/:livenessId',
    alias: '/api-liveness/:livenessId',
    summary: 'Get a liveness configuration',
    tag: 'Liveness',
    responses: { 200: 'Liveness' },
  },
  {
    method: 'put',
    path: '/api/v1/liveness/:livenessId',
    role: 'editor',
    alias: '/api-liveness/:livenessId',
    summary: 'Update a liveness configuration',
    tag: 'Liveness',
    body: 'liveness-update',
    responses: { 200: 'Liveness' },
    errors: [422],
  },
  {
    method: 'delete',
    path: '/api/v1/liveness/:livenessId',
    role: 'editor',
    alias: '/api-liveness/:livenessId',
    summary: 'Delete a liveness configuration and its history',
    tag: 'Liveness',
    responses: { 200: 'LivenessDeleted' },
  },
  {
    method: 'get',
    path: '/api/v1/liveness/:livenessId/results',
    alias: '/api-liveness/:livenessId/results',
    summary: 'Probe results of the last `hours`',
    tag: 'Liveness',
    query: 'liveness-results',
    responses: { 200: 'LivenessResults' },
  },
  {
    method: 'get',
    path: '/api/v1/liveness/:livenessId/stats',
    alias: '/api-liveness/:livenessId/stats',
    summary: 'Daily statistics (`stats` = `data`) and totals',
    tag: 'Liveness',
    query: 'liveness-stats',
    responses: { 200: 'LivenessStats' },
  },
  {
    method: 'get',
    path: '/api/v1/liveness/:livenessId/hourly',
    alias: '/api-liveness/:livenessId/hourly',
    summary: 'Hourly statistics of the last `hours` (extension)',
    description:
      'An extension of the spec: the hourly aggregates (checks, successes, success rate, average response time) of the current hour and the `hours` - 1 before it (default 168, seven days), oldest first; hours without checks are absent.',
    tag: 'Liveness',
    query: 'liveness-hourly',
    responses: { 200: 'LivenessHourly' },
  },
  {
    method: 'get',
    path: '/api/v1/liveness/:livenessId/status',
    alias: '/api-liveness/:livenessId/status',
    summary: 'Current liveness status',
    tag: 'Liveness',
    query: 'liveness-status',
    responses: { 200: 'LivenessStatus' },
  },

  // Dashboard
  {
    method: 'get',
    path: '/api/v1/home',
    summary: 'Every domain and endpoint of the team in one list (extension)',
    description:
      "An extension of the spec, the web dashboard's home: the team's domains (registration days left, health grade, DNS score) and endpoints (liveness state, the failure in words, uptime and average response time of 24 hours, the certificate's days left, the last `checks` checks) as rows grouped by domain or portfolio, filtered by `state`, `type`, `portfolio_id` and `q`, sorted by `sort` and `order`, paged; `summary` counts every row of the team before the filters. One request per page whatever the team's size.",
    tag: 'Dashboard',
    query: 'home',
    responses: { 200: 'Home' },
  },
  {
    method: 'get',
    path: '/api/v1/endpoints/:endpointId/incidents',
    summary: "An endpoint's outages with their recovery and notifications (extension)",
    description:
      'An extension of the spec: each outage (down event) of the endpoint, newest first, with why it failed (in words and as stored), when it recovered (null while ongoing), how long it lasted, and the notifications the channels made for the outage and its recovery (from the delivery log).',
    tag: 'Dashboard',
    query: 'incident-list',
    responses: { 200: 'IncidentList' },
  },

  // Events
  {
    method: 'get',
    path: '/api/v1/events',
    summary: "The team's recorded events, newest first (extension)",
    description:
      'An extension of the spec: the events the monitors recorded (endpoint down and recovered, certificate, registration and exposure alerts), the same ones the notification channels deliver, newest first, filtered by `category`, `event_type`, `severity`, `domain_id`, `endpoint_id` and `since`. Events already delivered are pruned after the retention period.',
    tag: 'Events',
    query: 'event-list',
    responses: { 200: 'EventList' },
  },

  // Audit trail
  {
    method: 'get',
    path: '/api/v1/audit',
    summary: "The team's audit trail: who changed what, newest first (extension)",
    description:
      'An extension of the spec (docs/audit.md): one entry per change a person or a token made (create, update, delete, pause, resume, revoke, ...), with the actor, the door (token, session, local command line, configuration apply), the object before and after (secrets masked) and the request id. Filtered by `since`, `until`, `actor`, `object_kind`, `object_id` and `action`; paged by `cursor` (`next_cursor` of the previous page). `format=jsonl` or `Accept: application/x-ndjson` streams every matching entry as JSON lines. Owners only: an editor, a viewer or a read-only token is refused (403). Entries are pruned after DOMMON_AUDIT_RETENTION_DAYS.',
    tag: 'Audit',
    role: 'owner',
    query: 'audit-list',
    responses: {
      200: {
        schema: 'AuditList',
        contentType: ['application/json', 'application/x-ndjson'],
        description: 'A page (JSON), or with `format=jsonl` every matching entry, one AuditEntry a line',
      },
    },
  },

  // Domain intelligence
  {
    method: 'get',
    path: '/api/v1/domains/:domainId/security',
    alias: '/api-domains/:domainId/security',
    summary: 'Domain security results (SPF, DMARC, DKIM, CAA, DNSSEC, transfer lock)',
    tag: 'Domains',
    responses: { 200: 'DomainSecurity' },
  },
  {
    method: 'post',
    path: '/api/v1/domains/:domainId/security',
    role: 'editor',
    alias: '/api-domains/:domainId/security',
    summary: 'Run the DNS security checks now',
    tag: 'Domains',
    responses: { 200: 'DomainSecurity' },
  },
  {
    method: 'get',
    path: '/api/v1/domains/:domainId/registration',
    alias: '/api-domains/:domainId/registration',
    summary: 'Registration data (RDAP/WHOIS), state and change history',
    tag: 'Domains',
    responses: { 200: 'DomainRegistration' },
  },
  {
    method: 'post',
    path: '/api/v1/domains/:domainId/registration',
    role: 'editor',
    alias: '/api-domains/:domainId/registration',
    summary: 'Look the registration up now',
    tag: 'Domains',
    responses: { 200: 'DomainRegistration' },
  },
  {
    method: 'get',
    path: '/api/v1/domains/:domainId/verification',
    alias: '/api-domains/:domainId/verification',
    summary: 'Verification token, state and the TXT record to publish',
    tag: 'Domains',
    responses: { 200: 'DomainVerification' },
  },
  {
    method: 'post',
    path: '/api/v1/domains/:domainId/verification',
    role: 'editor',
    alias: '/api-domains/:domainId/verification',
    summary: 'Check the verification TXT record now',
    tag: 'Domains',
    responses: { 200: 'DomainVerification' },
  },
  {
    method: 'put',
    path: '/api/v1/domains/:domainId/exposure',
    role: 'editor',
    alias: '/api-domains/:domainId/exposure',
    summary: 'Switch exposure scanning (403 unless the domain is verified)',
    tag: 'Domains',
    body: 'exposure-toggle',
    responses: { 200: 'DomainExposure' },
    errors: [403],
  },
  {
    method: 'get',
    path: '/api/v1/renewals',
    alias: '/api-renewals',
    summary: 'Domain registrations or certificates by expiry',
    tag: 'Renewals',
    query: 'renewals',
    responses: { 200: 'RenewalList' },
  },

  // Exposure scanning
  {
    method: 'post',
    path: '/api/v1/domains/:domainId/exposure/scans',
    role: 'editor',
    summary: 'Start an exposure scan now (runs in the background)',
    tag: 'Exposure',
    responses: { 202: 'ExposureScan' },
    errors: [403],
  },
  {
    method: 'get',
    path: '/api/v1/domains/:domainId/exposure/scans',
    summary: "List a domain's exposure scans",
    tag: 'Exposure',
    query: 'exposure-scans',
    responses: { 200: 'ExposureScanList' },
  },
  {
    method: 'get',
    path: '/api/v1/exposure/scans/:scanId',
    summary: 'Get one exposure scan',
    tag: 'Exposure',
    responses: { 200: 'ExposureScan' },
  },
  {
    method: 'get',
    path: '/api/v1/domains/:domainId/exposure/findings',
    summary: "List a domain's exposure findings",
    tag: 'Exposure',
    query: 'exposure-findings',
    responses: { 200: 'ExposureFindingList' },
  },
  {
    method: 'get',
    path: '/api/v1/exposure/findings',
    summary: "List the team's exposure findings (404 when domain_id names no domain of the team)",
    tag: 'Exposure',
    query: 'exposure-findings',
    responses: { 200: 'ExposureFindingList' },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/exposure/findings/:findingId',
    summary: 'Get one exposure finding',
    tag: 'Exposure',
    responses: { 200: 'ExposureFinding' },
  },
  {
    method: 'get',
    path: '/api/v1/domains/:domainId/exposure/subdomains',
    summary: "Names the user added to the domain's inventory",
    tag: 'Exposure',
    responses: { 200: 'ExposureSubdomainList' },
  },
  {
    method: 'post',
    path: '/api/v1/domains/:domainId/exposure/subdomains',
    role: 'editor',
    summary: "Add a name to the domain's inventory",
    tag: 'Exposure',
    body: 'exposure-subdomain',
    responses: { 201: 'ExposureSubdomain' },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/api/v1/domains/:domainId/exposure/subdomains/:subdomainId',
    role: 'editor',
    summary: 'Remove an added name',
    tag: 'Exposure',
    responses: { 200: 'ExposureSubdomainDeleted' },
  },

  // Notifications
  {
    method: 'get',
    path: '/api/v1/notifications/settings',
    summary: "The caller's channel settings rows",
    tag: 'Notifications',
    responses: { 200: 'NotificationSettings' },
  },
  {
    method: 'put',
    path: '/api/v1/notifications/settings/:type',
    summary: 'Upsert the (type, delivery_class) settings row',
    tag: 'Notifications',
    params: { type: CHANNEL },
    body: 'notification-setting',
    responses: { 200: 'NotificationSetting' },
  },
  {
    method: 'post',
    path: '/api/v1/notifications/test',
    summary: 'Queue a test notification',
    tag: 'Notifications',
    body: 'notification-test',
    responses: { 201: 'NotificationTest' },
  },
  {
    method: 'get',
    path: '/api/v1/notifications/log',
    summary: 'Delivery log, newest first (X-Total-Count header)',
    tag: 'Notifications',
    query: 'notification-log',
    responses: { 200: { schema: 'NotificationLog', headers: { 'X-Total-Count': 'Entries matching the filters' } } },
  },
  {
    method: 'get',
    path: '/api/v1/notifications/log/:id',
    summary: 'One delivery log entry with its attempts',
    tag: 'Notifications',
    responses: { 200: 'NotificationLogEntryDetail' },
  },

  // Status pages (owner side)
  {
    method: 'get',
    path: '/api/v1/status-pages',
    summary: 'List status pages',
    tag: 'Status pages',
    query: 'status-page-list',
    responses: { 200: 'StatusPageList' },
  },
  {
    method: 'post',
    path: '/api/v1/status-pages',
    role: 'editor',
    summary: 'Create a public status page of a portfolio (409 when the slug is taken)',
    description:
      'Only the listed endpoints are shown, each an endpoint of a domain in the portfolio, under its display name (default: its name). A listed endpoint of another team answers 404.',
    tag: 'Status pages',
    body: 'status-page-create',
    responses: { 201: 'StatusPage' },
    errors: [404, 409],
  },
  {
    method: 'get',
    path: '/api/v1/status-pages/:statusPageId',
    summary: 'Get a status page',
    tag: 'Status pages',
    responses: { 200: 'StatusPage' },
  },
  {
    method: 'put',
    path: '/api/v1/status-pages/:statusPageId',
    role: 'editor',
    summary: 'Update a status page (fields given only; `endpoints` replaces the list)',
    tag: 'Status pages',
    body: 'status-page-update',
    responses: { 200: 'StatusPage' },
    errors: [404, 409],
  },
  {
    method: 'delete',
    path: '/api/v1/status-pages/:statusPageId',
    role: 'editor',
    summary: 'Delete a status page',
    tag: 'Status pages',
    responses: { 200: 'StatusPageDeleted' },
  },

  // Status pages (public side, no sign-in)
  {
    method: 'get',
    path: '/status/:slug',
    summary: 'A public status page (HTML, no script); unknown and disabled slugs answer the same 404 page',
    description: `Cached for ${STATUS_PAGE_CACHE_SECONDS} s (Cache-Control, ETag, Last-Modified); served with a strict Content-Security-Policy.`,
    tag: 'Status pages',
    auth: false,
    params: { slug: SLUG_PARAM },
    responses: {
      200: { contentType: 'text/html' },
      304: { description: 'Not modified (If-None-Match or If-Modified-Since)' },
      404: { contentType: 'text/html', description: 'No enabled status page at this slug' },
    },
  },
  {
    method: 'get',
    path: '/status/:slug.json',
    summary: "A public status page's data as JSON (no ids, no internal names)",
    description: `Cached for ${STATUS_PAGE_CACHE_SECONDS} s (Cache-Control, ETag, Last-Modified).`,
    tag: 'Status pages',
    auth: false,
    params: { slug: SLUG_PARAM },
    responses: {
      200: 'PublicStatusPage',
      304: { description: 'Not modified (If-None-Match or If-Modified-Since)' },
    },
  },
  {
    method: 'get',
    path: '/badge/:slug/:endpointId/:kind.svg',
    summary: 'An SVG badge of an endpoint shown on a public status page',
    description: `Only for an endpoint on an enabled public page; anything else answers the same 404 badge. Cached for ${STATUS_PAGE_CACHE_SECONDS} s (Cache-Control, ETag).`,
    tag: 'Status pages',
    auth: false,
    params: { slug: SLUG_PARAM, kind: { type: 'string', enum: BADGE_KINDS } },
    responses: {
      200: { contentType: 'image/svg+xml' },
      304: { description: 'Not modified (If-None-Match)' },
      404: { contentType: 'image/svg+xml', description: 'No such page, or the endpoint is not on it' },
    },
  },
  {
    method: 'get',
    path: '/status/assets/status-page.css',
    summary: 'The stylesheet of the public status pages',
    tag: 'Status pages',
    auth: false,
    responses: {
      200: { contentType: 'text/css', description: 'The file, with an ETag' },
      304: { description: 'Not modified (If-None-Match)' },
    },
  },

  // Ping URLs of push endpoints (Healthchecks.io's form; docs/push.md)
  ...(['get', 'post'] as const).flatMap((method): OperationDoc[] =>
    [
      { path: '/ping/:key', what: 'the job ran and succeeded' },
      {
        path: '/ping/:key/:action',
        what: '`start`: a run starts; `fail`: it failed; `log`: a message only; an exit status (0: success, 1-255: failure)',
      },
    ].map(({ path, what }) => ({
      method,
      path,
      summary: `A heartbeat ping of a push endpoint: ${what}`,
      description:
        "No token: the key (a random UUID, or the key a configuration file set) is the secret. GET, HEAD and POST answer alike; a POST body (any content type) is the run's log, its first 100,000 bytes kept. Each key takes 60 pings a minute from one client address, and each address may try 30 unknown keys a minute.",
      tag: 'Push',
      auth: false,
      plain: true,
      ...(method === 'post' ? { textBody: "The run's log (its first 100,000 bytes are kept, the rest counted)" } : {}),
      params: {
        key: PING_KEY_PARAM,
        ...(path.endsWith(':action')
          ? {
              action: {
                type: 'string',
                pattern: '^(start|fail|log|[0-9]{1,3})$',
                description: 'start, fail, log, or an exit status from 0 to 255',
              },
            }
          : {}),
      },
      responses: {
        200: { contentType: 'text/plain', description: '`OK`: the ping is recorded' },
        404: {
          contentType: 'text/plain',
          description: '`not found`: no push endpoint has this key, or the action is unknown',
        },
        429: {
          contentType: 'text/plain',
          description: '`rate limited`: too many pings of this key, or unknown keys, from this address this minute',
          headers: { 'Retry-After': 'Seconds until the window ends' },
        },
      },
    })),
  ),

  // Uptime Kuma's push URL, for the same keys (docs/push.md#uptime-kumas-push-url)
  ...(['get', 'post'] as const).map((method): OperationDoc => ({
    method,
    path: '/api/push/:key',
    summary: "Uptime Kuma's push URL of a push endpoint: the job reports a run (extension)",
    description:
      "No token: the key is the secret, as for the ping URLs (an Uptime Kuma push token that `dommon import uptime-kuma` kept, or any ping key). `status=up` (the default): the run succeeded; any other status: it failed, down at once, with `msg` as the reason; `ping`: the time the job took, in ms. Answered as Uptime Kuma answers. GET, HEAD and POST answer alike (a body is not read). The limits are the ping URLs', shared with them: 60 reports of a key a minute from one client address, 30 unknown keys a minute.",
    tag: 'Push',
    auth: false,
    plain: true,
    query: 'kuma-push',
    params: { key: PING_KEY_PARAM },
    responses: {
      200: { schema: 'KumaPushAnswer', description: '`{"ok":true}`: the report is recorded' },
      400: { schema: 'KumaPushAnswer', description: '`ok: false`: `ping` is no number, negative, or over a day' },
      404: {
        schema: 'KumaPushAnswer',
        description: '`{"ok":false,"msg":"Monitor not found or not active."}`: no push endpoint has this key',
      },
      429: {
        schema: 'KumaPushAnswer',
        description: '`rate limited`: too many reports of this key, or unknown keys, from this address this minute',
        headers: { 'Retry-After': 'Seconds until the window ends' },
      },
    },
  })),

  // Gatus's external-endpoint URL, for the same keys (docs/push.md#gatuss-external-endpoint-url)
  {
    method: 'post',
    path: '/api/v1/endpoints/:key/external',
    summary: "Gatus's external-endpoint URL of a push endpoint: the job reports a run (extension)",
    description:
      "No API token: `Authorization: Bearer <token>` carries the push endpoint's ping key (a Gatus external endpoint's token that `dommon import gatus` kept, or any ping key), which alone picks the endpoint; `key` is Gatus's name for it (`<group>_<name>`) and is not checked. `success=true`: the run succeeded; `success=false`: it failed, down at once, with `error` (or a JSON body's `error`) as the reason; `duration`: the time the job took. Answered as Gatus answers: plain text, 200 with an empty body. The limits are the ping URLs', shared with them: 60 reports of a key a minute from one client address, 30 unknown tokens a minute.",
    tag: 'Push',
    auth: false,
    plain: true,
    query: 'gatus-external',
    textBody: 'Optional: `{"error": "..."}`, the reason of a failure reported without `error` in the query',
    params: {
      key: { type: 'string', description: "Gatus's key of the external endpoint, `<group>_<name>` (not checked)" },
    },
    responses: {
      200: { contentType: 'text/plain', description: 'Empty: the report is recorded' },
      400: {
        contentType: 'text/plain',
        description: '`missing or invalid success query parameter`, or `invalid duration: ...`',
      },
      401: {
        contentType: 'text/plain',
        description:
          '`invalid Authorization header` (no Bearer token), or `invalid token`: no push endpoint has this key',
      },
      429: {
        contentType: 'text/plain',
        description: '`rate limited`: too many reports of this key, or unknown tokens, from this address this minute',
        headers: { 'Retry-After': 'Seconds until the window ends' },
      },
    },
  },

  // User API only
  {
    method: 'post',
    path: '/api-auth',
    summary: 'Validate an API key for an endpoint and method',
    tag: 'User API',
    auth: false,
    body: 'user-auth',
    // 429: the key is a credential like any other, so failures count per address (docs/security.md).
    errors: [429],
    responses: { 200: 'UserAuth', 401: 'UserAuthFailure' },
  },
];
