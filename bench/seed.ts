// Seeds one team with one domain and N http endpoints with a liveness config each (bench/probes,
// bench/cluster): rows written straight through the store in one transaction, as an import would;
// with `conditions`, every config judges the target's JSON body by them.
import crypto from 'node:crypto';
import type { Config } from '../src/config/index.js';
import { openLocal } from '../src/app.js';
import { domainRow } from '../test/support/rows.js';

export async function seedLiveness(
  config: Readonly<Config>,
  o: { n: number; interval: number; port: number; hosts: number; conditions?: string[]; domains?: boolean },
): Promise<void> {
  const { store, services } = await openLocal(config);
  const { team_id } = await services.access.createToken({ team: 'bench' });
  const now = new Date().toISOString();
  await store.transaction(async (tx) => {
    // With `domains`, every config is on a domain of its own (each a new domain for the intel scheduler).
    const addDomain = async (name: string) => {
      const id = crypto.randomUUID();
      await tx.domains.insert(domainRow({ id, team_id, domain: name, token: 'dommon-verify-bench', at: now }));
      return id;
    };
    const shared = o.domains ? null : await addDomain('bench.example.com');
    for (let i = 0; i < o.n; i++) {
      const domainId = shared ?? (await addDomain(`bench-${i}.example.com`));
      const id = crypto.randomUUID();
      await tx.endpoints.insert({
        id,
        team_id,
        domain_id: domainId,
        name: `e${i}`,
        endpoint_type: 'http',
        subdomain: `h${i % o.hosts}`,
        // With conditions the target answers a JSON body on /json... (bench/probe-target.ts).
        path: o.conditions ? `/json${i}` : `/p${i}`,
        port: o.port,
        is_enabled: true,
        timeout_seconds: 10,
        notes: null,
        created_at: now,
        updated_at: now,
      });
      await tx.db
        .insertInto('liveness_configs')
        .values({
          id: crypto.randomUUID(),
          seq: i + 1,
          team_id,
          endpoint_id: id,
          is_enabled: 1,
          timeout_seconds: 10,
          expected_status_code: 200,
          interval_seconds: o.interval,
          failure_threshold: 1,
          confirm_from: 1,
          ...(o.conditions && { conditions: JSON.stringify(o.conditions) }),
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
  });
  await store.close();
}
