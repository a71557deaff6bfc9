// Versioned migrations, applied in order on open; each runs in its own transaction and only moves forward.
// One sequence for SQLite and PostgreSQL (engine.ts). 002-005 were never used; databases record names, so the gap stays.
import type { Migration, MigrationProvider } from 'kysely';
import * as m001 from './001_initial.js';
import * as m006 from './006_exposure.js';
import * as m007 from './007_delivery_log_order.js';
import * as m008 from './008_status_pages.js';
import * as m009 from './009_nodes.js';
import * as m010 from './010_token_scope.js';
import * as m011 from './011_events_team.js';
import * as m012 from './012_certificate_chain.js';
import * as m013 from './013_liveness_due.js';
import * as m014 from './014_shared_state.js';
import * as m015 from './015_regions.js';
import * as m016 from './016_fillfactor.js';
import * as m017 from './017_results_cascade.js';
import * as m018 from './018_autovacuum.js';
import * as m020 from './020_web_sessions.js';
import * as m021 from './021_token_operator.js';
import * as m022 from './022_endpoint_settings.js';
import * as m023 from './023_push.js';
import * as m024 from './024_liveness_requests.js';
import * as m025 from './025_maintenance_windows.js';
import * as m026 from './026_domain_delegations.js';
import * as m027 from './027_nodes_work_regional.js';
import * as m028 from './028_roles.js';
import * as m029 from './029_result_detail.js';
import * as m030 from './030_audit_log.js';
import * as m031 from './031_config_managed.js';
import * as m032 from './032_accounts.js';
import * as m033 from './033_one_time_links.js';
import * as m034 from './034_passkeys.js';
import * as m035 from './035_sso_memberships.js';
import * as m036 from './036_deliveries_claimable.js';

export const MIGRATIONS: Record<string, Migration> = {
  '001_initial': m001,
  '006_exposure': m006,
  '007_delivery_log_order': m007,
  '008_status_pages': m008,
  '009_nodes': m009,
  '010_token_scope': m010,
  '011_events_team': m011,
  '012_certificate_chain': m012,
  '013_liveness_due': m013,
  '014_shared_state': m014,
  '015_regions': m015,
  '016_fillfactor': m016,
  '017_results_cascade': m017,
  '018_autovacuum': m018,
  '020_web_sessions': m020,
  '021_token_operator': m021,
  '022_endpoint_settings': m022,
  '023_push': m023,
  '024_liveness_requests': m024,
  '025_maintenance_windows': m025,
  '026_domain_delegations': m026,
  '027_nodes_work_regional': m027,
  '028_roles': m028,
  '029_result_detail': m029,
  '030_audit_log': m030,
  '031_config_managed': m031,
  '032_accounts': m032,
  '033_one_time_links': m033,
  '034_passkeys': m034,
  '035_sso_memberships': m035,
  '036_deliveries_claimable': m036,
};

/**
 * Kysely's SQLite adapter runs migrations without a transaction, so each `up` gets its own:
 * a migration that fails leaves nothing half-applied.
 */
function inTransaction(m: Migration): Migration {
  // Dialects whose adapter already wraps the run (PostgreSQL) need no second transaction.
  return { ...m, up: (db) => (db.isTransaction ? m.up(db) : db.transaction().execute((trx) => m.up(trx))) };
}

export class StaticMigrationProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration> = MIGRATIONS) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(Object.entries(this.migrations).map(([name, m]) => [name, inTransaction(m)]));
  }
}
