// The nameserver watch: every DOMMON_NS_WATCH_INTERVAL seconds each domain's delegation (NS names and
// DS records) is read from its parent zone's servers and compared with the last one seen. A change is
// a high-severity `delegation` event in the outbox, in the transaction that stores the new sets; the
// first look is the baseline; a failed look-up changes nothing but the recorded error. While a
// maintenance window covers the domain (names it or its portfolio) a change is recorded as always but
// not notified, as a liveness transition in a window is not.
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import {
  delegationChange,
  delegationMessage,
  type DelegationState,
  type DelegationView,
} from '../domain/delegation.js';
import { registrableDomain } from '../domain/domain-name.js';
import type { Domain } from '../domain/types.js';
import type { Delegation } from '../probes/delegation.js';
import type { ProbeDeps } from '../probes/types.js';
import type { Store } from '../store/index.js';
import type { MaintenanceWindowService } from './maintenance-windows.js';
import { singleFlight } from './refresh.js';

/** Each question's bound (a parent server that does not answer leaves time for the next). */
const QUERY_TIMEOUT_MS = 3000;
/** The whole look-up's bound: well inside the schedule's lease. */
const LOOKUP_TIMEOUT_MS = 30_000;

interface NameserverWatchDeps {
  store: Store;
  clock: Clock;
  probes: ProbeDeps;
  /** DOMMON_NS_WATCH_INTERVAL, seconds. */
  interval: number;
  log: Logger;
  signal: AbortSignal;
  /** Which maintenance window covers a domain when (absent: none ever does). */
  maintenance?: Pick<MaintenanceWindowService, 'coveringDomain'>;
}

export function createNameserverWatch(deps: NameserverWatchDeps) {
  const { store, clock, log } = deps;
  // The probe module (and the DNS codec under it) loads with the first look-up.
  const probe = () => import('../probes/delegation.js');

  async function lookUp(zone: string): Promise<Delegation> {
    const { lookUpDelegation } = await probe();
    const signal = AbortSignal.any([deps.signal, AbortSignal.timeout(LOOKUP_TIMEOUT_MS)]);
    return lookUpDelegation(zone, deps.probes, { timeoutMs: QUERY_TIMEOUT_MS, signal });
  }

  async function run(d: Domain): Promise<DelegationState> {
    const zone = registrableDomain(d.domain) ?? d.domain;
    let seen: Delegation | null = null;
    let failure: string | null = null;
    try {
      seen = await lookUp(zone);
    } catch (err) {
      if (deps.signal.aborted) throw err;
      failure = (err as Error).message || String(err);
    }
    const now = clock.now();
    const at = now.toISOString();
    const next = new Date(now.getTime() + deps.interval * 1000).toISOString();
    // Read before the transaction, as the liveness path reads it: the windows are held in memory.
    const quiet = seen && deps.maintenance ? await deps.maintenance.coveringDomain(d, now.getTime()) : null;
    return store.transaction(async (tx) => {
      const cur = await tx.domains.get(d.team_id, d.id);
      const prev = await tx.delegations.get(d.id);
      // A renamed domain's earlier sets are another name's: they are no baseline.
      const base = prev?.zone === zone ? prev : undefined;
      let state: DelegationState;
      if (seen) {
        const change = delegationChange(base, seen);
        state = {
          domain_id: d.id,
          zone,
          parent_zone: seen.parent,
          nameservers: seen.nameservers,
          ds: seen.ds,
          checked_at: at,
          changed_at: change ? at : (base?.changed_at ?? null),
          error: null,
          error_at: null,
        };
        if (change && cur) {
          await tx.events.add(
            {
              team_id: d.team_id,
              event_type: 'delegation',
              severity: 'high',
              category: 'delegation_change',
              domain_id: d.id,
              message:
                delegationMessage(cur.domain, seen.parent, change) +
                (quiet ? `, during maintenance window "${quiet.window.name}" (not notified)` : ''),
              details: {
                zone,
                parent_zone: seen.parent,
                server: seen.server,
                ...change,
                ...(quiet ? { maintenance_window_id: quiet.window.id } : {}),
              },
              // Recorded, not notified (the outbox skips events of a window).
              maintenance_window_id: quiet?.window.id ?? null,
            },
            at,
          );
        }
      } else {
        if (base?.error !== failure) log.warn({ domain: d.domain, err: failure }, 'delegation look-up failed');
        state = {
          domain_id: d.id,
          zone,
          parent_zone: base?.parent_zone ?? null,
          nameservers: base?.nameservers ?? null,
          ds: base?.ds ?? null,
          checked_at: base?.checked_at ?? null,
          changed_at: base?.changed_at ?? null,
          error: failure,
          error_at: at,
        };
      }
      if (!cur) return state;
      await tx.delegations.save(state);
      await tx.schedule.done('nameservers', d.id, {
        at,
        next,
        outcome: seen ? `${seen.nameservers.length} NS, ${seen.ds.length} DS` : `failed: ${failure}`,
      });
      return state;
    });
  }

  return {
    /** One look at a domain's delegation now, stored (and alerted on) as the watch does. */
    refresh: singleFlight(run),
    /** The stored delegation of a domain, as its detail answer shows it; null before the first look. */
    async view(domainId: string): Promise<DelegationView | null> {
      const s = await store.delegations.get(domainId);
      if (!s) return null;
      const { domain_id: _id, ...view } = s;
      return view;
    },
  };
}
