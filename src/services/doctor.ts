// `dommon doctor`: is this installation healthy? The database (integrity, schema version), the data
// directory (writable, not open to other users, free space) and whether each configured outside
// peer (DNS, RDAP, WHOIS, SMTP) answers (src/probes/peer-check.ts asks them). Each check is a result,
// never an exception.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import { pingDns, pingRdap, pingSmtp, pingWhois } from '../probes/peer-check.js';
import { inspectDatabase, storedChannelConfigs, writableDirProblem } from '../store/maintenance.js';
import { judgeSealed, loadKeyRing } from '../store/sealing.js';
import { lockHolder } from '../store/lock.js';

type DoctorStatus = 'ok' | 'warn' | 'fail' | 'skip';

interface DoctorCheck {
  name: string;
  status: DoctorStatus;
  detail: string;
  ms?: number;
}

interface DoctorReport {
  ok: boolean;
  data_dir: string;
  checks: DoctorCheck[];
}

const MIN_FREE_BYTES = 100 * 1024 * 1024;

async function timed(name: string, fn: () => Promise<Omit<DoctorCheck, 'name' | 'ms'>>): Promise<DoctorCheck> {
  const t0 = performance.now();
  try {
    const r = await fn();
    return { name, ...r, ms: Math.round(performance.now() - t0) };
  } catch (err) {
    return {
      name,
      status: 'fail',
      detail: (err as Error).message || String(err),
      ms: Math.round(performance.now() - t0),
    };
  }
}

/** World-writable directory, or a database other users can reach and read (it holds token hashes and channel secrets). */
function permissionWarning(dir: string, dbPath: string): string | null {
  try {
    const dirMode = fs.statSync(dir).mode & 0o777;
    if (dirMode & 0o002) return `${dir} is writable by every user (mode ${dirMode.toString(8)})`;
    if (!fs.existsSync(dbPath) || (dirMode & 0o001) === 0) return null;
    const dbMode = fs.statSync(dbPath).mode & 0o777;
    if (dbMode & 0o004)
      return `${dbPath} is readable by every user (mode ${dbMode.toString(8)}, directory ${dirMode.toString(8)}); it holds token hashes and channel secrets: chmod 700 ${dir}`;
    return null;
  } catch {
    return null;
  }
}

/** The schema check of either engine: unknown (newer) migrations fail, pending ones warn. */
function schemaVersion(info: {
  applied: { name: string }[];
  pending: string[];
  unknown: string[];
}): Omit<DoctorCheck, 'name' | 'ms'> {
  const current = info.applied.at(-1)?.name ?? 'none';
  if (info.unknown.length)
    return { status: 'fail', detail: `made by a newer dommon: unknown migrations ${info.unknown.join(', ')}` };
  if (info.pending.length)
    return {
      status: 'warn',
      detail: `at ${current}; pending ${info.pending.join(', ')} (applied on next start or by dommon migrate)`,
    };
  return { status: 'ok', detail: `at ${current} (${info.applied.length} applied, none pending)` };
}

/** The oldest PostgreSQL server dommon supports (pg_current_snapshot, partitioned tables with foreign keys). */
const PG_MIN_VERSION = 130000;

/** DOMMON_DATABASE_URL: the connection, the server's version, and the migration state. */
async function postgresChecks(
  url: string,
  label: string,
  timeoutMs: number,
  key: Config['secretKey'],
): Promise<DoctorCheck[]> {
  const { openPgConnection, pgMigrationInfo, pgPing, pgServerVersion } = await import('../store/pg.js');
  let conn: Awaited<ReturnType<typeof openPgConnection>> | undefined;
  const connection = await timed('database connection', async () => {
    conn = await openPgConnection(url, {
      poolSize: 1,
      statementTimeoutMs: timeoutMs,
      connectTimeoutMs: timeoutMs,
      migrate: false,
    });
    try {
      await pgPing(conn.db);
    } catch (err) {
      await conn.close();
      conn = undefined;
      throw new Error(`${label}: ${(err as Error).message}`);
    }
    const row = await pgServerVersion(conn.db);
    if (row.num < PG_MIN_VERSION)
      return { status: 'fail', detail: `${label}: PostgreSQL ${row.version}; dommon needs 13 or newer` };
    return { status: 'ok', detail: `${label}: PostgreSQL ${row.version}` };
  });
  if (!conn) return [connection, { name: 'schema version', status: 'skip', detail: 'no connection' }];
  const c = conn;
  try {
    const schema = await timed('schema version', async () => {
      return schemaVersion(await pgMigrationInfo(c.db));
    });
    const secrets = await timed('channel secrets', async () => {
      const rows = await c.db.selectFrom('notification_settings').select('config').execute();
      if (!rows.length) return { status: 'ok', detail: 'no channel settings stored' };
      return judgeSealed(
        rows.map((r) => r.config),
        loadKeyRing(key),
      );
    });
    return [connection, schema, secrets];
  } finally {
    await c.close();
  }
}

/** `smtpCa`: extra trusted CA certificates (PEM) for the SMTP relay (tests pass their own CA). */
export async function runDoctor(
  config: Readonly<Config>,
  opts: { timeoutMs?: number; smtpCa?: string | string[] } = {},
): Promise<DoctorReport> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  const checks: DoctorCheck[] = [];
  const dir = config.dataDir;

  checks.push(
    await timed('data directory', async () => {
      if (!fs.existsSync(dir)) {
        // Could serve create it? The nearest existing ancestor must be a writable directory.
        let up = path.dirname(dir);
        while (!fs.existsSync(up) && path.dirname(up) !== up) up = path.dirname(up);
        if (!fs.statSync(up).isDirectory())
          return { status: 'fail', detail: `${dir} is not writable: ENOTDIR (${up} is a file)` };
        try {
          fs.accessSync(up, fs.constants.W_OK);
        } catch {
          return { status: 'fail', detail: `${dir} is not writable: EACCES (cannot create it in ${up})` };
        }
        return { status: 'warn', detail: `${dir} does not exist yet (created by dommon serve)` };
      }
      const problem = writableDirProblem(dir);
      if (problem) return { status: 'fail', detail: `${dir} is not writable: ${problem}` };
      const warn = permissionWarning(dir, config.dbPath);
      if (warn) return { status: 'warn', detail: warn };
      const st = fs.statfsSync(dir);
      const free = st.bavail * st.bsize;
      if (free < MIN_FREE_BYTES)
        return { status: 'warn', detail: `${dir} is writable but only ${Math.round(free / 1048576)} MB are free` };
      return {
        status: 'ok',
        detail: `${dir} is writable (mode ${(fs.statSync(dir).mode & 0o777).toString(8)}, ${Math.round(free / 1048576)} MB free)`,
      };
    }),
  );

  if (config.database)
    checks.push(...(await postgresChecks(config.database.url, config.database.redacted, timeoutMs, config.secretKey)));
  const dbExists = !config.database && fs.existsSync(config.dbPath);
  if (!config.database)
    checks.push(
      await timed('database integrity', async () => {
        if (!dbExists) return { status: 'warn', detail: `no database at ${config.dbPath} yet (created on first use)` };
        const info = inspectDatabase(config.dbPath);
        if (info.integrity.join() !== 'ok')
          return { status: 'fail', detail: `integrity_check: ${info.integrity.slice(0, 3).join('; ')}` };
        const vacuum =
          info.auto_vacuum === 'incremental'
            ? ''
            : ` (auto_vacuum ${info.auto_vacuum}: retention cannot shrink the file)`;
        return {
          status: vacuum ? 'warn' : 'ok',
          detail: `ok, ${info.bytes} bytes, journal ${info.journal_mode}${vacuum}`,
        };
      }),
    );
  if (!config.database)
    checks.push(
      await timed('schema version', async () => {
        if (!dbExists) return { status: 'skip', detail: 'no database yet' };
        return schemaVersion(inspectDatabase(config.dbPath, { quick: true }));
      }),
    );
  if (!config.database)
    checks.push(
      await timed('channel secrets', async () => {
        if (!dbExists) return { status: 'skip', detail: 'no database yet' };
        const configs = storedChannelConfigs(config.dbPath);
        // A missing default key file is made by the first start: only a problem once something is sealed.
        if (!configs.length) return { status: 'ok', detail: 'no channel settings stored' };
        return judgeSealed(configs, loadKeyRing(config.secretKey));
      }),
    );
  checks.push(
    await timed('daemon', async () => {
      const pid = lockHolder(dir);
      return {
        status: 'ok',
        detail: pid
          ? `a daemon (pid ${pid}) is serving this data directory`
          : 'no daemon is serving this data directory',
      };
    }),
  );

  if (config.dnsServers.length) {
    for (const s of config.dnsServers)
      checks.push(await timed(`dns ${s}`, async () => ({ status: 'ok', detail: await pingDns(s, timeoutMs) })));
  } else {
    checks.push({ name: 'dns', status: 'skip', detail: 'DOMMON_DNS_SERVERS not set: the system resolvers are used' });
  }
  checks.push(
    config.rdapUrl
      ? await timed('rdap', () => pingRdap(config.rdapUrl!, timeoutMs))
      : { name: 'rdap', status: 'skip', detail: 'DOMMON_RDAP_URL not set: the IANA bootstrap is used' },
  );
  checks.push(
    config.whoisServer
      ? await timed('whois', () => pingWhois(config.whoisServer!, timeoutMs))
      : { name: 'whois', status: 'skip', detail: 'DOMMON_WHOIS_SERVER not set: per-TLD servers are used' },
  );
  checks.push(
    config.smtpUrl
      ? await timed('smtp', async () => ({ status: 'ok', detail: await pingSmtp(config, timeoutMs, opts.smtpCa) }))
      : { name: 'smtp', status: 'skip', detail: 'DOMMON_SMTP_URL not set: e-mail notifications cannot be sent' },
  );

  return { ok: !checks.some((c) => c.status === 'fail'), data_dir: dir, checks };
}
