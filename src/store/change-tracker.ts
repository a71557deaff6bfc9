// Per-table write counters: a Kysely plugin bumps a table's counter on every INSERT/UPDATE/DELETE,
// and PRAGMA data_version notices commits by other processes (the CLI). A reader that remembers the
// stamp of the tables it read knows, for the price of one pragma, whether its copy is still current.
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type Database from 'better-sqlite3';

/** The parts of Kysely's operation nodes read here (InsertQueryNode.into, AliasNode.node, TableNode.table.identifier, ...). */
interface AnyNode {
  kind: string;
  identifier?: { name?: string };
  table?: AnyNode;
  node?: AnyNode;
  into?: AnyNode;
  from?: { froms?: AnyNode[] };
  sqlFragments?: readonly string[];
  parameters?: readonly AnyNode[];
}

function tableOf(n: AnyNode | undefined): string | undefined {
  if (!n) return undefined;
  if (n.kind === 'TableNode') return n.table?.identifier?.name;
  if (n.kind === 'AliasNode') return tableOf(n.node);
  return undefined;
}

const VERB =
  /^\s*(?:insert(?:\s+or\s+\w+)?\s+into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+["`]?(\w+)["`]?/i;
/**
 * The writes inside a statement that starts with WITH (data-modifying CTEs and the statement they
 * lead to): every `insert into`, `update` and `delete from` that is not part of `for update`, `for no
 * key update` or `on conflict ... do update`, with the name that follows it (none: unknown).
 */
const CTE_VERB = /(?<!\b(?:for|do|key)\s+)\b(?:insert\s+into|update|delete\s+from)\b\s*(?:["`]?(\w+)["`]?)?/gi;

/**
 * A raw statement's text with its parameters in place: a table (sql.table()) as its name, a nested
 * raw piece (an embedded sql`...`) as its own text, any other value as `?`.
 */
function flatten(n: AnyNode): string {
  if (n.kind !== 'RawNode') return tableOf(n) ?? '?';
  const fragments = n.sqlFragments ?? [];
  const params = n.parameters ?? [];
  let out = fragments[0] ?? '';
  for (let i = 0; i < params.length; i++) out += flatten(params[i]!) + (fragments[i + 1] ?? '');
  return out;
}

/**
 * The tables a raw statement writes (insert/replace/update/delete, and every data-modifying part of
 * a WITH statement), [] for statements that write no table data (select, pragma, transaction
 * control), undefined when unknown (counted as "may have written anything").
 */
function rawTargets(sqlText: string): string[] | undefined {
  const m = VERB.exec(sqlText);
  if (m) return [m[1]!.toLowerCase()];
  if (/^\s*with\b/i.test(sqlText)) {
    const out = new Set<string>();
    for (const w of sqlText.matchAll(CTE_VERB)) {
      if (!w[1]) return undefined;
      out.add(w[1].toLowerCase());
    }
    return [...out];
  }
  // A new table (the day partitions of liveness_results) holds no rows yet.
  if (/^\s*create\s+table\b/i.test(sqlText)) return [];
  // Reads and transaction control (the group commit's savepoints) write no table data.
  if (/^\s*(?:select|pragma|savepoint|release|rollback|begin|commit|end)\b/i.test(sqlText)) return [];
  return undefined;
}

/** rawTargets() of a raw node: its first piece names the table, or its whole text (parameters in place) is read. */
function rawNodeTargets(n: AnyNode): string[] | undefined {
  const m = VERB.exec(n.sqlFragments?.[0] ?? '');
  return m ? [m[1]!.toLowerCase()] : rawTargets(flatten(n));
}

export class ChangeTracker implements KyselyPlugin {
  private readonly epochs = new Map<string, number>();
  private all = 0;
  /** Writes other processes told of (PostgreSQL: change-feed.ts); moves stamp([]) as data_version does. */
  private remotes = 0;
  private dataVersion: Database.Statement | undefined;
  /** Told of every table this process writes ('*': a statement that may write anything): the PostgreSQL change feed. */
  onWrite: ((table: string) => void) | undefined;

  attach(sqlite: Database.Database): void {
    // Prepared once: stamp() runs on every authenticated request and every cached list read.
    this.dataVersion = sqlite.prepare('pragma data_version').pluck();
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const n = args.node as unknown as AnyNode;
    if (n.kind === 'InsertQueryNode') this.mark(tableOf(n.into) ?? '');
    else if (n.kind === 'UpdateQueryNode') this.mark(tableOf(n.table) ?? '');
    else if (n.kind === 'DeleteQueryNode') this.mark(tableOf(n.from?.froms?.[0]) ?? '');
    // A raw statement names its table in its first words (a WITH: in each data-modifying part); anything else may write anything.
    else if (n.kind === 'RawNode') this.markAll(rawNodeTargets(n));
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }

  /**
   * The one way a write Kysely's plugin does not see is marked: by its SQL text, read as a raw
   * statement's (its first words name its table; anything unreadable counts as a write of anything).
   * Repositories never name the tables they wrote.
   */
  wrote(sqlText: string): void {
    this.markAll(rawTargets(sqlText));
  }

  /** A prepared write statement (the SQLite hot path) whose every run marks the table its SQL writes. */
  prepareWrite(sqlite: Database.Database, sqlText: string): { run(...params: unknown[]): Database.RunResult } {
    const statement = sqlite.prepare(sqlText);
    const tables = rawTargets(sqlText);
    return {
      run: (...params: unknown[]) => {
        const result = statement.run(...params);
        this.markAll(tables);
        return result;
      },
    };
  }

  private markAll(tables: readonly string[] | undefined): void {
    if (tables === undefined) this.mark(undefined);
    else for (const t of tables) this.mark(t);
  }

  private mark(table: string | undefined): void {
    if (table === undefined) {
      this.all++;
      this.onWrite?.('*');
    } else if (table) {
      this.epochs.set(table, (this.epochs.get(table) ?? 0) + 1);
      this.onWrite?.(table);
    }
  }

  /**
   * Tables written and committed by a process (PostgreSQL's change feed; '*': anything). `own`: this
   * process's commit, announced again once committed (a read between its write and its commit may
   * have cached the old rows); others' also move stamp([]).
   */
  committed(tables: readonly string[], own: boolean): void {
    if (!own) this.remotes++;
    for (const t of tables)
      if (t === '*') this.all++;
      else this.epochs.set(t, (this.epochs.get(t) ?? 0) + 1);
  }

  /** PRAGMA data_version as read in this turn of the event loop; undefined: read it again. */
  private dv: number | undefined;

  /**
   * Changes whenever one of `tables` was written here, or anything was committed elsewhere. Writes by
   * this connection move it at once; commits by other processes (the CLI) from the next turn of the
   * event loop on: the requests handled in one turn share one read of the pragma (each read has a
   * measurable cost outside a transaction, see docs/benchmarks.md, and every authenticated request asks).
   */
  stamp(tables: readonly string[]): string {
    let dv = this.dv;
    if (dv === undefined) {
      try {
        dv = this.dataVersion ? (this.dataVersion.get() as number) : 0;
      } catch {
        dv = -1; // closed database: never equal to a live stamp
      }
      this.dv = dv;
      setImmediate(() => {
        this.dv = undefined;
      });
    }
    // No tables: "did another process commit anything" (data_version on SQLite, the feed on PostgreSQL).
    const remote = tables.length ? '' : this.remotes;
    return `${dv}:${this.all}:${remote}:${tables.map((t) => this.epochs.get(t) ?? 0).join(',')}`;
  }
}
