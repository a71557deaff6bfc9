// The terminal dashboard of `dommon status` (imported only by the CLI's status command and tests).
export { Dashboard, type DashboardProps } from './Dashboard.js';
export { StatusApp, type StatusAppProps } from './StatusApp.js';
export { apiSource, type Request } from './api-source.js';
export * from './model.js';
