// Exposure scanning use cases: start a scan (background), run it (inventory, then each registered
// check within a time budget), reconcile findings (new, re-opened, resolved) and write `exposure`
// events in the same transaction; plus scan/finding queries and user-added names.
import { Conflict, Duplicate, Forbidden, Invalid, NotFound } from '../../domain/errors.js';
import { isoNow, type Clock } from '../../domain/clock.js';
import type { Domain, Page, PageOf } from '../../domain/types.js';
import {
  EXPOSURE_CATEGORIES,
  findingFingerprint,
  withinDomain,
  type DetectedFinding,
  type ExposureCategory,
  type ExposureFinding,
  type ExposureScan,
  type ExposureSubdomain,
  type FindingFilter,
  type KnownFinding,
  type ScanTrigger,
} from '../../domain/exposure.js';
import { hostOf } from '../../domain/endpoint.js';
import { normalizeDomainName } from '../../domain/domain-name.js';
import type { AuditService } from '../audit.js';
import type { Store } from '../../store/index.js';
import type { ExposureNet, PortState } from '../../probes/exposure-net.js';
import { buildInventory } from './inventory.js';
import { STALE_AFTER_MS } from '../nodes.js';
import { ADMIN_PORTS, EXPOSURE_CHECKS } from './checks/index.js';
import { DEFAULT_WORDLIST } from './wordlist.js';
import { createLimit, type CheckContext, type ExposureDns, type ExposureOptions } from './types.js';

const DEFAULT_EXPOSURE_OPTIONS: ExposureOptions = {
  adminPorts: ADMIN_PORTS,
  wordlist: DEFAULT_WORDLIST,
  connectTimeoutMs: 1500,
  httpTimeoutMs: 3000,
  tlsTimeoutMs: 3000,
  axfrTimeoutMs: 5000,
  scanBudgetMs: 5 * 60_000,
  concurrency: 16,
  dnsConcurrency: 8,
  maxHosts: 200,
};

interface ExposureDeps {
  store: Store;
  clock: Clock;
  /** The audit trail: scans started and inventory names added or removed by a person. */
  audit?: AuditService;
  dns: ExposureDns;
  net: ExposureNet;
  options?: Partial<ExposureOptions>;
  /** Background scan failures (logged by the caller). */
  onError?: (err: unknown, scanId: string) => void;
  /**
   * The node that runs this service, recorded on each scan it starts. `shared`: other nodes use the
   * same database (PostgreSQL), so recovery touches only this node's scans and those of dead nodes.
   */
  node?: { name: string; shared: boolean };
}

function eligibility(d: Domain): void {
  if (!d.is_verified)
    throw new Forbidden(
      'exposure scanning needs a verified domain: publish the verification TXT record first',
      'DOMAIN_NOT_VERIFIED',
    );
  if (!d.exposure_monitoring_enabled)
    throw new Forbidden(
      'exposure monitoring is off for this domain: enable it with PUT /api/v1/domains/:id/exposure',
      'EXPOSURE_NOT_ENABLED',
    );
}

export function createExposureService(deps: ExposureDeps) {
  const { store, clock, dns, net } = deps;
  const options: ExposureOptions = { ...DEFAULT_EXPOSURE_OPTIONS, ...deps.options };
  const inFlight = new Set<Promise<void>>();
  const starting = new Map<string, Promise<ExposureScan>>();
  // Shutdown ends running scans early; whatever they could not finish resolves nothing.
  const shutdown = new AbortController();

  async function domainOf(teamId: string, id: string): Promise<Domain> {
    const d = await store.domains.get(teamId, id);
    if (!d) throw new NotFound('Domain');
    return d;
  }

  async function createScan(d: Domain, trigger: ScanTrigger): Promise<ExposureScan> {
    return store.transaction(async (tx) => {
      const id = await tx.exposure.insertScan({
        team_id: d.team_id,
        domain_id: d.id,
        status: 'running',
        trigger,
        started_at: isoNow(clock),
        finished_at: null,
        findings_count: 0,
        error: null,
        hosts: [],
        wildcard: false,
        checks: {},
        node: deps.node?.name ?? null,
      });
      const scan = (await tx.exposure.getScan(d.team_id, id))!;
      if (trigger === 'manual')
        await deps.audit?.record(tx, d.team_id, {
          action: 'scan',
          kind: 'domain',
          id: d.id,
          name: d.domain,
          after: { scan_id: id, trigger },
        });
      return scan;
    });
  }

  /** Writes what a scan saw: inserts, re-opens and refreshes findings; resolves what was not seen. */
  async function reconcile(
    d: Domain,
    scanId: string,
    found: DetectedFinding[],
    completed: Set<ExposureCategory>,
    uncertain: Set<string>,
  ): Promise<void> {
    const now = isoNow(clock);
    await store.transaction(async (tx) => {
      const existing = new Map<string, KnownFinding>(
        (await tx.exposure.findingRows(d.id)).map((r) => [r.fingerprint, r]),
      );
      const seen = new Set<string>();
      for (const f of found) {
        const fp = findingFingerprint(f);
        if (seen.has(fp)) continue;
        seen.add(fp);
        const prev = existing.get(fp);
        const fields = {
          scan_id: scanId,
          severity: f.severity,
          title: f.title,
          target: f.host,
          details: f.details,
          remediation: f.details.remediation,
          last_seen: now,
        };
        let id: string;
        let change: 'new' | 'reopened' | null = null;
        if (!prev) {
          change = 'new';
          id = await tx.exposure.insertFinding({
            team_id: d.team_id,
            domain_id: d.id,
            fingerprint: fp,
            category: f.category,
            status: 'open',
            first_seen: now,
            resolved_at: null,
            ...fields,
          });
        } else {
          id = prev.id;
          if (prev.status !== 'open') change = 'reopened';
          await tx.exposure.updateFinding(id, { ...fields, status: 'open', resolved_at: null });
        }
        if (change) {
          await tx.events.add(
            {
              team_id: d.team_id,
              event_type: 'exposure',
              severity: f.severity,
              category: f.category,
              domain_id: d.id,
              message: `${change === 'reopened' ? 'Re-opened' : 'New'} ${f.severity} exposure finding on ${d.domain}: ${f.title}`,
              details: {
                ...f.details,
                finding_id: id,
                scan_id: scanId,
                domain: d.domain,
                host: f.host,
                title: f.title,
                change,
              },
            },
            now,
          );
        }
      }
      for (const prev of existing.values()) {
        // Only a check that ran to the end can say a finding is gone.
        if (prev.status !== 'open' || seen.has(prev.fingerprint) || !completed.has(prev.category as ExposureCategory))
          continue;
        if (prev.target && uncertain.has(prev.target)) continue;
        await tx.exposure.updateFinding(prev.id, { status: 'resolved', resolved_at: now });
        await tx.events.add(
          {
            team_id: d.team_id,
            event_type: 'exposure_resolved',
            severity: 'info',
            category: prev.category,
            domain_id: d.id,
            message: `Resolved exposure finding on ${d.domain}: ${prev.title}`,
            details: {
              finding_id: prev.id,
              scan_id: scanId,
              domain: d.domain,
              host: prev.target,
              title: prev.title,
              change: 'resolved',
            },
          },
          now,
        );
      }
      await tx.exposure.updateScan(scanId, { status: 'completed', finished_at: now, findings_count: seen.size });
    });
  }

  /** Runs one scan to the end (never throws: failures are recorded on the scan). */
  async function run(d: Domain, scanId: string): Promise<void> {
    const budget = AbortSignal.any([AbortSignal.timeout(options.scanBudgetMs), shutdown.signal]);
    try {
      const limit = createLimit(options.concurrency);
      const dnsLimit = createLimit(options.dnsConcurrency);
      const [endpoints, sans, users] = await Promise.all([
        store.endpoints.forDomain(d.team_id, d.id),
        store.exposure.certificateSans(d.id),
        store.exposure.subdomains(d.team_id, d.id),
      ]);
      const inventory = await buildInventory(dns, dnsLimit, {
        domain: d.domain,
        endpointHosts: endpoints.map((e) => hostOf(e)),
        certificateNames: sans,
        userNames: users.map((u) => u.name),
        wordlist: options.wordlist,
        maxHosts: options.maxHosts,
      });
      await store.exposure.updateScan(scanId, {
        hosts: inventory.hosts.map((h) => h.name),
        wildcard: inventory.wildcard.detected,
      });
      const tcpSeen = new Map<string, Promise<PortState>>();
      const ctx: CheckContext = {
        domain: d,
        inventory,
        dns,
        net,
        clock,
        options,
        signal: budget,
        limit,
        dnsLimit,
        tcp(address, port) {
          const k = `${address}|${port}`;
          let p = tcpSeen.get(k);
          if (!p) {
            p = limit(() => net.tcp(address, port, options.connectTimeoutMs));
            tcpSeen.set(k, p);
          }
          return p;
        },
      };
      const found: DetectedFinding[] = [];
      const outcomes: Record<string, string> = {};
      const completed = new Set<ExposureCategory>();
      for (const category of EXPOSURE_CATEGORIES) {
        if (budget.aborted) {
          outcomes[category] = 'skipped: scan time budget spent or service stopping';
          continue;
        }
        try {
          const r = await EXPOSURE_CHECKS[category].run(ctx);
          if (budget.aborted) {
            outcomes[category] = 'partial: scan time budget spent or service stopping';
            found.push(...r);
            continue;
          }
          found.push(...r);
          completed.add(category);
          outcomes[category] = 'ok';
        } catch (err) {
          outcomes[category] = `error: ${(err as Error).message}`;
        }
      }
      await store.exposure.updateScan(scanId, { checks: outcomes });
      await reconcile(d, scanId, found, completed, new Set(inventory.uncertain));
    } catch (err) {
      deps.onError?.(err, scanId);
      await store.exposure
        .updateScan(scanId, { status: 'failed', finished_at: isoNow(clock), error: (err as Error).message })
        .catch(() => undefined);
    }
  }

  function background(d: Domain, scanId: string): void {
    const p = run(d, scanId).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  return {
    options,
    /** POST .../exposure/scans: 403 unless verified and enabled; a scan already running is returned as is. */
    async start(teamId: string, domainId: string): Promise<ExposureScan> {
      const d = await domainOf(teamId, domainId);
      eligibility(d);
      // Two requests at once must not both start a scan: the second waits for the first's record.
      const pending = starting.get(d.id);
      if (pending) return pending;
      const p = (async () => {
        const running = await store.exposure.runningScan(d.id);
        if (running) return running;
        const scan = await createScan(d, 'manual');
        background(d, scan.id);
        return scan;
      })().finally(() => starting.delete(d.id));
      starting.set(d.id, p);
      return p;
    },
    /** Runs a scan to completion and returns it (worker, CLI). */
    async scanNow(teamId: string, domainId: string, trigger: ScanTrigger = 'manual'): Promise<ExposureScan> {
      const d = await domainOf(teamId, domainId);
      eligibility(d);
      if (await store.exposure.runningScan(d.id))
        throw new Conflict('a scan of this domain is already running', 'SCAN_RUNNING');
      const scan = await createScan(d, trigger);
      const p = run(d, scan.id);
      inFlight.add(p);
      await p.finally(() => inFlight.delete(p));
      return (await store.exposure.getScan(teamId, scan.id))!;
    },
    /** One worker cycle: every verified, enabled domain whose last scan is older than `intervalSeconds`. */
    async cycle(intervalSeconds: number): Promise<number> {
      const last = await store.exposure.lastStarted();
      const now = clock.now().getTime();
      let scanned = 0;
      for await (const chunk of store.domains.chunks(500, 'exposure'))
        for (const d of chunk) {
          const prev = last.get(d.id);
          if (prev && now - Date.parse(prev) < intervalSeconds * 1000) continue;
          if (await store.exposure.runningScan(d.id)) continue;
          // Several nodes on one database: the node that leases the domain's turn scans it, the others skip it.
          const t = clock.now().getTime();
          const leased = await store.schedule.lease(
            'exposure',
            [d.id],
            new Date(t).toISOString(),
            new Date(t + intervalSeconds * 900).toISOString(),
          );
          if (!leased.length) continue;
          const scan = await createScan(d, 'schedule');
          const p = run(d, scan.id);
          inFlight.add(p);
          await p.finally(() => inFlight.delete(p));
          scanned++;
        }
      return scanned;
    },
    /**
     * Scans a stopped process left running are marked failed: at start-up (`starting`) this node's own
     * and those of dead nodes; on a schedule, only dead nodes'. One process (SQLite): every running scan,
     * at start-up only.
     */
    async recover(starting = true): Promise<number> {
      const node = deps.node;
      if (!node?.shared) return starting ? store.exposure.failInterrupted(isoNow(clock)) : 0;
      const now = clock.now().getTime();
      return store.exposure.failInterrupted(isoNow(clock), {
        self: node.name,
        includeSelf: starting,
        staleBefore: new Date(now - STALE_AFTER_MS).toISOString(),
        // Longer than any scan may run (its time budget), with margin.
        orphanBefore: new Date(now - 3 * options.scanBudgetMs).toISOString(),
      });
    },
    /** Asks running scans to stop early (shutdown). */
    abort(): void {
      shutdown.abort();
    },
    /** Waits for background scans (shutdown, tests). */
    async drain(): Promise<void> {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },

    async listScans(teamId: string, domainId: string, page: Page): Promise<PageOf<ExposureScan>> {
      await domainOf(teamId, domainId);
      return store.exposure.listScans(teamId, domainId, page);
    },
    async getScan(teamId: string, scanId: string): Promise<ExposureScan> {
      const s = await store.exposure.getScan(teamId, scanId);
      if (!s) throw new NotFound('Exposure scan');
      return s;
    },
    async listFindings(teamId: string, f: FindingFilter, page: Page): Promise<PageOf<ExposureFinding>> {
      if (f.domain_id) await domainOf(teamId, f.domain_id);
      return store.exposure.listFindings(teamId, f, page);
    },
    async getFinding(teamId: string, id: string): Promise<ExposureFinding> {
      const f = await store.exposure.getFinding(teamId, id);
      if (!f) throw new NotFound('Exposure finding');
      return f;
    },

    async listSubdomains(teamId: string, domainId: string): Promise<ExposureSubdomain[]> {
      await domainOf(teamId, domainId);
      return store.exposure.subdomains(teamId, domainId);
    },
    /** Adds a name to the domain's inventory: a full name under the domain, or a label prefix. */
    async addSubdomain(teamId: string, domainId: string, raw: string): Promise<ExposureSubdomain> {
      const d = await domainOf(teamId, domainId);
      const trimmed = raw.trim().toLowerCase().replace(/\.$/, '');
      const full = withinDomain(trimmed, d.domain) ? trimmed : `${trimmed}.${d.domain}`;
      const check = normalizeDomainName(full);
      if (!check.ok || check.name !== full || full.includes('*'))
        throw new Invalid(`name: "${raw}" is not a host name under ${d.domain}`);
      try {
        return await store.transaction(async (tx) => {
          const sub = await tx.exposure.addSubdomain({
            team_id: teamId,
            domain_id: d.id,
            name: full,
            created_at: isoNow(clock),
          });
          await deps.audit?.record(tx, teamId, {
            action: 'create',
            kind: 'subdomain',
            id: sub.id,
            name: full,
            after: sub,
          });
          return sub;
        });
      } catch (err) {
        if (err instanceof Duplicate)
          throw new Conflict(`${full} is already in the inventory of ${d.domain}`, 'DUPLICATE_SUBDOMAIN');
        throw err;
      }
    },
    async removeSubdomain(teamId: string, domainId: string, id: string): Promise<void> {
      await domainOf(teamId, domainId);
      await store.transaction(async (tx) => {
        const before = (await tx.exposure.subdomains(teamId, domainId)).find((x) => x.id === id);
        if (!before || !(await tx.exposure.removeSubdomain(teamId, domainId, id))) throw new NotFound('Subdomain');
        await deps.audit?.record(tx, teamId, { action: 'delete', kind: 'subdomain', id, name: before.name, before });
      });
    },
  };
}
