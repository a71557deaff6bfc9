// A configuration file that manages one of each kind of object, applied the way `dommon serve --config`
// applies it: the fixture of the managed-objects tests (test/api/managed-reads, test/web/browser-managed).
import type { TestApp } from './app.js';
import { applyConfigText } from '../../src/api/config-apply.js';

const FILE = '/etc/dommon/dommon.yaml';

/** The file, for team `gitops`: a portfolio, an e-mail channel, a domain with an endpoint, a status page, a maintenance window. */
export const managedConfig = (editable: boolean) => `version: 1
${editable ? 'editable: true\n' : ''}portfolios:
  - name: Web
channels:
  - type: email
    recipients: [ops@example.com]
domains:
  - name: example.com
    portfolio: Web
    notes: from the file
    endpoints:
      - name: www
        type: https
        subdomain: www
        liveness: { interval_seconds: 3600 }
status_pages:
  - slug: managed-public
    title: Managed page
    portfolio: Web
maintenance_windows:
  - name: Patching
    cron: "0 3 * * 0"
    duration_minutes: 60
    domains: [example.com]
`;

/** Applies `body` to team `gitops` as `serve --config` does (prune limited to the file's objects, each marked); its plan. */
export async function serveApply(s: TestApp, body: string) {
  const principal = await s.app.services.access.configPrincipal('gitops');
  const r = await applyConfigText(
    { services: s.app.services, validator: s.app.validator },
    principal,
    body,
    FILE,
    {},
    { dryRun: false, prune: true, source: `config:${FILE}` },
  );
  if (!('plan' in r)) throw new Error(r.errors.join('\n'));
  return r.plan;
}
