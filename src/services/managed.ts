// Objects a configuration file manages (`dommon serve --config`, docs/configuration-file.md#gitops)
// are changed through the file: every other write of one (the API, the dashboard, the command line's
// local commands, all through these services) is refused with 409 MANAGED_BY_CONFIG naming the file,
// unless the file says `editable: true`. The configuration service's own writes skip the check.
import { Conflict } from '../domain/errors.js';
import type { Repos } from '../store/index.js';

type ManagedKind = 'portfolio' | 'channel' | 'domain' | 'endpoint' | 'liveness' | 'status_page' | 'maintenance_window';

const LABEL: Record<ManagedKind, string> = {
  portfolio: 'portfolio',
  channel: 'notification channel',
  domain: 'domain',
  endpoint: 'endpoint',
  liveness: 'liveness configuration',
  status_page: 'status page',
  maintenance_window: 'maintenance window',
};

/** The file a mark's source names (`config:<file>`). */
const managedFile = (source: string): string => source.replace(/^config:/, '');

class ManagedByConfig extends Conflict {
  constructor(kind: ManagedKind, source: string) {
    super(
      `this ${LABEL[kind]} is managed by the configuration file ${managedFile(source)}: change it there (or set editable: true in the file)`,
      'MANAGED_BY_CONFIG',
    );
  }
}

/**
 * The check of one object before it is changed, read through the repositories of the write's own
 * transaction; `bypass` (the configuration service's writes) skips it.
 */
export function managedGuard(bypass = false) {
  return async (repos: Pick<Repos, 'configManaged'>, kind: ManagedKind, id: string): Promise<void> => {
    if (bypass) return;
    const mark = await repos.configManaged.get(kind, id);
    if (mark && !mark.editable) throw new ManagedByConfig(kind, mark.source);
  };
}

/**
 * What a read shows of the marks: `managed_by` is `"config"` for an object a configuration file
 * manages and null otherwise; `editable` is false only when the file manages it and does not say
 * `editable: true` (the API then answers 409 MANAGED_BY_CONFIG to a change of it).
 */
interface ManagedFields {
  managed_by: 'config' | null;
  editable: boolean;
}

const UNMANAGED: ManagedFields = { managed_by: null, editable: true };

/** The reads' side of the marks: one query per list (ids in chunks), not one per object. */
export function createManagedReads(store: Pick<Repos, 'configManaged'>) {
  return {
    /** A lookup of `ManagedFields` by id for `ids` of one kind. */
    async of(kind: ManagedKind, ids: readonly string[]): Promise<(id: string) => ManagedFields> {
      const marks = ids.length ? await store.configManaged.among(kind, ids) : new Map<string, never>();
      return (id) => {
        const m = marks.get(id);
        return m ? { managed_by: 'config', editable: m.editable } : UNMANAGED;
      };
    },
  };
}
