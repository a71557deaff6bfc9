// The whole schema, designed once: every resource of the spec and the tables later workers fill.
import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: ColumnDefinitionBuilder) => c.notNull();
  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('created_at', 'text', ts)
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', ts)
    .addUniqueConstraint('users_team_email', ['team_id', 'email'])
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', ts)
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();

  // Bumped on every revoke so a running daemon drops its token cache without a per-request query.
  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('portfolios')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', ts)
    .addColumn('updated_at', 'text', ts)
    .execute();
  await db.schema.createIndex('portfolios_team').on('portfolios').columns(['team_id', 'created_at']).execute();

  await db.schema
    .createTable('domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('portfolio_id', 'text', (c) => c.references('portfolios.id').onDelete('restrict'))
    .addColumn('notes', 'text')
    .addColumn('is_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('verified_at', 'text')
    .addColumn('verification_token', 'text', (c) => c.notNull())
    .addColumn('health_score', 'integer')
    .addColumn('health_grade', 'text')
    .addColumn('overall_status', 'text')
    .addColumn('exposure_monitoring_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expiry_override', 'text')
    .addColumn('dkim_selectors', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', ts)
    .addColumn('updated_at', 'text', ts)
    .addUniqueConstraint('domains_team_domain', ['team_id', 'domain'])
    .execute();
  await db.schema.createIndex('domains_team_created').on('domains').columns(['team_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('domains_portfolio').on('domains').column('portfolio_id').execute();

  // Latest registration (RDAP/WHOIS) state of a domain; history rows keep what changed.
  await db.schema
    .createTable('domain_registrations')
    .addColumn('domain_id', 'text', (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
    .addColumn('source', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('unknown'))
    .addColumn('reason', 'text')
    .addColumn('registrar', 'text')
    .addColumn('expiry_date', 'text')
    .addColumn('creation_date', 'text')
    .addColumn('updated_date', 'text')
    .addColumn('nameservers', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('statuses', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('transfer_lock', 'integer')
    .addColumn('dnssec_signed', 'integer')
    .addColumn('checked_at', 'text')
    .addColumn('next_check_at', 'text')
    .execute();
  await db.schema
    .createTable('registration_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('old_value', 'text')
    .addColumn('new_value', 'text')
    .addColumn('observed_at', 'text', ts)
    .execute();
  await db.schema.createIndex('registration_history_domain').on('registration_history').columns(['domain_id', 'observed_at']).execute();

  await db.schema
    .createTable('domain_security')
    .addColumn('domain_id', 'text', (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
    .addColumn('spf', 'text')
    .addColumn('dmarc', 'text')
    .addColumn('dkim', 'text')
    .addColumn('caa', 'text')
    .addColumn('dnssec_enabled', 'integer')
    .addColumn('security_score', 'integer')
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('recommendations', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('checked_at', 'text')
    .addColumn('next_check_at', 'text')
    .execute();

  await db.schema
    .createTable('endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('endpoint_type', 'text', (c) => c.notNull())
    .addColumn('subdomain', 'text')
    .addColumn('path', 'text')
    .addColumn('port', 'integer')
    .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('timeout_seconds', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('notes', 'text')
    .addColumn('created_at', 'text', ts)
    .addColumn('updated_at', 'text', ts)
    .addUniqueConstraint('endpoints_domain_name', ['domain_id', 'name'])
    .execute();
  await db.schema.createIndex('endpoints_team_created').on('endpoints').columns(['team_id', 'created_at', 'id']).execute();

  // Latest TLS inspection of an endpoint, and every certificate ever seen on it.
  await db.schema
    .createTable('endpoint_certificates')
    .addColumn('endpoint_id', 'text', (c) => c.primaryKey().references('endpoints.id').onDelete('cascade'))
    .addColumn('ssl_status', 'text', (c) => c.notNull().defaultTo('unknown'))
    .addColumn('subject', 'text')
    .addColumn('issuer', 'text')
    .addColumn('sans', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('not_before', 'text')
    .addColumn('not_after', 'text')
    .addColumn('serial', 'text')
    .addColumn('fingerprint256', 'text')
    .addColumn('protocol', 'text')
    .addColumn('trusted', 'integer')
    .addColumn('hostname_match', 'integer')
    .addColumn('error', 'text')
    .addColumn('alerted_window', 'integer')
    .addColumn('checked_at', 'text')
    .addColumn('next_check_at', 'text')
    .execute();
  await db.schema
    .createTable('certificate_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('endpoints.id').onDelete('cascade'))
    .addColumn('fingerprint256', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('issuer', 'text')
    .addColumn('not_before', 'text')
    .addColumn('not_after', 'text')
    .addColumn('first_seen', 'text', ts)
    .addColumn('last_seen', 'text', ts)
    .addUniqueConstraint('certificate_history_endpoint_fp', ['endpoint_id', 'fingerprint256'])
    .execute();

  await db.schema
    .createTable('liveness_configs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Small integer key for the high-volume result and aggregate tables (keeps a check under 40 bytes).
    .addColumn('seq', 'integer', (c) => c.notNull().unique())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().unique().references('endpoints.id').onDelete('cascade'))
    .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('timeout_seconds', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('expected_status_code', 'integer', (c) => c.notNull().defaultTo(200))
    .addColumn('interval_seconds', 'integer', (c) => c.notNull().defaultTo(60))
    .addColumn('failure_threshold', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', ts)
    .addColumn('updated_at', 'text', ts)
    .execute();
  await db.schema.createIndex('liveness_team_created').on('liveness_configs').columns(['team_id', 'created_at', 'id']).execute();

  // Raw results, bounded by retention: integer keys, epoch-ms time, no separate index (WITHOUT ROWID).
  await sql`create table liveness_results (
    cfg integer not null references liveness_configs(seq) on delete cascade,
    ts integer not null,
    ok integer not null,
    ms integer not null,
    status integer,
    error text,
    primary key (cfg, ts)
  ) without rowid`.execute(db);

  // Aggregates answer every stats/uptime query: bucket = epoch hour (kept 48 h) or epoch day (kept a year).
  for (const t of ['liveness_hourly', 'liveness_daily']) {
    await sql`create table ${sql.table(t)} (
      cfg integer not null references liveness_configs(seq) on delete cascade,
      bucket integer not null,
      total integer not null default 0,
      ok integer not null default 0,
      sum_ms integer not null default 0,
      primary key (cfg, bucket)
    ) without rowid`.execute(db);
  }

  await db.schema
    .createTable('liveness_state')
    .addColumn('config_id', 'text', (c) => c.primaryKey().references('liveness_configs.id').onDelete('cascade'))
    .addColumn('status', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_check', 'text')
    .addColumn('last_check_successful', 'integer')
    .addColumn('response_time_ms', 'integer')
    .addColumn('status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('alerted_down', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('notification_settings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('notification_type', 'text', (c) => c.notNull())
    .addColumn('delivery_class', 'text', (c) => c.notNull())
    .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('frequency_days', 'integer')
    .addColumn('notification_time', 'text')
    .addColumn('config', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('min_severity', 'text', (c) => c.notNull().defaultTo('medium'))
    .addColumn('last_digest_at', 'text')
    .addColumn('created_at', 'text', ts)
    .addColumn('updated_at', 'text', ts)
    .addUniqueConstraint('notification_settings_user_type_class', ['user_id', 'notification_type', 'delivery_class'])
    .execute();

  // The durable outbox: an event is written in the same transaction as the state change causing it.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('category', 'text')
    .addColumn('domain_id', 'text')
    .addColumn('endpoint_id', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('dedupe_key', 'text')
    .addColumn('created_at', 'text', ts)
    .addColumn('fanned_out_at', 'text')
    .execute();
  await db.schema.createIndex('events_pending').on('events').columns(['fanned_out_at', 'created_at']).execute();
  await db.schema.createIndex('events_dedupe').on('events').columns(['team_id', 'dedupe_key']).unique().where(sql.ref('dedupe_key'), 'is not', null).execute();

  // One row per (event, channel destination); attempts and leases make delivery at-least-once.
  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.references('events.id').onDelete('cascade'))
    .addColumn('setting_id', 'text', (c) => c.references('notification_settings.id').onDelete('set null'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text')
    .addColumn('is_test', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('request', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', ts)
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('message_preview', 'text')
    .addColumn('error_message', 'text')
    .addColumn('metadata', 'text')
    .addColumn('created_at', 'text', ts)
    .addColumn('sent_at', 'text')
    .addUniqueConstraint('deliveries_event_setting', ['event_id', 'setting_id'])
    .execute();
  await db.schema.createIndex('deliveries_due').on('deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('deliveries_team_created').on('deliveries').columns(['team_id', 'created_at']).execute();
  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', ts)
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer')
    .execute();
  await db.schema.createIndex('delivery_attempts_delivery').on('delivery_attempts').column('delivery_id').execute();

  await db.schema
    .createTable('exposure_scans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull().defaultTo('schedule'))
    .addColumn('started_at', 'text', ts)
    .addColumn('finished_at', 'text')
    .addColumn('findings_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('exposure_scans_domain').on('exposure_scans').columns(['domain_id', 'started_at']).execute();
  await db.schema
    .createTable('exposure_findings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain_id', 'text', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('scan_id', 'text', (c) => c.references('exposure_scans.id').onDelete('set null'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('remediation', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('first_seen', 'text', ts)
    .addColumn('last_seen', 'text', ts)
    .addColumn('resolved_at', 'text')
    .addUniqueConstraint('exposure_findings_domain_fp', ['domain_id', 'fingerprint'])
    .execute();

  // Per-domain / per-endpoint schedule of the refresh workers (registration, tls, dns, verify, exposure).
  await db.schema
    .createTable('check_schedule')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('next_run_at', 'text', (c) => c.notNull())
    .addColumn('last_run_at', 'text')
    .addColumn('last_outcome', 'text')
    .addColumn('lease_until', 'text')
    .addPrimaryKeyConstraint('check_schedule_pk', ['kind', 'target_id'])
    .execute();
  await db.schema.createIndex('check_schedule_due').on('check_schedule').columns(['kind', 'next_run_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
