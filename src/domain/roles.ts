// Roles per team (docs/accounts.md). Ordered: an owner may do all an editor may, an editor all a
// viewer may. What each route needs is declared once, in the API's route table (src/api/roles.ts).
export const ROLES = ['viewer', 'editor', 'owner'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, editor: 1, owner: 2 };

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/** True when `have` may do what `need` allows. */
export const roleAllows = (have: Role, need: Role): boolean => RANK[have] >= RANK[need];

/** The lower of two roles. */
export const lowerRole = (a: Role, b: Role): Role => (RANK[a] <= RANK[b] ? a : b);

/**
 * What a token may do: its member's role, lowered to the token's own role when it has one, and to
 * viewer when it is read-only (the spec's flag). An unknown stored value counts as viewer (fail closed).
 */
export function effectiveRole(member: string, token: string | null, readOnly: boolean): Role {
  let r: Role = isRole(member) ? member : 'viewer';
  if (token !== null) r = lowerRole(r, isRole(token) ? token : 'viewer');
  return readOnly ? 'viewer' : r;
}
