// Checks an imported dommon file the way `dommon apply` will take it: `applyErrors` reads its text
// with the configuration file's own reader and schema; `fileProblems` checks every object against the API's
// own request schema (an endpoint against endpoint-create, its liveness against liveness-create, a
// channel against its channel's config schema with secrets as `${NAME}` references, windows and
// status pages against theirs; a push endpoint's ping_key against the key's form), and every reference between objects resolves to an object of the file.
import { formatError, parseConfigFile, referencedNames } from '../../src/api/config-file.js';
import { createValidator, loadSchemas } from '../../src/api/validation.js';
import { PING_KEY } from '../../src/domain/push.js';

type Json = Record<string, any>;
const ID = '00000000-0000-4000-8000-000000000000';
const SECRET_REF = { type: 'string', pattern: '^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$' };

const schemas = loadSchemas();
for (const [id, s] of Object.entries(schemas)) {
  if (!id.startsWith('channels/')) continue;
  const props = (s as Json).properties as Record<string, Json>;
  for (const [k, v] of Object.entries(props)) if (v.writeOnly) props[k] = SECRET_REF;
}
const validator = createValidator(schemas);

/** Every problem of the file, as `where: what` (empty: the file is good). */
export function fileProblems(file: Json): string[] {
  const problems: string[] = [];
  const check = (where: string, id: string, value: unknown) => {
    try {
      validator.body(id, value);
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`);
    }
  };
  if (file.version !== 1) problems.push('version: must be 1');
  const known = new Set(['version', 'portfolios', 'channels', 'domains', 'status_pages', 'maintenance_windows']);
  for (const k of Object.keys(file)) if (!known.has(k)) problems.push(`${k}: unknown section`);
  const portfolios = new Set<string>();
  for (const p of file.portfolios ?? []) {
    check(`portfolio ${p.name}`, 'portfolio-create', p);
    if (portfolios.has(p.name)) problems.push(`portfolio ${p.name}: twice`);
    portfolios.add(p.name);
  }
  const seenChannels = new Set<string>();
  for (const c of file.channels ?? []) {
    const { type, delivery_class, is_enabled, frequency_days, notification_time, min_severity, ...config } = c;
    check(`channel ${type}`, 'notification-setting', {
      delivery_class,
      ...(is_enabled === undefined ? {} : { is_enabled }),
      ...(frequency_days === undefined ? {} : { frequency_days }),
      ...(notification_time === undefined ? {} : { notification_time }),
      ...(min_severity === undefined ? {} : { min_severity }),
    });
    check(`channel ${type}`, `channels/${type}`, config);
    const key = `${type}/${delivery_class ?? 'instant'}`;
    if (seenChannels.has(key)) problems.push(`channel ${key}: twice`);
    seenChannels.add(key);
  }
  const endpoints = new Set<string>();
  const domains = new Set<string>();
  const pingKeys = new Set<unknown>();
  for (const d of file.domains ?? []) {
    const { name, portfolio, notes, dkim_selectors, manual_expiry, endpoints: eps, ...rest } = d;
    for (const k of Object.keys(rest)) problems.push(`domain ${name}: ${k}: unknown field`);
    check(`domain ${name}`, 'domain-create', {
      domain: name,
      ...(portfolio ? { portfolio_id: ID } : {}),
      ...(notes === undefined ? {} : { notes }),
      ...(dkim_selectors === undefined ? {} : { dkim_selectors }),
      ...(manual_expiry === undefined ? {} : { expiry_date: manual_expiry }),
    });
    if (portfolio && !portfolios.has(portfolio))
      problems.push(`domain ${name}: portfolio ${portfolio} is not in the file`);
    if (domains.has(name)) problems.push(`domain ${name}: twice`);
    domains.add(name);
    for (const e of eps ?? []) {
      // ping_key is the file's own field (not the API's): a push endpoint's, of the key's form, unique.
      const { name: ep, type, liveness, ping_key: pingKey, ...fields } = e;
      check(`endpoint ${name}/${ep}`, 'endpoint-create', { domain_id: ID, name: ep, endpoint_type: type, ...fields });
      if (pingKey !== undefined) {
        if (type !== 'push' || typeof pingKey !== 'string' || !PING_KEY.test(pingKey))
          problems.push(`endpoint ${name}/${ep}: ping_key ${JSON.stringify(pingKey)} is not a push endpoint's key`);
        if (pingKeys.has(pingKey)) problems.push(`endpoint ${name}/${ep}: ping_key twice`);
        pingKeys.add(pingKey);
      }
      if (/\//.test(ep)) problems.push(`endpoint ${name}/${ep}: a name has no "/"`);
      if (liveness) check(`endpoint ${name}/${ep} liveness`, 'liveness-create', { endpoint_id: ID, ...liveness });
      const ref = `${name}/${ep}`;
      if (endpoints.has(ref.toLowerCase())) problems.push(`endpoint ${ref}: twice`);
      endpoints.add(ref.toLowerCase());
    }
  }
  for (const w of file.maintenance_windows ?? []) {
    const { endpoints: eps = [], domains: ds = [], portfolios: ps = [], ...rest } = w;
    check(`maintenance window ${w.name}`, 'maintenance-window-create', rest);
    for (const r of eps)
      if (!endpoints.has(String(r).toLowerCase()))
        problems.push(`maintenance window ${w.name}: endpoint ${r} is not in the file`);
    for (const r of ds)
      if (!domains.has(r)) problems.push(`maintenance window ${w.name}: domain ${r} is not in the file`);
    for (const r of ps)
      if (!portfolios.has(r)) problems.push(`maintenance window ${w.name}: portfolio ${r} is not in the file`);
  }
  for (const p of file.status_pages ?? []) {
    const { portfolio, endpoints: eps = [], ...rest } = p;
    check(`status page ${p.slug}`, 'status-page-create', {
      portfolio_id: ID,
      ...rest,
      endpoints: eps.map((e: Json) => ({
        endpoint_id: ID,
        ...(e.display_name ? { display_name: e.display_name } : {}),
      })),
    });
    if (!portfolios.has(portfolio)) problems.push(`status page ${p.slug}: portfolio ${portfolio} is not in the file`);
    for (const e of eps)
      if (!endpoints.has(String(e.endpoint).toLowerCase()))
        problems.push(`status page ${p.slug}: endpoint ${e.endpoint} is not in the file`);
  }
  return problems;
}

/**
 * The errors `dommon apply` reads a file's text with (the file's JSON Schema, names once each), every
 * `${NAME}` it references set to a value such as the user would export.
 */
export function applyErrors(text: string, file = 'dommon.yaml'): string[] {
  const env = Object.fromEntries(referencedNames(text).map((n) => [n, 'Example-Value-1']));
  return parseConfigFile(text, file, env, loadSchemas()).errors.map((e) => formatError(file, e));
}
