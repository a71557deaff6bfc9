// A configuration file's text -> its plan (and application): the reader's errors, else the apply
// service's, each placed in the file as `file:line:col: rule`. The API's apply route and
// `serve --config` both come through here.
import type { ApiDeps } from './context.js';
import type { Principal } from '../domain/types.js';
import { ConfigRejected, type ConfigPlan } from '../services/config.js';
import { formatError, parseConfigFile } from './config-file.js';

export async function applyConfigText(
  deps: Pick<ApiDeps, 'services' | 'validator'>,
  principal: Principal,
  text: string,
  filename: string,
  env: Readonly<Record<string, string | undefined>>,
  opts: { dryRun: boolean; prune: boolean; source?: string },
): Promise<{ plan: ConfigPlan } | { errors: string[] }> {
  const parsed = parseConfigFile(text, filename, env, deps.validator.schemas);
  if (!parsed.doc) return { errors: parsed.errors.map((e) => formatError(filename, e)) };
  try {
    return { plan: await deps.services.config.apply(principal, parsed.doc, opts) };
  } catch (err) {
    if (!(err instanceof ConfigRejected)) throw err;
    const located = err.problems.map((p) => ({ ...parsed.locate(p.path), message: p.message }));
    located.sort((a, b) => a.line - b.line || a.col - b.col);
    return { errors: located.map((e) => formatError(filename, e)) };
  }
}
