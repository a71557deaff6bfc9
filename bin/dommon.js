#!/usr/bin/env node
// The command line as one bundle (scripts/bundle.mjs); the same code as dist/cli/main.js.
import '../dist/bundle/main.js';
