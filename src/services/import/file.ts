// What the importers (Gatus, Uptime Kuma) build: a dommon configuration file (docs/configuration-file.md)
// and the list of what could not be carried over, each with where it was in the source. The builder
// keeps the file's keys unique the way `dommon apply` needs them: a domain once, an endpoint name once
// per domain, a portfolio once; a name taken twice gets a suffix, and the rename is reported.
import { normalizeDomainName, registrableDomain } from '../../domain/domain-name.js';
import { goDurationMs } from '../../domain/go-duration.js';

type Json = Record<string, unknown>;

export interface FileEndpoint {
  name: string;
  type: string;
  subdomain?: string;
  path?: string;
  port?: number;
  [field: string]: unknown;
  liveness?: Json;
}

interface FileDomain {
  name: string;
  portfolio?: string;
  notes?: string;
  endpoints: FileEndpoint[];
}

export interface DommonFile {
  version: 1;
  portfolios?: { name: string }[];
  channels?: Json[];
  domains?: FileDomain[];
  status_pages?: Json[];
  maintenance_windows?: Json[];
}

/** One thing not carried over (or carried over differently): where it was and why. */
export interface ImportNote {
  /** e.g. `config.yaml:12` or `kuma.db: monitor 7 "Admin"`. */
  at: string;
  message: string;
}

export interface ImportResult {
  file: DommonFile;
  notes: ImportNote[];
  /** The `${NAME}` references the file holds for secrets, each with what it stands for. */
  secrets: { name: string; what: string }[];
}

/** A host split into the domain dommon registers and the subdomain under it. */
type HostSplit = { ok: true; domain: string; subdomain?: string } | { ok: false; reason: string };

export function splitHost(raw: string): HostSplit {
  const host = raw.replace(/^\[|\]$/g, '');
  if (/\$\{?[A-Za-z_]/.test(host))
    return { ok: false, reason: 'the host is an environment reference: dommon needs the name itself' };
  if (/^[0-9.]+$/.test(host) || host.includes(':'))
    return { ok: false, reason: `${host} is an IP address: dommon's endpoints are names under a registrable domain` };
  const n = normalizeDomainName(host);
  if (!n.ok) {
    if (!host.includes('.'))
      return {
        ok: false,
        reason: `${host} is a bare host name: dommon's endpoints are names under a registrable domain`,
      };
    return { ok: false, reason: n.reason };
  }
  const domain = registrableDomain(n.name);
  if (!domain) return { ok: false, reason: `${host} has no registrable domain` };
  const sub = n.name === domain ? undefined : n.name.slice(0, -(domain.length + 1));
  return { ok: true, domain, ...(sub ? { subdomain: sub } : {}) };
}

/** An environment variable name made of the parts: upper case, `_` between words. */
export function envName(...parts: string[]): string {
  const s = parts
    .join('_')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return /^[A-Z_]/.test(s) ? s : `X_${s}`;
}

export class FileBuilder {
  private readonly portfolios = new Map<string, { name: string }>();
  private readonly domains = new Map<string, FileDomain>();
  private readonly channels: Json[] = [];
  private readonly windows: Json[] = [];
  private readonly pages: Json[] = [];
  private readonly windowNames = new Set<string>();
  readonly notes: ImportNote[] = [];
  private readonly secretRefs = new Map<string, string>();

  note(at: string, message: string): void {
    this.notes.push({ at, message });
  }

  /** `${NAME}` for a secret, made unique; `value` already a reference is kept as written. */
  secret(preferred: string, what: string, value?: string): string {
    const m = value === undefined ? null : /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value.trim());
    if (m) {
      this.secretRefs.set(m[1]!, what);
      return `\${${m[1]!}}`;
    }
    let name = preferred;
    for (let i = 2; this.secretRefs.has(name); i++) name = `${preferred}_${i}`;
    this.secretRefs.set(name, what);
    return `\${${name}}`;
  }

  portfolio(name: string): string {
    const key = name.trim();
    if (!this.portfolios.has(key.toLowerCase())) this.portfolios.set(key.toLowerCase(), { name: key });
    return this.portfolios.get(key.toLowerCase())!.name;
  }

  hasDomain(name: string): boolean {
    return this.domains.has(name);
  }

  domainNames(): string[] {
    return [...this.domains.keys()];
  }

  portfolioNames(): string[] {
    return [...this.portfolios.values()].map((p) => p.name);
  }

  /**
   * Adds an endpoint under its domain (made on first use, in `portfolio` when given); answers the
   * reference `<domain>/<endpoint>` other sections use. A name taken in the domain gets `-2`, `-3`...
   */
  endpoint(at: string, domain: string, ep: FileEndpoint, portfolio?: string, from = 'group'): string {
    let d = this.domains.get(domain);
    if (!d) {
      d = { name: domain, ...(portfolio ? { portfolio: this.portfolio(portfolio) } : {}), endpoints: [] };
      this.domains.set(domain, d);
    } else if (portfolio && d.portfolio?.toLowerCase() !== portfolio.trim().toLowerCase()) {
      if (!d.portfolio) d.portfolio = this.portfolio(portfolio);
      else
        this.note(
          at,
          `${from} "${portfolio}" not carried over for ${ep.name}: its domain ${domain} is in portfolio "${d.portfolio}" already (a domain is in one portfolio)`,
        );
    }
    let name = ep.name.replace(/\//g, '-').trim() || 'endpoint';
    if (name !== ep.name) this.note(at, `endpoint "${ep.name}" named "${name}": an endpoint name has no "/"`);
    const taken = new Set(d.endpoints.map((e) => e.name.toLowerCase()));
    if (taken.has(name.toLowerCase())) {
      let i = 2;
      while (taken.has(`${name}-${i}`.toLowerCase())) i++;
      this.note(at, `endpoint "${name}" named "${name}-${i}": ${domain} has an endpoint of that name already`);
      name = `${name}-${i}`;
    }
    if (name.length > 200) name = name.slice(0, 200);
    d.endpoints.push({ ...ep, name });
    return `${domain}/${name}`;
  }

  /** Adds a channel; false (and a note) when the file has one of that type and delivery class already. */
  channel(at: string, row: Json, label: string): boolean {
    const cls = (row.delivery_class as string | undefined) ?? 'instant';
    if (
      this.channels.some((c) => c.type === row.type && ((c.delivery_class as string | undefined) ?? 'instant') === cls)
    ) {
      this.note(
        at,
        `${label} not carried over: the file has a ${String(row.type)} channel already (dommon keeps one per type and delivery class)`,
      );
      return false;
    }
    this.channels.push(row);
    return true;
  }

  maintenanceWindow(w: Json & { name: string }): void {
    let name = w.name.trim().slice(0, 200);
    if (this.windowNames.has(name.toLowerCase())) {
      let i = 2;
      while (this.windowNames.has(`${name} ${i}`.toLowerCase())) i++;
      name = `${name} ${i}`;
    }
    this.windowNames.add(name.toLowerCase());
    this.windows.push({ ...w, name });
  }

  statusPage(p: Json): void {
    this.pages.push(p);
  }

  result(): ImportResult {
    const file: DommonFile = { version: 1 };
    if (this.portfolios.size) file.portfolios = [...this.portfolios.values()];
    if (this.channels.length) file.channels = this.channels;
    if (this.domains.size)
      file.domains = [...this.domains.values()].map(({ name, portfolio, notes, endpoints }) => ({
        name,
        ...(portfolio ? { portfolio } : {}),
        ...(notes ? { notes } : {}),
        endpoints,
      }));
    if (this.pages.length) file.status_pages = this.pages;
    if (this.windows.length) file.maintenance_windows = this.windows;
    const line = (n: ImportNote) => Number(/:(\d+)$/.exec(n.at)?.[1] ?? 0);
    return {
      file,
      notes: [...this.notes].sort((a, b) => line(a) - line(b)),
      secrets: [...this.secretRefs].map(([name, what]) => ({ name, what })),
    };
  }
}

/** A Go-style duration (`30s`, `1h30m`, `500ms`) in whole seconds (rounded up); null when it is none or negative. */
export function goDurationSeconds(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.ceil(v / 1e9); // a bare number is nanoseconds in Go
  if (typeof v !== 'string') return null;
  const ms = goDurationMs(v.trim());
  return ms === null || ms < 0 ? null : Math.ceil(ms / 1000 - 1e-9);
}
