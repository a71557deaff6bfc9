// The whole schema, designed once: every resource of the spec and the tables later workers fill.
import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import { columnTypes, engineOf } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  const ts = (c: ColumnDefinitionBuilder) => c.notNull();
  await db.schema
    .createTable('teams')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('name', T.text, (c) => c.notNull().unique())
    .addColumn('timezone', T.text, (c) => c.notNull().defaultTo('UTC'))
    .addColumn('created_at', T.text, ts)
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('email', T.text, (c) => c.notNull())
    .addColumn('created_at', T.text, ts)
    .addUniqueConstraint('users_team_email', ['team_id', 'email'])
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', T.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('prefix', T.text, (c) => c.notNull())
    .addColumn('token_hash', T.text, (c) => c.notNull().unique())
    .addColumn('created_at', T.text, ts)
    .addColumn('last_used_at', T.text)
    .addColumn('revoked_at', T.text)
    .execute();

  // Bumped on every revoke so a running daemon drops its token cache without a per-request query.
  await db.schema
    .createTable('meta')
    .addColumn('key', T.text, (c) => c.primaryKey())
    .addColumn('value', T.text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('portfolios')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('description', T.text)
    .addColumn('created_at', T.text, ts)
    .addColumn('updated_at', T.text, ts)
    .execute();
  await db.schema.createIndex('portfolios_team').on('portfolios').columns(['team_id', 'created_at']).execute();

  await db.schema
    .createTable('domains')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain', T.text, (c) => c.notNull())
    .addColumn('portfolio_id', T.text, (c) => c.references('portfolios.id').onDelete('restrict'))
    .addColumn('notes', T.text)
    .addColumn('is_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('verified_at', T.text)
    .addColumn('verification_token', T.text, (c) => c.notNull())
    .addColumn('health_score', 'integer')
    .addColumn('health_grade', T.text)
    .addColumn('overall_status', T.text)
    .addColumn('exposure_monitoring_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expiry_override', T.text)
    .addColumn('dkim_selectors', T.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', T.text, ts)
    .addColumn('updated_at', T.text, ts)
    .addUniqueConstraint('domains_team_domain', ['team_id', 'domain'])
    .execute();
  await db.schema.createIndex('domains_team_created').on('domains').columns(['team_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('domains_portfolio').on('domains').column('portfolio_id').execute();

  // Latest registration (RDAP/WHOIS) state of a domain; history rows keep what changed.
  await db.schema
    .createTable('domain_registrations')
    .addColumn('domain_id', T.text, (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
    .addColumn('source', T.text)
    .addColumn('state', T.text, (c) => c.notNull().defaultTo('unknown'))
    .addColumn('reason', T.text)
    .addColumn('registrar', T.text)
    .addColumn('expiry_date', T.text)
    .addColumn('creation_date', T.text)
    .addColumn('updated_date', T.text)
    .addColumn('nameservers', T.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('statuses', T.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('transfer_lock', 'integer')
    .addColumn('dnssec_signed', 'integer')
    .addColumn('checked_at', T.text)
    .addColumn('next_check_at', T.text)
    .execute();
  await db.schema
    .createTable('registration_history')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('domain_id', T.text, (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('field', T.text, (c) => c.notNull())
    .addColumn('old_value', T.text)
    .addColumn('new_value', T.text)
    .addColumn('observed_at', T.text, ts)
    .execute();
  await db.schema
    .createIndex('registration_history_domain')
    .on('registration_history')
    .columns(['domain_id', 'observed_at'])
    .execute();

  await db.schema
    .createTable('domain_security')
    .addColumn('domain_id', T.text, (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
    .addColumn('spf', T.text)
    .addColumn('dmarc', T.text)
    .addColumn('dkim', T.text)
    .addColumn('caa', T.text)
    .addColumn('dnssec_enabled', 'integer')
    .addColumn('security_score', 'integer')
    .addColumn('details', T.text, (c) => c.notNull().defaultTo('{}'))
    .addColumn('recommendations', T.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('checked_at', T.text)
    .addColumn('next_check_at', T.text)
    .execute();

  await db.schema
    .createTable('endpoints')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain_id', T.text, (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('endpoint_type', T.text, (c) => c.notNull())
    .addColumn('subdomain', T.text)
    .addColumn('path', T.text)
    .addColumn('port', 'integer')
    .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('timeout_seconds', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('notes', T.text)
    .addColumn('created_at', T.text, ts)
    .addColumn('updated_at', T.text, ts)
    .addUniqueConstraint('endpoints_domain_name', ['domain_id', 'name'])
    .execute();
  await db.schema
    .createIndex('endpoints_team_created')
    .on('endpoints')
    .columns(['team_id', 'created_at', 'id'])
    .execute();

  // Latest TLS inspection of an endpoint, and every certificate ever seen on it.
  await db.schema
    .createTable('endpoint_certificates')
    .addColumn('endpoint_id', T.text, (c) => c.primaryKey().references('endpoints.id').onDelete('cascade'))
    .addColumn('ssl_status', T.text, (c) => c.notNull().defaultTo('unknown'))
    .addColumn('subject', T.text)
    .addColumn('issuer', T.text)
    .addColumn('sans', T.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('not_before', T.text)
    .addColumn('not_after', T.text)
    .addColumn('serial', T.text)
    .addColumn('fingerprint256', T.text)
    .addColumn('protocol', T.text)
    .addColumn('trusted', 'integer')
    .addColumn('hostname_match', 'integer')
    .addColumn('error', T.text)
    .addColumn('alerted_window', 'integer')
    .addColumn('checked_at', T.text)
    .addColumn('next_check_at', T.text)
    .execute();
  await db.schema
    .createTable('certificate_history')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('endpoint_id', T.text, (c) => c.notNull().references('endpoints.id').onDelete('cascade'))
    .addColumn('fingerprint256', T.text, (c) => c.notNull())
    .addColumn('subject', T.text)
    .addColumn('issuer', T.text)
    .addColumn('not_before', T.text)
    .addColumn('not_after', T.text)
    .addColumn('first_seen', T.text, ts)
    .addColumn('last_seen', T.text, ts)
    .addUniqueConstraint('certificate_history_endpoint_fp', ['endpoint_id', 'fingerprint256'])
    .execute();

  await db.schema
    .createTable('liveness_configs')
    .addColumn('id', T.text, (c) => c.primaryKey())
    // Small integer key for the high-volume result and aggregate tables (keeps a check under 40 bytes).
    .addColumn('seq', 'integer', (c) => c.notNull().unique())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('endpoint_id', T.text, (c) => c.notNull().unique().references('endpoints.id').onDelete('cascade'))
    .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('timeout_seconds', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('expected_status_code', 'integer', (c) => c.notNull().defaultTo(200))
    .addColumn('interval_seconds', 'integer', (c) => c.notNull().defaultTo(60))
    .addColumn('failure_threshold', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', T.text, ts)
    .addColumn('updated_at', T.text, ts)
    .execute();
  await db.schema
    .createIndex('liveness_team_created')
    .on('liveness_configs')
    .columns(['team_id', 'created_at', 'id'])
    .execute();

  // Raw results, bounded by retention: integer keys, epoch-ms time, no separate index (WITHOUT ROWID on
  // SQLite). On PostgreSQL the table is partitioned by time (range on ts), so retention can drop whole
  // partitions; rows outside every day partition land in the default one.
  if (engineOf(db) === 'postgres') {
    await sql`create table liveness_results (
      cfg integer not null references liveness_configs(seq) on delete cascade,
      ts bigint not null,
      ok integer not null,
      ms integer not null,
      status integer,
      error text collate "C",
      primary key (cfg, ts)
    ) partition by range (ts)`.execute(db);
    await sql`create table liveness_results_default partition of liveness_results default`.execute(db);
  } else {
    await sql`create table liveness_results (
      cfg integer not null references liveness_configs(seq) on delete cascade,
      ts integer not null,
      ok integer not null,
      ms integer not null,
      status integer,
      error text,
      primary key (cfg, ts)
    ) without rowid`.execute(db);
  }

  // Aggregates answer every stats/uptime query: bucket = epoch hour or epoch day (retention: DOMMON_HOURLY_RETENTION_DAYS, DOMMON_DAILY_RETENTION_DAYS).
  const withoutRowid = engineOf(db) === 'postgres' ? sql`` : sql` without rowid`;
  for (const t of ['liveness_hourly', 'liveness_daily']) {
    await sql`create table ${sql.table(t)} (
      cfg integer not null references liveness_configs(seq) on delete cascade,
      bucket integer not null,
      total integer not null default 0,
      ok integer not null default 0,
      sum_ms ${sql.raw(engineOf(db) === 'postgres' ? 'bigint' : 'integer')} not null default 0,
      primary key (cfg, bucket)
    )${withoutRowid}`.execute(db);
  }

  await db.schema
    .createTable('liveness_state')
    .addColumn('config_id', T.text, (c) => c.primaryKey().references('liveness_configs.id').onDelete('cascade'))
    .addColumn('status', T.text)
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_check', T.text)
    .addColumn('last_check_successful', 'integer')
    .addColumn('response_time_ms', 'integer')
    .addColumn('status_code', 'integer')
    .addColumn('last_error', T.text)
    .addColumn('alerted_down', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('notification_settings')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', T.text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('notification_type', T.text, (c) => c.notNull())
    .addColumn('delivery_class', T.text, (c) => c.notNull())
    .addColumn('is_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('frequency_days', 'integer')
    .addColumn('notification_time', T.text)
    .addColumn('config', T.text, (c) => c.notNull().defaultTo('{}'))
    .addColumn('min_severity', T.text, (c) => c.notNull().defaultTo('medium'))
    .addColumn('last_digest_at', T.text)
    .addColumn('created_at', T.text, ts)
    .addColumn('updated_at', T.text, ts)
    .addUniqueConstraint('notification_settings_user_type_class', ['user_id', 'notification_type', 'delivery_class'])
    .execute();

  // The durable outbox: an event is written in the same transaction as the state change causing it.
  await db.schema
    .createTable('events')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('event_type', T.text, (c) => c.notNull())
    .addColumn('severity', T.text, (c) => c.notNull())
    .addColumn('category', T.text)
    .addColumn('domain_id', T.text)
    .addColumn('endpoint_id', T.text)
    .addColumn('message', T.text, (c) => c.notNull())
    .addColumn('details', T.text, (c) => c.notNull().defaultTo('{}'))
    .addColumn('dedupe_key', T.text)
    .addColumn('created_at', T.text, ts)
    .addColumn('fanned_out_at', T.text)
    .execute();
  await db.schema.createIndex('events_pending').on('events').columns(['fanned_out_at', 'created_at']).execute();
  await db.schema
    .createIndex('events_dedupe')
    .on('events')
    .columns(['team_id', 'dedupe_key'])
    .unique()
    .where(sql.ref('dedupe_key'), 'is not', null)
    .execute();

  // One row per (event, channel destination); attempts and leases make delivery at-least-once.
  await db.schema
    .createTable('deliveries')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('event_id', T.text, (c) => c.references('events.id').onDelete('cascade'))
    .addColumn('setting_id', T.text, (c) => c.references('notification_settings.id').onDelete('set null'))
    .addColumn('channel', T.text, (c) => c.notNull())
    .addColumn('recipient', T.text)
    .addColumn('is_test', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('request', T.text, (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', T.text, (c) => c.notNull().defaultTo('queued'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', T.text, ts)
    .addColumn('lease_owner', T.text)
    .addColumn('lease_until', T.text)
    .addColumn('message_preview', T.text)
    .addColumn('error_message', T.text)
    .addColumn('metadata', T.text)
    .addColumn('created_at', T.text, ts)
    .addColumn('sent_at', T.text)
    .addUniqueConstraint('deliveries_event_setting', ['event_id', 'setting_id'])
    .execute();
  await db.schema.createIndex('deliveries_due').on('deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('deliveries_team_created').on('deliveries').columns(['team_id', 'created_at']).execute();
  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('delivery_id', T.text, (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', T.text, ts)
    .addColumn('outcome', T.text, (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', T.text)
    .addColumn('duration_ms', 'integer')
    .execute();
  await db.schema.createIndex('delivery_attempts_delivery').on('delivery_attempts').column('delivery_id').execute();

  await db.schema
    .createTable('exposure_scans')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain_id', T.text, (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('trigger', T.text, (c) => c.notNull().defaultTo('schedule'))
    .addColumn('started_at', T.text, ts)
    .addColumn('finished_at', T.text)
    .addColumn('findings_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', T.text)
    .execute();
  await db.schema
    .createIndex('exposure_scans_domain')
    .on('exposure_scans')
    .columns(['domain_id', 'started_at'])
    .execute();
  await db.schema
    .createTable('exposure_findings')
    .addColumn('id', T.text, (c) => c.primaryKey())
    .addColumn('team_id', T.text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('domain_id', T.text, (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('scan_id', T.text, (c) => c.references('exposure_scans.id').onDelete('set null'))
    .addColumn('fingerprint', T.text, (c) => c.notNull())
    .addColumn('category', T.text, (c) => c.notNull())
    .addColumn('severity', T.text, (c) => c.notNull())
    .addColumn('title', T.text, (c) => c.notNull())
    .addColumn('target', T.text)
    .addColumn('details', T.text, (c) => c.notNull().defaultTo('{}'))
    .addColumn('remediation', T.text)
    .addColumn('status', T.text, (c) => c.notNull().defaultTo('open'))
    .addColumn('first_seen', T.text, ts)
    .addColumn('last_seen', T.text, ts)
    .addColumn('resolved_at', T.text)
    .addUniqueConstraint('exposure_findings_domain_fp', ['domain_id', 'fingerprint'])
    .execute();

  // Per-domain / per-endpoint schedule of the refresh workers (registration, tls, dns, verify, exposure).
  await db.schema
    .createTable('check_schedule')
    .addColumn('kind', T.text, (c) => c.notNull())
    .addColumn('target_id', T.text, (c) => c.notNull())
    .addColumn('next_run_at', T.text, (c) => c.notNull())
    .addColumn('last_run_at', T.text)
    .addColumn('last_outcome', T.text)
    .addColumn('lease_until', T.text)
    .addPrimaryKeyConstraint('check_schedule_pk', ['kind', 'target_id'])
    .execute();
  await db.schema.createIndex('check_schedule_due').on('check_schedule').columns(['kind', 'next_run_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations only move forward');
}
