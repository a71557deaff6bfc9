// Memberships single sign-on made (docs/sso.md#memberships-follow-the-claims): users.origin is `sso`
// for a membership a sign-in made from the provider's claims, null for every other (the command line,
// an invitation, a set-up link, and every membership made before this). Only `sso` memberships are
// removed when the claims stop mapping the person to their team.
import type { Kysely } from 'kysely';
import { columnTypes } from './engine.js';

export async function up(db: Kysely<any>): Promise<void> {
  const T = columnTypes(db);
  await db.schema.alterTable('users').addColumn('origin', T.text).execute();
}
