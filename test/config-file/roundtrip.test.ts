// Round trips of the configuration file, property-tested (fast-check): a random setup (portfolios,
// channels with secrets and credentials, domains with endpoints of several types and liveness checks
// with credentials and regions, push endpoints with their ping keys, status pages, maintenance
// windows) is applied to an empty team; its export holds every value the file set (secrets as
// references, never their values); that export applied to another empty team exports the same text;
// applied again to its own team it changes nothing.
// Each run uses new teams of one app (a team's setup is all an export reads); the fixed case through
// an empty data directory, on both stores, is test/config-file/export.test.ts.
import fs from 'node:fs';
import t, { type Test } from 'tap';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { request, startApp } from '../support/app.js';

type Json = Record<string, any>;

// From the file's schema: the fields an export may leave out (at their declared default) and those it
// writes as references (writeOnly: secrets and credentials).
const DEFAULTS = new Set<string>();
const WRITE_ONLY = new Set<string>();
(function walk(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === 'properties')
      for (const [field, p] of Object.entries(v as Record<string, Json>)) {
        if (p.default !== undefined) DEFAULTS.add(`${field}=${JSON.stringify(p.default)}`);
        if (p.writeOnly) WRITE_ONLY.add(field);
      }
    walk(v);
  }
})(JSON.parse(fs.readFileSync(new URL('../../schemas/config/dommon.schema.json', import.meta.url), 'utf8')));

const word = fc.constantFrom('alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot');
const text = fc.constantFrom('main site', 'owned by ops', 'legacy: keep', 'ünïcode ✓', '#not a comment', 'yes');
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

const secretValue = fc.constantFrom('s3cret', 'p@ss:word', 'tok-123456');

const channel = fc.oneof(
  fc.record({
    type: fc.constant('slack'),
    delivery_class: fc.constantFrom('instant', 'digest'),
    webhook_url: fc.constantFrom('https://hooks.slack.com/services/T0/B0/AAAA', 'https://hooks.slack.com/x'),
    min_severity: maybe(fc.constantFrom('low', 'high', 'critical')),
  }),
  fc.record({
    type: fc.constant('webhook'),
    delivery_class: fc.constant('instant'),
    webhook_url: fc.constantFrom('https://hooks.example.test/dommon', 'http://127.0.0.1:9/hook'),
    secret_key: maybe(secretValue),
    is_enabled: maybe(fc.boolean()),
  }),
  fc.record({
    type: fc.constant('ntfy'),
    delivery_class: fc.constant('instant'),
    topic: fc.constantFrom('dommon-alerts-7f3k2q', 'ops-x9'),
    token: maybe(fc.constant('tk_abcdefghijklmnopqrstuvwxyz012')),
  }),
);

const liveness = fc
  .record(
    {
      interval_seconds: fc.integer({ min: 30, max: 3600 }),
      failure_threshold: fc.integer({ min: 1, max: 5 }),
      expected_status_code: fc.constantFrom(200, 204, 301),
      method: fc.constantFrom('GET', 'HEAD', 'POST'),
      follow_redirects: fc.boolean(),
      headers: fc.dictionary(fc.constantFrom('X-Probe', 'Accept'), fc.constantFrom('dommon', 'text/html')),
      conditions: fc.uniqueArray(fc.constantFrom('[STATUS] == 200', '[RESPONSE_TIME] < 500'), { maxLength: 2 }),
      auth: fc.oneof(
        fc.record({ type: fc.constant('basic'), username: fc.constantFrom('ops', 'monitor'), password: secretValue }),
        fc.record({ type: fc.constant('bearer'), token: secretValue }),
      ),
      regions: fc.uniqueArray(fc.constantFrom('eu-west', 'us-east', 'ap-south'), { minLength: 1, maxLength: 3 }),
      confirm_from: fc.integer({ min: 1, max: 3 }),
    },
    { requiredKeys: ['interval_seconds'] },
  )
  // confirm_from counts regions: at most their number, and none without them.
  .map(({ confirm_from, ...l }) =>
    l.regions ? { ...l, ...(confirm_from ? { confirm_from: Math.min(confirm_from, l.regions.length) } : {}) } : l,
  );

/** A ping key as a file may set it: a UUID, or another key of its form (an Uptime Kuma token). */
const pingKey = fc.oneof(fc.uuid({ version: 4 }), fc.stringMatching(/^[A-Za-z0-9_-]{10,64}$/));

const endpoint = (name: string) =>
  fc.oneof(
    fc.record(
      {
        name: fc.constant(name),
        type: fc.constantFrom('https', 'http'),
        subdomain: maybe(fc.constantFrom('www', 'api')),
        path: maybe(fc.constantFrom('/health', '/')),
        notes: maybe(text),
        timeout_seconds: maybe(fc.integer({ min: 1, max: 60 })),
        liveness: maybe(liveness),
      },
      { requiredKeys: ['name', 'type'] },
    ),
    fc.record({ name: fc.constant(name), type: fc.constant('dns'), record_type: fc.constantFrom('A', 'MX', 'TXT') }),
    fc.record({
      name: fc.constant(name),
      type: fc.constant('push'),
      period_seconds: fc.integer({ min: 60, max: 86400 }),
      grace_seconds: maybe(fc.integer({ min: 60, max: 7200 })),
      ping_key: maybe(pingKey),
    }),
    fc.record({ name: fc.constant(name), type: fc.constant('port'), port: fc.integer({ min: 1, max: 65535 }) }),
  );

const setup = fc
  .record({
    portfolios: fc.uniqueArray(fc.record({ name: word, description: maybe(text) }), {
      selector: (p) => p.name,
      maxLength: 3,
    }),
    channels: fc.uniqueArray(channel, { selector: (c) => `${c.type} ${c.delivery_class}`, maxLength: 3 }),
    domains: fc.uniqueArray(
      fc.record({
        name: fc.constantFrom('example.com', 'example.org', 'test.net', 'b.example.net'),
        notes: maybe(text),
        dkim_selectors: maybe(fc.uniqueArray(fc.constantFrom('s1', 'google', 'k2'), { maxLength: 2 })),
        manual_expiry: maybe(fc.constantFrom('2027-01-01', '2030-06-30')),
        portfolioIndex: fc.nat(3),
        names: fc.uniqueArray(fc.constantFrom('api', 'www', 'mx', 'backup', 'db'), { maxLength: 3 }),
      }),
      { selector: (d) => d.name, maxLength: 3 },
    ),
    windows: fc.uniqueArray(
      fc.record({
        name: fc.constantFrom('Sunday patching', 'Move', 'night'),
        cron: fc.constantFrom('0 3 * * 0', '30 1 * * *'),
        duration_minutes: fc.integer({ min: 1, max: 600 }),
        timezone: maybe(fc.constantFrom('UTC', 'Europe/Berlin')),
        is_enabled: maybe(fc.boolean()),
        withDomains: fc.boolean(),
      }),
      { selector: (w) => w.name, maxLength: 2 },
    ),
    page: fc.boolean(),
  })
  .chain((s) =>
    fc
      .tuple(...s.domains.map((d) => (d.names.length ? fc.tuple(...d.names.map(endpoint)) : fc.constant([]))))
      .map((endpoints) => ({ s, endpoints: endpoints as Json[][] })),
  )
  .map(({ s, endpoints }) => {
    const file: Json = { version: 1 };
    const env: Record<string, string> = {};
    let n = 0;
    /** A secret as the file takes it: a reference, its value in the environment. */
    const ref = (value: string) => {
      const name = `SECRET_${n++}`;
      env[name] = value;
      return `\${${name}}`;
    };
    const clean = (o: Json) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
    if (s.portfolios.length) file.portfolios = s.portfolios.map(clean);
    if (s.channels.length)
      file.channels = s.channels.map((c: Json) =>
        clean({
          ...c,
          ...(c.type === 'slack' && c.delivery_class === 'digest'
            ? { frequency_days: 1, notification_time: '09:00:00' }
            : {}),
          secret_key: c.secret_key && ref(c.secret_key),
          token: c.token && ref(c.token),
        }),
      );
    const domains = s.domains.map((d, i) => {
      const portfolio = s.portfolios[d.portfolioIndex]?.name;
      return clean({
        name: d.name,
        portfolio,
        notes: d.notes,
        dkim_selectors: d.dkim_selectors,
        manual_expiry: d.manual_expiry,
        endpoints: endpoints[i]!.map((e) => {
          const x = clean(e);
          if (x.liveness) {
            x.liveness = clean(x.liveness);
            const a = x.liveness.auth;
            if (a)
              x.liveness.auth =
                a.type === 'basic' ? { ...a, password: ref(a.password) } : { ...a, token: ref(a.token) };
          }
          return x;
        }),
      });
    });
    if (domains.length) file.domains = domains;
    const inPortfolio = (p: string | undefined) =>
      domains.filter((d) => p && d.portfolio === p).flatMap((d) => d.endpoints.map((e: Json) => `${d.name}/${e.name}`));
    if (s.page && s.portfolios.length) {
      const p = s.portfolios[0]!.name;
      file.status_pages = [
        {
          slug: 'public',
          title: 'Status',
          portfolio: p,
          endpoints: inPortfolio(p).map((endpoint, i) => ({ endpoint, display_name: `E${i}` })),
        },
      ];
    }
    // A window covers something: its endpoints, else its domains.
    const covered = domains.flatMap((d) => d.endpoints.map((e: Json) => `${d.name}/${e.name}`)).slice(0, 2);
    if (s.windows.length && domains.length)
      file.maintenance_windows = s.windows.map(({ withDomains, ...w }) =>
        clean({
          ...w,
          domains: withDomains || !covered.length ? domains.map((d) => d.name) : undefined,
          endpoints: covered.length ? covered : undefined,
        }),
      );
    return { file, env };
  });

/** The file with its objects in an export's order (by name; channels by type and class; pages by slug). */
function inExportOrder(file: Json): Json {
  const by = (key: (x: Json) => string) => (a: Json, b: Json) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  const out = structuredClone(file);
  out.portfolios?.sort(by((x) => x.name));
  out.channels?.sort(by((x) => `${x.type}\u0000${x.delivery_class ?? 'instant'}`));
  out.domains?.sort(by((x) => x.name));
  for (const d of out.domains ?? []) d.endpoints?.sort(by((x) => x.name));
  out.status_pages?.sort(by((x) => x.slug));
  out.maintenance_windows?.sort(by((x) => x.name));
  return out;
}

/**
 * Every value `want` sets is in `got`, but an empty list or map, or a value at the schema's default, may
 * be left out, and a secret or credential is a `${DOMMON_...}` reference there.
 */
function missing(got: unknown, want: unknown, at = ''): string[] {
  const field = at.slice(at.lastIndexOf('.') + 1);
  if (got === undefined && DEFAULTS.has(`${field}=${JSON.stringify(want)}`)) return [];
  if (typeof want === 'string' && (/^\$\{SECRET_\d+\}$/.test(want) || WRITE_ONLY.has(field)))
    return typeof got === 'string' && /^\$\{DOMMON_[A-Z0-9_]+\}$/.test(got)
      ? []
      : [`${at}: ${String(got)} is not a reference`];
  if (want && typeof want === 'object') {
    if (got === undefined && Object.keys(want).length === 0) return []; // an empty list or map is left out
    if (!got || typeof got !== 'object') return [`${at}: missing`];
    if (Array.isArray(want) && (got as unknown[]).length !== want.length)
      return [`${at}: ${(got as unknown[]).length} items`];
    return Object.entries(want).flatMap(([k, v]) => missing((got as Json)[k], v, `${at}.${k}`));
  }
  return JSON.stringify(got) === JSON.stringify(want)
    ? []
    : [`${at}: ${JSON.stringify(got)}, not ${JSON.stringify(want)}`];
}

/** A value for each reference of an export (the second team's environment). */
const valuesFor = (secrets: { name: string }[]) =>
  Object.fromEntries(
    secrets.map(({ name }) => [
      name,
      name.endsWith('_WEBHOOK_URL') ? 'https://hooks.example.test/w' : name.endsWith('_TOPIC') ? 'topic-1x' : 'v4lue',
    ]),
  );

t.setTimeout(180_000);

t.test('random setups: export holds the file, and export -> apply -> export is the same file', async (t: Test) => {
  // Status page slugs are unique across teams (they are public addresses): the second apply goes to
  // another data directory, as an export moved to another installation does.
  const s = await startApp();
  const other = await startApp();
  t.teardown(async () => {
    await s.close();
    await other.close();
  });
  let team = 0;
  const runs = Number(process.env.DOMMON_PROPERTY_RUNS ?? 20);
  await fc.assert(
    fc.asyncProperty(setup, async ({ file, env }) => {
      const name = `rt-${team++}`;
      const a = { url: s.url, token: await s.token(name) };
      const b = { url: other.url, token: await other.token(name) };
      for (const p of file.status_pages ?? []) p.slug = `${p.slug}-${name}`;
      const apply = (to: typeof a, text: string, values: Record<string, string>, q = '') =>
        request(to.url, 'POST', `/api/v1/config/apply${q}`, {
          token: to.token,
          body: { file: text, filename: 'f.yaml', env: values },
        });
      const exportOf = async (to: typeof a) =>
        (await request(to.url, 'GET', '/api/v1/config/export', { token: to.token })).body;

      const first = await apply(a, stringify(file), env);
      if (first.status !== 200) throw new Error(`the setup was refused: ${JSON.stringify(first.body)}`);
      const out = await exportOf(a);
      const problems = missing(parse(out.file), inExportOrder(file));
      if (problems.length) throw new Error(`the export lost values:\n${problems.join('\n')}\n${out.file}`);
      for (const v of Object.values(env))
        if (out.file.includes(v)) throw new Error(`a secret's value is in the export: ${v}`);

      const values = valuesFor(out.secrets);
      const own = await apply(a, out.file, values, '?dry_run=true');
      // The references' values here are not the stored ones: only secrets and credentials may differ.
      for (const step of own.body.steps ?? [])
        for (const c of step.changes ?? [])
          if (c.from !== '********' && !['config.webhook_url', 'config.topic'].includes(c.field))
            throw new Error(
              `applying its own export changes ${step.kind} ${step.name} ${c.field}: ${JSON.stringify(c)}`,
            );

      const second = await apply(b, out.file, values);
      if (second.status !== 200) throw new Error(`the export was refused: ${JSON.stringify(second.body)}\n${out.file}`);
      const again = await exportOf(b);
      if (again.file !== out.file)
        throw new Error(`export -> apply -> export differs:\n${out.file}\n---\n${again.file}`);
    }),
    { numRuns: runs, seed: process.env.DOMMON_PROPERTY_SEED ? Number(process.env.DOMMON_PROPERTY_SEED) : undefined },
  );
  t.pass(`${runs} random setups round-tripped`);
});
