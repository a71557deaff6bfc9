// What dommon takes as a person's e-mail address (an account, a member, an invitation, a single
// sign-on, an e-mail channel's recipient): one `@` with something on each side and no whitespace.
// Deliverability is the mail relay's to judge; this only keeps out what cannot be an address. The
// request schemas carry the same pattern (schemas/requests/email-address.json, held equal by
// test/domain/email.test.ts).

/** The rule as a JSON Schema `pattern`. */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';

const EMAIL = new RegExp(EMAIL_PATTERN);

export const isEmail = (s: string): boolean => EMAIL.test(s);

/** The form every e-mail is stored and compared in. */
export const foldEmail = (email: string): string => email.trim().toLowerCase();
