// `dommon check` gives the daemon's certificate verdicts (the same domain rules): the chain's earliest
// expiry and which certificate it is, and a host named only in the common name is invalid.
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import t from 'tap';
import { startHttpTarget, startLoopbackDns } from '../support/targets.js';
import { issue, makeCa, makeIntermediate } from '../support/certs.js';
import { loadConfig } from '../../src/config/index.js';
import { createCheckEngine } from '../../src/app.js';
import { parseTarget } from '../../src/cli/check/targets.js';
import { runChecks } from '../../src/cli/check/index.js';

t.test('check: earliest expiry of the chain, CN without SAN', async (t) => {
  const dns = await startLoopbackDns();
  const root = makeCa('Check Verdict Root');
  const mid = makeIntermediate(root, 'Check Short Intermediate', { toDays: 5 });
  const leaf = issue({ ca: mid, cn: 'www.chain.test', toDays: 90 });
  const chained = await startHttpTarget({ tls: { cert: leaf.cert + mid.cert, key: leaf.key } });
  const cnOnly = await startHttpTarget({ tls: issue({ ca: root, cn: 'www.cn.test', sans: null, toDays: 90 }) });
  const env = {
    DOMMON_DNS_SERVERS: dns.server,
    DOMMON_DATA_DIR: path.join(os.tmpdir(), `dommon-check-verdicts-${process.pid}`),
  };
  const engine = createCheckEngine(loadConfig({}, env), { ca: [root.cert] });
  t.teardown(async () => {
    engine.close();
    await chained.close();
    await cnOnly.close();
    await dns.close();
  });
  const targets = [`https://www.chain.test:${chained.port}/`, `https://www.cn.test:${cnOnly.port}/`];
  const r = await runChecks(targets.map(parseTarget), engine, ['tls'], {
    warnDays: 30,
    critDays: 7,
    minSecurity: 50,
    expectedStatus: null,
    timeoutMs: 5000,
    now: () => new Date(),
  });
  const [a, b] = r.targets.map((x) => Object.fromEntries(x.checks.map((c) => [c.check, c])));
  const midNotAfter = new Date(new crypto.X509Certificate(mid.cert).validTo).toISOString();
  t.match(a!.tls, {
    status: 'critical',
    summary: new RegExp(
      `^intermediate certificate CN=Check Short Intermediate expires in [45] day\\(s\\) \\(${midNotAfter.slice(0, 10)}\\), expiring_soon$`,
    ),
    details: {
      ssl_status: 'expiring_soon',
      earliest_expiry: { role: 'intermediate', position: 1, not_after: midNotAfter },
    },
  });
  t.match(b!.tls, {
    status: 'critical',
    summary: /^certificate invalid: the certificate has no subjectAltName: browsers and Go no longer accept/,
    details: { ssl_status: 'invalid', hostname_match: false, has_san: false },
  });
});
