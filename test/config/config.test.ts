// Configuration: defaults, flags over variables, one test per invalid DOMMON_* rule, and the CLI's
// exit code 2 with a one-line message for a bad value.
import path from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { PASSWORD_COST_DEFAULT } from '../../src/services/passwords.js';
import { tempDir } from '../support/app.js';
import { dommon, ensureBuilt } from '../support/cli.js';

// The file spawns Node processes: allow more than tap's 30 s per file on a loaded machine.
t.setTimeout(240_000);

t.test('defaults and precedence', async (t) => {
  const c = loadConfig({}, {});
  t.equal(c.host, '127.0.0.1');
  t.equal(c.port, 8080);
  t.equal(c.dataDir, path.resolve('.dommon'));
  t.equal(c.dbPath, path.join(path.resolve('.dommon'), 'dommon.db'));
  t.equal(c.rateLimit, 100);
  t.equal(c.maxDomains, null);
  t.equal(c.maxEndpoints, null);
  t.equal(c.verifyInterval, 300);
  t.equal(c.checkInterval, 21600);
  t.equal(c.notifyInterval, 5);
  t.equal(c.logLevel, 'info');
  t.equal(c.smtpFrom, 'dommon@localhost');
  t.equal(c.smtpTls, 'verify-if-offered');
  t.equal(c.pushoverUrl, 'https://api.pushover.net');
  t.same(c.dnsServers, []);
  t.equal(c.whoisServer, null);
  t.same(c.whoisServers, {});
  t.equal(c.ianaWhois, 'whois.iana.org:43');
  t.ok(Object.isFrozen(c));
  const w = loadConfig(
    {},
    {
      DOMMON_WHOIS_SERVERS: 'rs=whois.rnids.rs, .BG=127.0.0.1:4343,uk.com=[::1]:43',
      DOMMON_IANA_WHOIS: '127.0.0.1:4344',
    },
  );
  t.same(w.whoisServers, { rs: 'whois.rnids.rs', bg: '127.0.0.1:4343', 'uk.com': '[::1]:43' });
  t.equal(w.ianaWhois, '127.0.0.1:4344');
  const env = {
    DOMMON_HOST: '0.0.0.0',
    DOMMON_PORT: '9000',
    DOMMON_DATA_DIR: '/tmp/env-dir',
    DOMMON_LOG_LEVEL: 'warn',
  };
  const e = loadConfig({}, env);
  t.match(e, { host: '0.0.0.0', port: 9000, dataDir: '/tmp/env-dir', logLevel: 'warn' });
  const f = loadConfig({ host: '::1', port: '0', dataDir: '/tmp/flag-dir', logLevel: 'DEBUG' }, env);
  t.match(f, { host: '::1', port: 0, dataDir: '/tmp/flag-dir', logLevel: 'debug' }, 'a flag wins over the variable');
  const full = loadConfig(
    {},
    {
      DOMMON_DNS_SERVERS: '127.0.0.1:5353, 10.0.0.1,[::1]:53',
      DOMMON_WHOIS_SERVER: 'localhost:4343',
      DOMMON_RDAP_URL: 'http://127.0.0.1:9/rdap/',
      DOMMON_SMTP_URL: 'smtp://u:p@127.0.0.1:2525',
      DOMMON_SMTP_FROM: 'Dommon <alerts@example.com>',
      DOMMON_RATE_LIMIT: '5',
      DOMMON_MAX_DOMAINS: '10',
      DOMMON_MAX_ENDPOINTS: 'unlimited',
      DOMMON_VERIFY_INTERVAL: '1',
      DOMMON_CHECK_INTERVAL: '60',
      DOMMON_NOTIFY_INTERVAL: '2',
    },
  );
  t.same(full.dnsServers, ['127.0.0.1:5353', '10.0.0.1', '[::1]:53']);
  t.match(full, {
    whoisServer: 'localhost:4343',
    rdapUrl: 'http://127.0.0.1:9/rdap',
    smtpUrl: 'smtp://u:p@127.0.0.1:2525',
    smtpFrom: 'Dommon <alerts@example.com>',
    smtpTls: 'require',
    rateLimit: 5,
    maxDomains: 10,
    maxEndpoints: null,
    verifyInterval: 1,
    checkInterval: 60,
    notifyInterval: 2,
  });
});

// [variable, bad value, what the message must mention]
const invalid: [string, string, RegExp][] = [
  ['DOMMON_PORT', 'abc', /DOMMON_PORT/],
  ['DOMMON_PORT', '65536', /DOMMON_PORT/],
  ['DOMMON_PORT', '-1', /DOMMON_PORT/],
  ['DOMMON_PORT', '80.5', /DOMMON_PORT/],
  ['DOMMON_HOST', 'not a host', /DOMMON_HOST/],
  ['DOMMON_LOG_LEVEL', 'verbose', /DOMMON_LOG_LEVEL/],
  ['DOMMON_DNS_SERVERS', '8.8.8.8,not a server', /DOMMON_DNS_SERVERS/],
  ['DOMMON_DNS_SERVERS', '127.0.0.1:99999', /DOMMON_DNS_SERVERS/],
  ['DOMMON_WHOIS_SERVER', 'whois:port', /DOMMON_WHOIS_SERVER/],
  ['DOMMON_WHOIS_SERVER', 'localhost:0', /DOMMON_WHOIS_SERVER/],
  ['DOMMON_WHOIS_SERVERS', 'whois.rnids.rs', /DOMMON_WHOIS_SERVERS: "whois.rnids.rs" is not tld=host\[:port\]/],
  ['DOMMON_WHOIS_SERVERS', 'rs=', /DOMMON_WHOIS_SERVERS/],
  ['DOMMON_WHOIS_SERVERS', 'r s=host', /DOMMON_WHOIS_SERVERS/],
  ['DOMMON_WHOIS_SERVERS', 'rs=host:99999', /DOMMON_WHOIS_SERVERS/],
  ['DOMMON_IANA_WHOIS', 'iana whois', /DOMMON_IANA_WHOIS/],
  ['DOMMON_RDAP_URL', 'not a url', /DOMMON_RDAP_URL/],
  ['DOMMON_RDAP_URL', 'ftp://rdap.example', /DOMMON_RDAP_URL/],
  ['DOMMON_SMTP_URL', 'http://mail.example', /DOMMON_SMTP_URL/],
  ['DOMMON_SMTP_FROM', 'not-an-address', /DOMMON_SMTP_FROM/],
  ['DOMMON_SMTP_TLS', 'strict', /DOMMON_SMTP_TLS must be one of require, verify-if-offered, insecure, got "strict"/],
  ['DOMMON_SMTP_TLS', 'true', /DOMMON_SMTP_TLS/],
  ['DOMMON_PUSHOVER_URL', 'pushover', /DOMMON_PUSHOVER_URL/],
  ['DOMMON_RATE_LIMIT', '0', /DOMMON_RATE_LIMIT/],
  ['DOMMON_RATE_LIMIT', 'many', /DOMMON_RATE_LIMIT/],
  ['DOMMON_MAX_DOMAINS', '-5', /DOMMON_MAX_DOMAINS/],
  ['DOMMON_MAX_DOMAINS', 'lots', /DOMMON_MAX_DOMAINS/],
  ['DOMMON_MAX_ENDPOINTS', '1e3', /DOMMON_MAX_ENDPOINTS/],
  ['DOMMON_VERIFY_INTERVAL', '0', /DOMMON_VERIFY_INTERVAL/],
  ['DOMMON_CHECK_INTERVAL', '1h', /DOMMON_CHECK_INTERVAL/],
  ['DOMMON_NOTIFY_INTERVAL', '0', /DOMMON_NOTIFY_INTERVAL/],
  ['DOMMON_URL', 'localhost:8080', /DOMMON_URL/],
  ['DOMMON_PUBLIC_URL', 'dommon.example.com', /DOMMON_PUBLIC_URL is not a valid URL/],
  ['DOMMON_PUBLIC_URL', 'ftp://dommon.example.com', /DOMMON_PUBLIC_URL must use http: or https:/],
  ['DOMMON_PUBLIC_URL', 'https://dommon.example.com/?x=1', /DOMMON_PUBLIC_URL must be a base URL/],
  ['DOMMON_PUBLIC_URL', 'https://user:pw@dommon.example.com', /DOMMON_PUBLIC_URL must be a base URL/],
  ['DOMMON_TRUST_PROXY', 'maybe', /DOMMON_TRUST_PROXY must be true or false/],
  ['DOMMON_AUTH_FAILURE_LIMIT', '0', /DOMMON_AUTH_FAILURE_LIMIT/],
  ['DOMMON_SESSION_IDLE_HOURS', '0', /DOMMON_SESSION_IDLE_HOURS/],
  ['DOMMON_SESSION_MAX_DAYS', '400', /DOMMON_SESSION_MAX_DAYS/],
  ['DOMMON_PASSWORD_COST', '11', /DOMMON_PASSWORD_COST must be between 12 and 20, got 11/],
  ['DOMMON_PASSWORD_COST', '21', /DOMMON_PASSWORD_COST must be between 12 and 20, got 21/],
  ['DOMMON_PASSWORD_COST', '2^17', /DOMMON_PASSWORD_COST must be a whole number/],
];

t.test('sessions, passwords, the failure throttle and --trust-proxy: defaults, variables, the flag', async (t) => {
  const d = loadConfig({}, {});
  t.equal(d.trustProxy, false, 'X-Forwarded-* ignored unless asked for');
  t.equal(d.authFailureLimit, 20);
  t.same(d.session, { idleMs: 12 * 3_600_000, absoluteMs: 7 * 86_400_000 });
  t.equal(d.passwordCost, 17, 'scrypt at N = 2^17 by default');
  t.equal(d.passwordCost, PASSWORD_COST_DEFAULT, "the services' own default is the same");
  const env = {
    DOMMON_TRUST_PROXY: 'yes',
    DOMMON_AUTH_FAILURE_LIMIT: '5',
    DOMMON_SESSION_IDLE_HOURS: '1',
    DOMMON_SESSION_MAX_DAYS: '2',
    DOMMON_PASSWORD_COST: '12',
  };
  const c = loadConfig({}, env);
  t.equal(c.trustProxy, true);
  t.equal(c.authFailureLimit, 5);
  t.same(c.session, { idleMs: 3_600_000, absoluteMs: 2 * 86_400_000 });
  t.equal(c.passwordCost, 12);
  t.equal(loadConfig({}, { DOMMON_PASSWORD_COST: '20' }).passwordCost, 20);
  t.equal(loadConfig({ trustProxy: true }, {}).trustProxy, true, '--trust-proxy');
  t.equal(loadConfig({}, { DOMMON_TRUST_PROXY: 'off' }).trustProxy, false);
});

t.test('--public-url / DOMMON_PUBLIC_URL: a base URL, normalised; unset by default', async (t) => {
  t.equal(loadConfig({}, {}).publicUrl, null, 'the request origin is the fallback');
  t.equal(loadConfig({}, { DOMMON_PUBLIC_URL: 'https://Dommon.Example.com/' }).publicUrl, 'https://dommon.example.com');
  t.equal(
    loadConfig({}, { DOMMON_PUBLIC_URL: 'https://example.com:8443/dommon/' }).publicUrl,
    'https://example.com:8443/dommon',
  );
  t.equal(
    loadConfig({ publicUrl: 'http://10.0.0.5:8080' }, { DOMMON_PUBLIC_URL: 'https://other.example' }).publicUrl,
    'http://10.0.0.5:8080',
    'the flag wins',
  );
  t.match(configError(() => loadConfig({ publicUrl: 'nope' }, {}))?.message, /^--public-url is not a valid URL/);
});

function configError(fn: () => unknown): Error | undefined {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  return undefined;
}

t.test('each invalid DOMMON_* value is a ConfigError naming the variable', async (t) => {
  for (const [name, value, mention] of invalid) {
    const err = configError(() => loadConfig({}, { [name]: value }));
    t.ok(err instanceof ConfigError, `${name}=${value} is a ConfigError`);
    t.match(err?.message, mention, `${name}=${value}: ${err?.message}`);
    t.notOk(err?.message.includes('\n'), 'one line');
  }
  t.ok(configError(() => loadConfig({ port: 'x' }, {})) instanceof ConfigError, '--port x');
  t.ok(configError(() => loadConfig({ logLevel: 'loud' }, {})) instanceof ConfigError, '--log-level loud');
  t.ok(configError(() => loadConfig({ remote: 'nope' }, {})) instanceof ConfigError, '--remote nope');
});

t.test('the CLI exits 2 with a one-line message on a bad variable', async (t) => {
  t.setTimeout(150_000); // each CLI run is a fresh Node process (~1 s on a loaded machine)
  await ensureBuilt();
  const dir = tempDir('dommon-config-');
  for (const [args, env] of [
    [['serve', '--port', '0'], { DOMMON_RATE_LIMIT: '0' }],
    [['serve'], { DOMMON_PORT: 'http' }],
    [['token', 'list'], { DOMMON_LOG_LEVEL: 'chatty' }],
    [['domains', 'list'], { DOMMON_MAX_DOMAINS: 'x' }],
    [['serve', '--port', '0'], { DOMMON_SMTP_TLS: 'off' }],
    [['users', 'set-password', 'ann@example.com'], { DOMMON_PASSWORD_COST: '21' }],
  ] as [string[], Record<string, string>][]) {
    const r = await dommon(['--data-dir', dir, ...args], env);
    const what = `${Object.entries(env)[0]!.join('=')} dommon ${args.join(' ')}`;
    t.equal(r.code, 2, what);
    t.equal(r.stdout, '', `${what}: nothing on stdout`);
    const lines = r.stderr.trim().split('\n');
    t.equal(lines.length, 1, `${what}: one line: ${r.stderr}`);
    t.match(lines[0], new RegExp(Object.keys(env)[0]!), `${what}: names the variable`);
  }
  const flag = await dommon(['--data-dir', dir, 'serve', '--port', '99999']);
  t.equal(flag.code, 2, '--port 99999');
  t.equal(flag.stderr.trim().split('\n').length, 1);
});

t.test('node settings: role, name and region (CONTRACT "Past one machine")', async (t) => {
  const d = loadConfig({}, {});
  t.equal(d.node.role, 'all');
  t.equal(d.node.region, 'default');
  t.match(d.node.name, new RegExp(`-${process.pid}$`), 'default name: host name + pid');
  t.match(d.node.name, /^[A-Za-z0-9][A-Za-z0-9._:-]*$/);
  const env = { DOMMON_ROLE: 'Worker', DOMMON_NODE_NAME: 'eu-1', DOMMON_NODE_REGION: 'eu-west' };
  t.same(loadConfig({}, env).node, { role: 'worker', name: 'eu-1', region: 'eu-west' });
  t.same(
    loadConfig({ role: 'api', nodeName: 'front:2', region: 'us' }, env).node,
    { role: 'api', name: 'front:2', region: 'us' },
    'flags win over variables',
  );
  for (const [flags, env, mention] of [
    [{}, { DOMMON_ROLE: 'scheduler' }, /DOMMON_ROLE must be one of all, api, worker/],
    [{ role: 'both' }, {}, /--role must be one of/],
    [{}, { DOMMON_NODE_NAME: 'has space' }, /DOMMON_NODE_NAME must be/],
    [{ nodeName: '-x' }, {}, /--node-name must be/],
    [{}, { DOMMON_NODE_NAME: 'x'.repeat(101) }, /DOMMON_NODE_NAME/],
    [{}, { DOMMON_NODE_REGION: 'eu/west' }, /DOMMON_NODE_REGION must be/],
    [{ region: 'a"b' }, {}, /--region must be/],
  ] as [Record<string, string>, Record<string, string>, RegExp][]) {
    const err = configError(() => loadConfig(flags, env));
    t.ok(err instanceof ConfigError, String(err?.message));
    t.match(err?.message, mention);
  }
  const r = await dommon(['--data-dir', tempDir('dommon-config-'), 'serve', '--port', '0', '--role', 'boss']);
  t.equal(r.code, 2, '--role boss: exit 2');
  t.match(r.stderr.trim(), /^dommon: --role must be one of all, api, worker, got "boss"$/);
});

t.test('the database URL as logs and output show it: user-info and secret query parameters masked', async (t) => {
  const show = (url: string) => loadConfig({}, { DOMMON_DATABASE_URL: url }).database!.redacted;
  t.equal(show('postgres://u:pw@db.example:5432/x'), 'postgres://u:***@db.example:5432/x');
  t.equal(
    show('postgres://u@db.example/x?sslmode=require&password=p%26w&application_name=dommon'),
    'postgres://u@db.example/x?sslmode=require&password=***&application_name=dommon',
  );
  t.equal(
    show('postgresql://db.example/x?user=u&sslpassword=k&passfile=/p&sslkey=/k.pem&%70assword=z'),
    'postgresql://db.example/x?user=u&sslpassword=***&passfile=***&sslkey=***&%70assword=***',
  );
  t.equal(show('postgres:///x?host=/run/postgresql&password=s'), 'postgres:///x?host=/run/postgresql&password=***');
});
