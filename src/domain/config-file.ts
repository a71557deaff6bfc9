// The configuration file's document (docs/configuration-file.md; its JSON Schema is generated into
// schemas/config/dommon.schema.json): what the file reader hands the apply service and what export
// writes. Objects are identified by name; the API's ids never appear.

/** A place in the document: keys and list indexes from its root. */
export type ConfigPath = (string | number)[];

export interface ConfigPortfolio {
  name: string;
  description?: string | null;
}

/** One notification settings row of the applying user: the row's fields and the channel's config fields. */
export interface ConfigChannel {
  type: string;
  delivery_class?: 'instant' | 'digest';
  is_enabled?: boolean;
  frequency_days?: number | null;
  notification_time?: string | null;
  min_severity?: string;
  [configField: string]: unknown;
}

interface ConfigLiveness {
  [field: string]: unknown;
}

export interface ConfigEndpoint {
  name: string;
  type: string;
  liveness?: ConfigLiveness;
  [field: string]: unknown;
}

export interface ConfigDomain {
  name: string;
  portfolio?: string | null;
  notes?: string | null;
  dkim_selectors?: string[];
  manual_expiry?: string | null;
  endpoints?: ConfigEndpoint[];
}

export interface ConfigStatusPage {
  slug: string;
  title: string;
  portfolio: string;
  description?: string | null;
  show_certificates?: boolean;
  enabled?: boolean;
  endpoints?: { endpoint: string; display_name?: string | null }[];
}

export interface ConfigMaintenanceWindow {
  name: string;
  starts_at?: string | null;
  ends_at?: string | null;
  cron?: string | null;
  duration_minutes?: number | null;
  timezone?: string;
  is_enabled?: boolean;
  endpoints?: string[];
  domains?: string[];
  portfolios?: string[];
}

export interface ConfigDocument {
  version: 1;
  editable?: boolean;
  portfolios?: ConfigPortfolio[];
  channels?: ConfigChannel[];
  domains?: ConfigDomain[];
  status_pages?: ConfigStatusPage[];
  maintenance_windows?: ConfigMaintenanceWindow[];
}
