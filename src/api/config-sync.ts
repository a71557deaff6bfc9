// `dommon serve --config FILE` (docs/configuration-file.md#gitops): the file is applied at start, on
// SIGHUP and whenever it changes, with `--prune` restricted to what the file manages, and every object
// it names is marked as managed by it (the API then refuses to change them, services/managed.ts).
// An invalid file is refused with each of its errors in the log and the running setup stays.
//
// Changes are seen by watching the file's directory, not the file: editors save by writing a new file
// and renaming it over the old one (the old inode, and a watch on it, are gone), and Kubernetes swaps a
// ConfigMap's symlink. Any event in the directory schedules a read after a short quiet time; the file
// is applied only when its text differs from the text last applied (a touch or an unrelated file
// changes nothing). Applies run one at a time; a trigger during one runs one more after it.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Principal } from '../domain/types.js';
import type { ConfigPlan } from '../services/config.js';
import type { ApiDeps } from './context.js';
import { applyConfigText } from './config-apply.js';

interface ConfigSyncOptions {
  file: string;
  /** Who the file applies as (the team's first user). */
  principal: Principal;
  /** The variables `${NAME}` references read. */
  env: Readonly<Record<string, string | undefined>>;
  /** Quiet time after a change before the file is read (ms). */
  debounceMs?: number;
}

type SyncOutcome = { ok: true; plan: ConfigPlan; unchanged: boolean } | { ok: false; errors: string[] };

/** The one-line summary of a plan the log shows (`2 to create, 1 to update, 0 to delete`). */
function planSummary(plan: ConfigPlan): string {
  if (!plan.steps.length) return 'no changes';
  const n = { create: 0, update: 0, delete: 0 };
  for (const s of plan.steps) n[s.action]++;
  const kinds = Object.entries(plan.summary)
    .filter(([, c]) => c.create + c.update + c.delete)
    .map(([k, c]) => `${k} +${c.create} ~${c.update} -${c.delete}`);
  return `${n.create} to create, ${n.update} to update, ${n.delete} to delete (${kinds.join(', ')})`;
}

export function createConfigSync(
  deps: Pick<ApiDeps, 'services' | 'validator'> & { log: Logger },
  opts: ConfigSyncOptions,
) {
  const { log } = deps;
  const file = opts.file;
  const source = `config:${file}`;
  const debounceMs = opts.debounceMs ?? 300;
  let lastText: string | null = null;
  let running: Promise<SyncOutcome> | null = null;
  let again = false;
  let watcher: fs.FSWatcher | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function once(reason: string, force: boolean): Promise<SyncOutcome> {
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch (err) {
      const message = `${file}: cannot read the configuration file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      log.error({ file, reason }, reason === 'start' ? message : `${message}; the running setup stays`);
      return { ok: false, errors: [message] };
    }
    if (!force && text === lastText) return { ok: true, plan: emptyPlan(), unchanged: true };
    const started = performance.now();
    const r = await applyConfigText(deps, opts.principal, text, file, opts.env, {
      dryRun: false,
      prune: true,
      source,
    });
    if ('errors' in r) {
      for (const e of r.errors) log.error({ file, reason }, e);
      log.error(
        { file, reason, errors: r.errors.length },
        `configuration file refused: ${r.errors.length} error${r.errors.length === 1 ? '' : 's'}${reason === 'start' ? '' : '; the running setup stays'}`,
      );
      return { ok: false, errors: r.errors };
    }
    lastText = text;
    log.info(
      { file, reason, ms: Math.round(performance.now() - started), summary: r.plan.summary },
      `configuration file applied: ${planSummary(r.plan)}`,
    );
    return { ok: true, plan: r.plan, unchanged: false };
  }

  /** Applies the file now (after the apply running, if one is); `force` applies even an unchanged text. */
  function apply(reason: string, force = false): Promise<SyncOutcome> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        let out = await once(reason, force);
        while (again && !stopped) {
          again = false;
          out = await once(reason, false);
        }
        return out;
      } finally {
        running = null;
      }
    })();
    return running;
  }

  return {
    apply,
    /** Watches the file's directory; each burst of changes applies the file once. */
    watch(): void {
      const dir = path.dirname(file);
      watcher = fs.watch(dir, { persistent: false }, () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          if (!stopped)
            void apply('change').catch((err) => log.error({ err, file }, 'configuration file apply failed'));
        }, debounceMs);
      });
      watcher.on('error', (err) => log.warn({ err, file }, 'watching the configuration file failed'));
    },
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      watcher?.close();
      await running?.catch(() => undefined);
    },
  };
}

function emptyPlan(): ConfigPlan {
  return {
    applied: false,
    dry_run: false,
    prune: true,
    summary: {} as ConfigPlan['summary'],
    steps: [],
  };
}

export type ConfigSync = ReturnType<typeof createConfigSync>;
