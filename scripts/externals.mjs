// The packages that esbuild leaves to node_modules when it bundles dommon's code together with its
// packages (scripts/bundle.mjs for the command line, scripts/tap-files.mjs for the test files): native
// addons (better-sqlite3), worker threads (pino), files read at run time beside the package's own code
// (whoiser parsers, swagger-ui-dist assets) and the dashboard's React/Ink/Yoga stack (one copy of React,
// loaded for `status` only).
export const APP_EXTERNALS = [
  'better-sqlite3',
  'pino',
  'thread-stream',
  'whoiser',
  'whoiser/*',
  'swagger-ui-dist',
  'ink',
  'ink-*',
  'react',
  'react/*',
  'react-devtools-core',
  'yoga-*',
];

// CommonJS packages inside an ESM bundle call require() for Node built-ins.
export const REQUIRE_BANNER =
  "import { createRequire as __dommonRequire } from 'node:module'; const require = __dommonRequire(import.meta.url);";
