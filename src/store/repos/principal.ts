// Who a request acts as (a token, or a dashboard session made from one): one column list and one
// mapping for every query that reads a Principal from api_tokens as t, teams as tm and users as u.
import type { Principal } from '../../domain/types.js';
import { effectiveRole } from '../../domain/roles.js';
import { toBool } from './util.js';

export const PRINCIPAL_COLUMNS = [
  't.id as token_id',
  't.name as token_name',
  't.team_id',
  'tm.name as team_name',
  't.user_id',
  'u.email as user_email',
  't.read_only',
  't.operator',
  't.role as token_role',
  'u.role as member_role',
  't.expires_at as token_expires_at',
] as const;

export const principalOf = (r: {
  token_id: string;
  token_name: string;
  team_id: string;
  team_name: string;
  user_id: string;
  user_email: string;
  read_only: number;
  operator: number;
  token_role: string | null;
  member_role: string;
  token_expires_at: string | null;
}): Principal => ({
  token_id: r.token_id,
  token_name: r.token_name,
  team_id: r.team_id,
  team_name: r.team_name,
  user_id: r.user_id,
  user_email: r.user_email,
  read_only: toBool(r.read_only),
  operator: toBool(r.operator),
  role: effectiveRole(r.member_role, r.token_role, toBool(r.read_only)),
  expires_at: r.token_expires_at,
});
