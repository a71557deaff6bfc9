// Versioned migrations, applied in order on open; each runs in its own transaction and only moves forward.
import type { Migration, MigrationProvider } from 'kysely';
import * as m001 from './001_initial.js';
import * as m006 from './006_exposure.js';

export const MIGRATIONS: Record<string, Migration> = {
  '001_initial': m001,
  '006_exposure': m006,
};

export class StaticMigrationProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration> = MIGRATIONS) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.migrations;
  }
}
