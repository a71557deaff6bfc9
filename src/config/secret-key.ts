// DOMMON_SECRET_KEY / DOMMON_SECRET_KEY_FILE: the key that seals channel secrets at rest (store/sealing.ts).
import path from 'node:path';

export interface SecretKeyConfig {
  /** DOMMON_SECRET_KEY: keys given in the environment, the first seals, every one unseals; null: a key file. */
  keys: readonly Buffer[] | null;
  /** The key file: DOMMON_SECRET_KEY_FILE, else DIR/secret.key (created on first use). */
  file: string;
  /** Whether the file is the default one (created when missing) or named by DOMMON_SECRET_KEY_FILE (must exist). */
  defaultFile: boolean;
}

/** One 32-byte key written as 64 hex digits or base64 (standard or URL-safe), or null. */
export function parseKey(raw: string): Buffer | null {
  const s = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(s)) return null;
  const b = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return b.length === 32 ? b : null;
}

/** The key settings, or the one-line message of what is wrong with them. */
export function secretKeyConfig(env: Record<string, string | undefined>, dataDir: string): SecretKeyConfig | string {
  const raw = env.DOMMON_SECRET_KEY?.trim();
  const file = env.DOMMON_SECRET_KEY_FILE?.trim();
  if (raw && file) return 'set DOMMON_SECRET_KEY or DOMMON_SECRET_KEY_FILE, not both';
  if (raw) {
    const keys = raw.split(',').map(parseKey);
    const bad = keys.findIndex((k) => k === null);
    if (bad >= 0)
      return `DOMMON_SECRET_KEY: key ${bad + 1} is not 32 bytes written as base64 or 64 hex digits (make one with: openssl rand -base64 32)`;
    return Object.freeze({
      keys: Object.freeze(keys as Buffer[]),
      file: path.join(dataDir, 'secret.key'),
      defaultFile: true,
    });
  }
  if (file) return Object.freeze({ keys: null, file: path.resolve(file), defaultFile: false });
  return Object.freeze({ keys: null, file: path.join(dataDir, 'secret.key'), defaultFile: true });
}
