// The rows of an Uptime Kuma data file (kuma.db, Kuma 1.23 or 2.x) or JSON backup, as the importer
// reads them: each table's rows with Kuma's own column names and encodings (booleans 0/1, JSON as text).
// A table the file does not have (an older Kuma, or a backup, which holds monitors and notifications
// only) is empty.
export const KUMA_TABLES = [
  'monitor',
  'notification',
  'monitor_notification',
  'tag',
  'monitor_tag',
  'maintenance',
  'monitor_maintenance',
  'maintenance_status_page',
  'status_page',
  'group',
  'monitor_group',
] as const;

export type KumaTable = (typeof KUMA_TABLES)[number];
export type KumaRow = Record<string, unknown>;
export type KumaTables = Record<KumaTable, KumaRow[]>;
