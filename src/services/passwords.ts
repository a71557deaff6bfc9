// Password hashes (docs/accounts.md): scrypt (Node's crypto.scrypt, on the thread pool, never the
// event loop) with N = 2^ln, r = 8, p = 1, a random 16-byte salt and a 32-byte key. ln is
// DOMMON_PASSWORD_COST (default 17: 128 MiB and ~0.2-0.5 s of one core per hash, OWASP's minimum).
// The parameters are stored with each hash, `$scrypt$ln=17,r=8,p=1$<salt>$<key>` (base64url), so a
// hash keeps verifying with its own after the cost changes, and one below the configured cost is
// replaced at the person's next sign-in.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Invalid } from '../domain/errors.js';

interface Params {
  /** log2 of N, the cost. */
  ln: number;
  r: number;
  p: number;
}

/** DOMMON_PASSWORD_COST's default (src/config gives the variable's bounds, 12-20). */
export const PASSWORD_COST_DEFAULT = 17;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{16,128})$/;
/** Passwords longer than this are refused before hashing (a long one costs no more, but bounds the body). */
const PASSWORD_MAX = 1024;
const PASSWORD_MIN = 10;

/** Refuses a password outside PASSWORD_MIN..PASSWORD_MAX characters (400 PASSWORD_INVALID). */
export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX)
    throw new Invalid(`a password must be ${PASSWORD_MIN}-${PASSWORD_MAX} characters`, 'PASSWORD_INVALID');
}

function derive(password: string, salt: Buffer, p: Params, length: number): Promise<Buffer> {
  const N = 2 ** p.ln;
  // scrypt needs 128 * N * r bytes; Node refuses past maxmem (32 MiB by default).
  const opts: ScryptOptions = { N, r: p.r, p: p.p, maxmem: 128 * N * p.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

async function hash(password: string, params: Params): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params, KEY_BYTES);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `password` matches `stored`; a malformed stored value matches nothing. */
async function verify(password: string, stored: string): Promise<boolean> {
  const m = FORMAT.exec(stored);
  if (!m) return false;
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (params.ln < 1 || params.ln > 22 || params.r < 1 || params.p < 1) return false;
  const want = Buffer.from(m[5]!, 'base64url');
  const got = await derive(password, Buffer.from(m[4]!, 'base64url'), params, want.length);
  return timingSafeEqual(got, want);
}

/** Hashing and checking passwords at one cost (`ln`, log2 of scrypt's N): what the services share. */
interface Passwords {
  hash(password: string): Promise<string>;
  /** True when `password` matches `stored` (checked with the parameters stored with it). */
  verify(password: string, stored: string): Promise<boolean>;
  /** True when `stored` was made with lower parameters than this cost's (rehash it at the next sign-in). */
  needsRehash(stored: string): boolean;
  /**
   * What a sign-in with no hash to check (an unknown e-mail, an account without a password) costs
   * instead: one scrypt at this cost, as a real check does. Always false.
   */
  decoy(password: string): Promise<false>;
}

export function createPasswords(cost: number = PASSWORD_COST_DEFAULT): Passwords {
  const params: Readonly<Params> = Object.freeze({ ln: cost, r: R, p: P });
  // The hash of a random password nobody kept, made at this cost by the first sign-in that needs it
  // (that one pays the hashing instead of a check: one scrypt either way), so no start-up pays for it.
  let decoy: string | undefined;
  return {
    hash: (password) => hash(password, params),
    verify,
    needsRehash(stored) {
      const m = FORMAT.exec(stored);
      if (!m) return true;
      return Number(m[1]) < params.ln || Number(m[2]) < params.r || Number(m[3]) < params.p;
    },
    async decoy(password) {
      if (decoy === undefined) {
        const made = await hash(randomBytes(24).toString('base64url'), params);
        decoy ??= made;
      } else await verify(password, decoy);
      return false;
    },
  };
}
