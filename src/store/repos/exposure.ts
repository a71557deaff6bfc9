// Exposure scans, findings and user-added names; row <-> domain mapping for the exposure service.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB, ExposureFindingsTable, ExposureScansTable } from '../schema.js';
import type { Page, PageOf } from '../../domain/types.js';
import type {
  ExposureCategory,
  ExposureFinding,
  ExposureScan,
  ExposureSubdomain,
  FindingDetails,
  FindingFilter,
  KnownFinding,
  FindingStatus,
  ScanStatus,
  ScanTrigger,
  Severity,
} from '../../domain/exposure.js';
import { SEVERITIES } from '../../domain/exposure.js';
import { defined, fromBool, newId, parseJson } from './util.js';

type FindingRow = Selectable<ExposureFindingsTable>;

/** A finding's columns as the service gives them: its details as the domain's, encoded by the store. */
type FindingColumns = Omit<FindingRow, 'id' | 'details'> & { details: FindingDetails };

/** A scan's own columns, in the domain's types (the host list, the wildcard flag, each check's outcome). */
type ScanColumns = Omit<ExposureScan, 'id' | 'domain'>;

function encodeDetails(d: FindingDetails): string {
  return JSON.stringify({ provider: d.provider, evidence: d.evidence, remediation: d.remediation });
}

function encodeScan(p: Partial<ScanColumns>): Partial<Selectable<ExposureScansTable>> {
  const { hosts, wildcard, checks, ...rest } = p;
  return defined({
    ...rest,
    hosts: hosts === undefined ? undefined : JSON.stringify(hosts),
    wildcard: wildcard === undefined ? undefined : fromBool(wildcard),
    checks: checks === undefined ? undefined : JSON.stringify(checks),
  });
}

function toFinding(r: FindingRow): ExposureFinding {
  const d = parseJson<Partial<FindingDetails>>(r.details, {});
  return {
    id: r.id,
    team_id: r.team_id,
    domain_id: r.domain_id,
    scan_id: r.scan_id,
    host: r.target ?? '',
    category: r.category as ExposureCategory,
    severity: r.severity as Severity,
    title: r.title,
    details: {
      provider: d.provider ?? null,
      evidence: d.evidence ?? '',
      remediation: d.remediation ?? r.remediation ?? '',
    },
    status: r.status as FindingStatus,
    first_seen: r.first_seen,
    last_seen: r.last_seen,
    resolved_at: r.resolved_at,
  };
}

function toScan(r: Selectable<ExposureScansTable> & { domain: string }): ExposureScan {
  return {
    id: r.id,
    team_id: r.team_id,
    domain_id: r.domain_id,
    domain: r.domain,
    status: r.status as ScanStatus,
    trigger: r.trigger as ScanTrigger,
    started_at: r.started_at,
    finished_at: r.finished_at,
    findings_count: r.findings_count,
    error: r.error,
    hosts: parseJson<string[]>(r.hosts, []),
    wildcard: r.wildcard === 1,
    checks: parseJson<Record<string, string>>(r.checks, {}),
  };
}

// Worst first in lists: critical=0 .. info=4.
const severityOrder = `case severity ${SEVERITIES.map((s, i) => `when '${s}' then ${i}`).join(' ')} else 9 end`;

export function exposureRepo(db: Kysely<DB>) {
  const scans = () =>
    db
      .selectFrom('exposure_scans as s')
      .innerJoin('domains as d', 'd.id', 's.domain_id')
      .selectAll('s')
      .select('d.domain');
  const filtered = <Q extends { where: (...a: any[]) => Q }>(q: Q, teamId: string, f: FindingFilter): Q => {
    let out = q.where('team_id', '=', teamId);
    if (f.domain_id) out = out.where('domain_id', '=', f.domain_id);
    if (f.severity) out = out.where('severity', '=', f.severity);
    if (f.category) out = out.where('category', '=', f.category);
    if (f.status) out = out.where('status', '=', f.status);
    return out;
  };
  return {
    /** Inserts a scan (with the node that runs it, on several nodes); returns its id (the store's). */
    async insertScan(scan: ScanColumns & { node?: string | null }): Promise<string> {
      const id = newId();
      await db
        .insertInto('exposure_scans')
        .values({
          id,
          team_id: scan.team_id,
          domain_id: scan.domain_id,
          status: scan.status,
          trigger: scan.trigger,
          started_at: scan.started_at,
          finished_at: scan.finished_at,
          findings_count: scan.findings_count,
          error: scan.error,
          hosts: JSON.stringify(scan.hosts),
          wildcard: fromBool(scan.wildcard),
          checks: JSON.stringify(scan.checks),
          node: scan.node ?? null,
        })
        .execute();
      return id;
    },
    async updateScan(id: string, patch: Partial<Omit<ScanColumns, 'team_id' | 'domain_id'>>): Promise<void> {
      await db.updateTable('exposure_scans').set(encodeScan(patch)).where('id', '=', id).execute();
    },
    async getScan(teamId: string, id: string): Promise<ExposureScan | undefined> {
      const r = await scans().where('s.team_id', '=', teamId).where('s.id', '=', id).executeTakeFirst();
      return r && toScan(r);
    },
    async runningScan(domainId: string): Promise<ExposureScan | undefined> {
      const r = await scans().where('s.domain_id', '=', domainId).where('s.status', '=', 'running').executeTakeFirst();
      return r && toScan(r);
    },
    async listScans(teamId: string, domainId: string, page: Page): Promise<PageOf<ExposureScan>> {
      const { n } = await db
        .selectFrom('exposure_scans')
        .where('team_id', '=', teamId)
        .where('domain_id', '=', domainId)
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const rows = await scans()
        .where('s.team_id', '=', teamId)
        .where('s.domain_id', '=', domainId)
        .orderBy('s.started_at', 'desc')
        .orderBy('s.id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return { items: rows.map(toScan), total: Number(n), ...page };
    },
    /** Start time of each domain's latest scan (the worker's cadence). */
    async lastStarted(): Promise<Map<string, string>> {
      const rows = await db
        .selectFrom('exposure_scans')
        .select(['domain_id', (e) => e.fn.max('started_at').as('last')])
        .groupBy('domain_id')
        .execute();
      return new Map(rows.map((r) => [r.domain_id, String(r.last)]));
    },
    /**
     * Scans left running by a stopped process can never finish: mark them failed. Without `scope`, every
     * running scan (SQLite: one process). With it (several nodes on PostgreSQL), only the scans of
     * `scope.self` (when `includeSelf`: the node is starting, so none of its own can be running), of
     * nodes whose heartbeat is older than `staleBefore` or who left the node list, and scans that name
     * no node (started before nodes were recorded) older than `orphanBefore` (ISO times).
     */
    async failInterrupted(
      now: string,
      scope?: { self: string; includeSelf: boolean; staleBefore: string; orphanBefore: string },
    ): Promise<number> {
      let q = db
        .updateTable('exposure_scans')
        .set({ status: 'failed', finished_at: now, error: 'interrupted: the service stopped during the scan' })
        .where('status', '=', 'running');
      if (scope)
        q = q.where((eb) =>
          eb.or([
            ...(scope.includeSelf ? [eb('node', '=', scope.self)] : []),
            eb.and([
              eb('node', 'is not', null),
              eb('node', '!=', scope.self),
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('nodes')
                    .select(sql`1`.as('one'))
                    .whereRef('nodes.name', '=', 'exposure_scans.node')
                    .where('nodes.last_heartbeat', '>=', scope.staleBefore),
                ),
              ),
            ]),
            eb.and([eb('node', 'is', null), eb('started_at', '<', scope.orphanBefore)]),
          ]),
        );
      const r = await q.executeTakeFirst();
      return Number(r.numUpdatedRows);
    },

    async findingRows(domainId: string): Promise<KnownFinding[]> {
      return db
        .selectFrom('exposure_findings')
        .select(['id', 'fingerprint', 'category', 'status', 'target', 'title'])
        .where('domain_id', '=', domainId)
        .execute();
    },
    /** Inserts a finding; returns its id (the store's). */
    async insertFinding(f: FindingColumns): Promise<string> {
      const id = newId();
      await db
        .insertInto('exposure_findings')
        .values({ ...f, id, details: encodeDetails(f.details) })
        .execute();
      return id;
    },
    async updateFinding(id: string, patch: Partial<FindingColumns>): Promise<void> {
      const { details, ...rest } = patch;
      await db
        .updateTable('exposure_findings')
        .set(defined({ ...rest, details: details === undefined ? undefined : encodeDetails(details) }))
        .where('id', '=', id)
        .execute();
    },
    async getFinding(teamId: string, id: string): Promise<ExposureFinding | undefined> {
      const r = await db
        .selectFrom('exposure_findings')
        .selectAll()
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r && toFinding(r);
    },
    async listFindings(teamId: string, f: FindingFilter, page: Page): Promise<PageOf<ExposureFinding>> {
      const { n } = await filtered(db.selectFrom('exposure_findings'), teamId, f)
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const rows = await filtered(db.selectFrom('exposure_findings').selectAll(), teamId, f)
        .orderBy(sql`case status when 'open' then 0 else 1 end`)
        .orderBy(sql.raw(severityOrder))
        .orderBy('last_seen', 'desc')
        .orderBy('id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return { items: rows.map(toFinding), total: Number(n), ...page };
    },

    async subdomains(teamId: string, domainId: string): Promise<ExposureSubdomain[]> {
      return db
        .selectFrom('exposure_subdomains')
        .select(['id', 'domain_id', 'name', 'created_at'])
        .where('team_id', '=', teamId)
        .where('domain_id', '=', domainId)
        .orderBy('name')
        .execute();
    },
    /** Adds a name to a domain's inventory; returns it as stored (its id is the store's). */
    async addSubdomain(row: Omit<ExposureSubdomain, 'id'> & { team_id: string }): Promise<ExposureSubdomain> {
      const id = newId();
      await db
        .insertInto('exposure_subdomains')
        .values({ ...row, id })
        .execute();
      return { id, domain_id: row.domain_id, name: row.name, created_at: row.created_at };
    },
    async removeSubdomain(teamId: string, domainId: string, id: string): Promise<boolean> {
      const r = await db
        .deleteFrom('exposure_subdomains')
        .where('team_id', '=', teamId)
        .where('domain_id', '=', domainId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /** Names in the certificates the TLS inspector saw on this domain's endpoints. */
    async certificateSans(domainId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('endpoint_certificates as c')
        .innerJoin('endpoints as e', 'e.id', 'c.endpoint_id')
        .select('c.sans')
        .where('e.domain_id', '=', domainId)
        .execute();
      return rows.flatMap((r) => parseJson<unknown[]>(r.sans, [])).filter((s): s is string => typeof s === 'string');
    },
  };
}
