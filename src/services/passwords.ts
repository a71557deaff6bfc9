// Password hashes (docs/accounts.md): scrypt (Node's crypto.scrypt, on the thread pool, never the
// event loop) with N = 2^17, r = 8, p = 1 (128 MiB and ~0.2-0.5 s of one core per hash: OWASP's
// minimum), a random 16-byte salt and a 32-byte key. The parameters are stored with each hash,
// `$scrypt$ln=17,r=8,p=1$<salt>$<key>` (base64url), so raising them later is a change of PARAMS: an
// old hash still verifies with its own, and is replaced at the person's next sign-in.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Invalid } from '../domain/errors.js';

interface Params {
  /** log2 of N, the cost. */
  ln: number;
  r: number;
  p: number;
}

const PASSWORD_PARAMS: Readonly<Params> = Object.freeze({ ln: 17, r: 8, p: 1 });
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

export async function hashPassword(password: string, params: Params = PASSWORD_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params, KEY_BYTES);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `password` matches `stored`; a malformed stored value matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = FORMAT.exec(stored);
  if (!m) return false;
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (params.ln < 1 || params.ln > 22 || params.r < 1 || params.p < 1) return false;
  const want = Buffer.from(m[5]!, 'base64url');
  const got = await derive(password, Buffer.from(m[4]!, 'base64url'), params, want.length);
  return timingSafeEqual(got, want);
}

/** True when `stored` was made with lower parameters than today's (rehash it at the next sign-in). */
export function needsRehash(stored: string): boolean {
  const m = FORMAT.exec(stored);
  if (!m) return true;
  return Number(m[1]) < PASSWORD_PARAMS.ln || Number(m[2]) < PASSWORD_PARAMS.r || Number(m[3]) < PASSWORD_PARAMS.p;
}
