// PostgreSQL for the benchmarks (--database-url SERVER_URL): a fresh database per scenario on that
// server, the CPU of the server's own processes (for "PostgreSQL's CPU per check"), and the bytes
// of tables on disk. The server must run on this machine (its processes are read from /proc), as
// the one `scripts/pg-cluster.sh start DIR` starts.
import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { TICK } from './proc.js';

function stat(pid: number): string[] | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return f.slice(f.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

export interface BenchDatabase {
  url: string;
  /**
   * CPU ticks of the whole server: the postmaster and every live backend and worker, plus what
   * exited children left in the postmaster's cutime/cstime once reaped.
   */
  serverTicks(): { user: number; sys: number };
  /** Bytes on disk (tables, their indexes and TOAST) of the relations whose names start with one of `prefixes`. */
  bytes(prefixes: readonly string[]): Promise<number>;
  count(table: string): Promise<number>;
  /**
   * The server's CPU ms per 1,000 reference statements (a one-row update by primary key, prepared,
   * each its own transaction) run one after another on one connection: how fast this machine runs
   * PostgreSQL's kind of work right now. On a shared machine it moves by tens of per cent within an
   * hour; a figure per check divided by it does not (docs/benchmarks.md).
   */
  referenceMs(): Promise<number>;
  drop(): Promise<void>;
}

export async function benchDatabase(serverUrl: string, label = 'bench'): Promise<BenchDatabase> {
  const name = `dommon_${label}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const backend = (await admin.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  await admin.query(`create database ${name}`);
  // Read while the session lives: its backend exits with it.
  const parent = stat(backend);
  await admin.end();
  if (!parent) throw new Error('the PostgreSQL server must run on this machine (its processes are read from /proc)');
  const postmaster = Number(parent[1]);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const serverTicks = () => {
    let user = 0;
    let sys = 0;
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      const s = stat(Number(d));
      if (!s) continue;
      const pid = Number(d);
      if (pid === postmaster) {
        user += Number(s[11]) + Number(s[13]);
        sys += Number(s[12]) + Number(s[14]);
      } else if (Number(s[1]) === postmaster) {
        user += Number(s[11]);
        sys += Number(s[12]);
      }
    }
    return { user, sys };
  };
  return {
    url,
    serverTicks,
    async referenceMs() {
      const OPS = 5000;
      await client.query('create table if not exists bench_reference (id integer primary key, n integer not null)');
      await client.query(
        'insert into bench_reference select i, 0 from generate_series(1, 1000) i on conflict do nothing',
      );
      const sum = (x: { user: number; sys: number }) => x.user + x.sys;
      const t0 = sum(serverTicks());
      for (let i = 0; i < OPS; i++)
        await client.query({
          name: 'bench_reference',
          text: 'update bench_reference set n = n + 1 where id = $1',
          values: [(i % 1000) + 1],
        });
      return (((sum(serverTicks()) - t0) / TICK) * 1000 * 1000) / OPS;
    },
    async bytes(prefixes) {
      const r = await client.query<{ b: string | null }>(
        `select sum(pg_total_relation_size(c.oid)) as b from pg_class c
          join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = current_schema() and c.relkind in ('r', 'm') and c.relname like any($1)`,
        [prefixes.map((p) => `${p}%`)],
      );
      return Number(r.rows[0]?.b ?? 0);
    },
    async count(table) {
      const r = await client.query<{ n: string }>(`select count(*) as n from ${table}`);
      return Number(r.rows[0]!.n);
    },
    async drop() {
      await client.end();
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
