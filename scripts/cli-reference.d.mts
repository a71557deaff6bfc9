// Types of scripts/cli-reference.mjs for the TypeScript tests that import it (test/docs/docs.test.ts).
import type { Command } from 'commander';

export declare const CLI_DOC: string;
export declare const MARKERS: RegExp;
/** The markdown reference of a commander program (globals, then one row per leaf command). */
export declare function cliReference(program: Command): string;
/** `text` with the section between the cli:start / cli:end markers replaced by `md`. */
export declare function withReference(text: string, md: string): string;
