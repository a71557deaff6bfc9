// Ownership verification: the TXT record `_dommon-verify.<domain>` must hold the domain's token.
// Also the exposure toggle, which needs a verified domain.
import { Forbidden } from '../domain/errors.js';
import { isoNow, type Clock } from '../domain/clock.js';
import type { Domain } from '../domain/types.js';
import type { Store } from '../store/index.js';
import type { HealthHook } from './deps.js';
import type { AuditService } from './audit.js';
import { teamDomain } from './refresh.js';
import { eachLimit } from '../domain/concurrency.js';
import { setTimeout as sleep } from 'node:timers/promises';

const VERIFY_LABEL = '_dommon-verify';

/** TXT strings at a name ([] when there is none); lookup failures are an empty answer, not an error. */
type TxtLookup = (name: string) => Promise<string[]>;

function verificationView(d: Domain) {
  const name = `${VERIFY_LABEL}.${d.domain}`;
  return {
    id: d.id,
    domain: d.domain,
    verification_token: d.verification_token,
    is_verified: d.is_verified,
    verified_at: d.verified_at,
    record: { type: 'TXT', name, value: d.verification_token },
    instructions: `Publish a TXT record at ${name} with the value ${d.verification_token}; dommon checks it every DOMMON_VERIFY_INTERVAL seconds.`,
  };
}

/** Look-ups a worker cycle keeps in flight at once. */
const CYCLE_CONCURRENCY = 8;
/** Unverified domains read at a time. */
const CYCLE_CHUNK = 200;
/**
 * Look-ups a cycle starts per second at most: 10,000 unverified domains take 100 s of the default
 * 300 s interval instead of a burst at whatever speed the resolver answers (kinder to public resolvers
 * and to the API served beside it). With fewer than a few hundred domains the cap never shows.
 */
const CYCLE_RATE = 100;

/** signal: shutdown; a running cycle stops starting look-ups once it is aborted. */
export function createVerificationService({
  store,
  clock,
  txt,
  recomputeHealth,
  signal,
  audit,
}: {
  store: Store;
  clock: Clock;
  txt: TxtLookup;
  recomputeHealth?: HealthHook;
  signal?: AbortSignal;
  audit?: AuditService;
}) {
  const domain = (teamId: string, id: string) => teamDomain(store, teamId, id);

  /** Looks the record up now; flips is_verified when the token is there. Returns whether it was found. */
  async function check(d: Domain): Promise<boolean> {
    const values = await txt(`${VERIFY_LABEL}.${d.domain}`).catch(() => [] as string[]);
    const found = values.some((v) => v.trim() === d.verification_token);
    if (found && !d.is_verified) {
      const now = isoNow(clock);
      await store.transaction(async (tx) => {
        await tx.domains.update(d.team_id, d.id, { is_verified: true, verified_at: now, updated_at: now });
        await recomputeHealth?.(tx, d.id);
      });
    }
    return found;
  }

  return {
    async get(teamId: string, id: string) {
      return verificationView(await domain(teamId, id));
    },
    async checkNow(teamId: string, id: string) {
      const d = await domain(teamId, id);
      const found = await check(d);
      // The request is the person's; the flip (if any) is the look-up's result, as the worker's would be.
      await audit?.note(teamId, {
        action: 'verify',
        kind: 'domain',
        id,
        name: d.domain,
        after: { record_found: found },
      });
      return { ...verificationView(await domain(teamId, id)), record_found: found, checked_at: isoNow(clock) };
    },
    /** One worker cycle: every unverified domain of every team, a few look-ups at a time (CYCLE_RATE a second at most), until shutdown. */
    /**
     * `leaseMs`: each chunk's domains are leased for this long before they are looked up, so several
     * nodes on one database look each domain up once per interval (a domain leased elsewhere is skipped).
     */
    async cycle(leaseMs = 270_000): Promise<number> {
      let verified = 0;
      let slot = performance.now();
      const pace = async () => {
        const wait = slot - performance.now();
        slot = Math.max(slot, performance.now()) + 1000 / CYCLE_RATE;
        if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
      };
      for await (const all of store.domains.chunks(CYCLE_CHUNK, 'unverified')) {
        const now = clock.now();
        const mine = new Set(
          await store.schedule.lease(
            'verify',
            all.map((d) => d.id),
            now.toISOString(),
            new Date(now.getTime() + leaseMs).toISOString(),
          ),
        );
        const chunk = all.filter((d) => mine.has(d.id));
        await eachLimit(
          chunk,
          CYCLE_CONCURRENCY,
          async (d) => {
            await pace();
            if (!signal?.aborted && (await check(d))) verified++;
          },
          () => !!signal?.aborted,
        );
        if (signal?.aborted) break;
      }
      return verified;
    },
    async setExposure(teamId: string, id: string, enabled: boolean) {
      const d = await domain(teamId, id);
      if (enabled && !d.is_verified)
        throw new Forbidden(
          'exposure scanning needs a verified domain: publish the verification TXT record first',
          'DOMAIN_NOT_VERIFIED',
        );
      const after = await store.transaction(async (tx) => {
        await tx.domains.update(teamId, id, { exposure_monitoring_enabled: enabled, updated_at: isoNow(clock) });
        const now = (await tx.domains.get(teamId, id))!;
        await audit?.record(tx, teamId, {
          action: 'update',
          kind: 'domain',
          id,
          name: d.domain,
          before: d,
          after: now,
        });
        return now;
      });
      return {
        id: after.id,
        domain: after.domain,
        is_verified: after.is_verified,
        exposure_monitoring_enabled: after.exposure_monitoring_enabled,
      };
    },
  };
}
