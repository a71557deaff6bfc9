// The terminal dashboard of `dommon status` (imported only by the CLI's status command and tests).
export { Dashboard } from './Dashboard.js';
export { StatusApp } from './StatusApp.js';
export { apiSource } from './api-source.js';
export * from './model.js';
