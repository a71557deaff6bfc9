// One-time links (docs/accounts.md#one-time-links): how long one works and the address that opens it.

/** How long a link works. */
export const LINK_TTL_MS = 24 * 3_600_000;

/** The dashboard address that opens a link: a hash route, so the secret is never sent in a request line. */
export const linkUrl = (base: string, token: string): string => `${base.replace(/\/+$/, '')}/#/link/${token}`;
