// The nameserver watch's rules: what of a domain's delegation is compared from one look to the next,
// and the words of the alert when it changed.

/** A domain's delegation as last seen at its parent zone's servers, and how the last look went. */
export interface DelegationState {
  domain_id: string;
  /** The zone looked up (the registrable domain) and the parent zone whose servers answered. */
  zone: string;
  parent_zone: string | null;
  /** NS names at the parent (sorted); null until a look-up has succeeded once. */
  nameservers: string[] | null;
  /** DS records at the parent as `keyTag algorithm digestType DIGEST` (sorted); null likewise. */
  ds: string[] | null;
  /** The last look-up that succeeded, and when the sets last changed (null: as first seen). */
  checked_at: string | null;
  changed_at: string | null;
  /** The last look-up's failure (null after a success), and when it failed. */
  error: string | null;
  error_at: string | null;
}

/** A domain's delegation as its detail answer shows it (`delegation`; null before the first look). */
export type DelegationView = Omit<DelegationState, 'domain_id'>;

/** What changed between two looks: each set that differs, before and after. */
interface DelegationChange {
  nameservers?: { before: string[]; after: string[] };
  ds?: { before: string[]; after: string[] };
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The change from `prev` to the sets seen now; null when nothing changed, or when nothing was seen
 * before (the first look is the baseline, no alert). Both lists are sorted.
 */
export function delegationChange(
  prev: Pick<DelegationState, 'nameservers' | 'ds'> | undefined,
  now: { nameservers: string[]; ds: string[] },
): DelegationChange | null {
  if (!prev || prev.nameservers === null || prev.ds === null) return null;
  const out: DelegationChange = {};
  if (!same(prev.nameservers, now.nameservers)) out.nameservers = { before: prev.nameservers, after: now.nameservers };
  if (!same(prev.ds, now.ds)) out.ds = { before: prev.ds, after: now.ds };
  return out.nameservers || out.ds ? out : null;
}

const list = (xs: readonly string[]) => (xs.length ? xs.join(', ') : 'none');

/** The alert's one-line message. */
export function delegationMessage(domain: string, parent: string, c: DelegationChange): string {
  const parts: string[] = [];
  if (c.nameservers) parts.push(`NS ${list(c.nameservers.before)} -> ${list(c.nameservers.after)}`);
  if (c.ds) parts.push(`DS ${list(c.ds.before)} -> ${list(c.ds.after)}`);
  return `${domain}: delegation changed at the ${parent} servers: ${parts.join('; ')}`;
}
