// Channel secrets at rest: a notification settings row's config is stored sealed (AES-256-GCM) under a
// key that is not in the database (DIR/secret.key or DOMMON_SECRET_KEY), so a backup, a replica or a
// dump of the database alone holds no webhook secret, bot token or chat URL. Each sealed value names
// its key's id, so a key ring (the new key first, the old ones after) reads both while rotating.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseKey, type SecretKeyConfig } from '../config/secret-key.js';

/** `sealed:v1:<key id>:<base64url of iv (12) | tag (16) | ciphertext>`. */
const PREFIX = 'sealed:v1:';
/** Binds a sealed value to what it is: a value sealed for something else does not open as a config. */
const AAD = Buffer.from('dommon notification config v1');

export class SealError extends Error {}

export interface Sealer {
  /** The id of the key new values are sealed under. */
  readonly keyId: string;
  /** The ids of every key this sealer opens. */
  readonly keyIds: readonly string[];
  seal(plain: string): string;
  /** The plain text, or a SealError saying why not (no key of that id, or the value does not authenticate). */
  unseal(sealed: string): string;
}

/** Whether a stored value is sealed (else it is plain JSON of a database from before sealing). */
export const isSealed = (v: string): boolean => v.startsWith(PREFIX);

/** The key id a sealed value names, or null for a plain one. */
export const sealedKeyId = (v: string): string | null => (isSealed(v) ? v.slice(PREFIX.length).split(':')[0]! : null);

/** A key's public id: the first 12 hex digits of its SHA-256 (never the key). */
export const keyIdOf = (key: Buffer): string => crypto.createHash('sha256').update(key).digest('hex').slice(0, 12);

/**
 * Seals under the ring's first key; unseals under any of its keys. `keys` may be a function: it is
 * asked before each use (a key file re-read when it changes, so a rotation reaches a running daemon).
 */
export function createSealer(keys: readonly Buffer[] | ((fresh?: boolean) => readonly Buffer[])): Sealer {
  const get = typeof keys === 'function' ? keys : () => keys;
  let seen: readonly Buffer[] | undefined;
  let ring = new Map<string, Buffer>();
  const current = (fresh = false) => {
    const ks = get(fresh);
    if (ks !== seen) {
      if (!ks.length) throw new SealError('no secret key');
      ring = new Map(ks.map((k) => [keyIdOf(k), k]));
      seen = ks;
    }
    return { key: ks[0]!, id: keyIdOf(ks[0]!), ring };
  };
  return {
    get keyId() {
      return current().id;
    },
    get keyIds() {
      return [...current().ring.keys()];
    },
    seal(plain) {
      const { key, id } = current();
      const iv = crypto.randomBytes(12);
      const c = crypto.createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(AAD);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return `${PREFIX}${id}:${Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url')}`;
    },
    unseal(sealed) {
      const [id, data] = sealed.slice(PREFIX.length).split(':');
      // A key id not in the ring: the key file may have just been rotated; read it again before refusing.
      let keysById = current().ring;
      if (!keysById.has(id ?? '')) keysById = current(true).ring;
      const key = keysById.get(id ?? '');
      if (!key)
        throw new SealError(
          `sealed under key ${id}, which this node does not hold (it has ${[...keysById.keys()].join(', ')}): give every node the same secret key`,
        );
      const raw = Buffer.from(data ?? '', 'base64url');
      try {
        const d = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        d.setAAD(AAD);
        d.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
      } catch {
        throw new SealError(`the value sealed under key ${id} does not authenticate (damaged or altered)`);
      }
    },
  };
}

/** The keys of a key file: one per line (base64 or hex), the first seals; `#` comments and blank lines skipped. */
export function readKeyFile(file: string): Buffer[] {
  const keys = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l, i) => {
      const k = parseKey(l);
      if (!k) throw new SealError(`${file}: line ${i + 1} is not a 32-byte key (base64 or 64 hex digits)`);
      return k;
    });
  if (!keys.length) throw new SealError(`${file} holds no key`);
  return keys;
}

/** Writes `keys` (the first seals) to `file`, mode 0600, replacing it in one rename. */
export function writeKeyFile(file: string, keys: readonly Buffer[]): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const text = [
    '# dommon secret key: seals the channel secrets in the database. Back it up apart from the database;',
    '# every node of one PostgreSQL database needs the same file. The first key seals, every key unseals.',
    ...keys.map((k) => k.toString('base64')),
    '',
  ].join('\n');
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/**
 * The configured key ring: DOMMON_SECRET_KEY, else the key file. The default file (DIR/secret.key) is
 * made on first use when `create` holds; a file named by DOMMON_SECRET_KEY_FILE must exist.
 */
export function loadKeyRing(cfg: SecretKeyConfig, opts: { create?: boolean } = {}): Buffer[] {
  if (cfg.keys) return [...cfg.keys];
  if (!fs.existsSync(cfg.file)) {
    if (!cfg.defaultFile) throw new SealError(`DOMMON_SECRET_KEY_FILE: ${cfg.file} does not exist`);
    if (!opts.create) throw new SealError(`no secret key: ${cfg.file} does not exist`);
    fs.mkdirSync(path.dirname(cfg.file), { recursive: true, mode: 0o700 });
    try {
      // `wx`: two processes starting at once keep the first one's key.
      fs.writeFileSync(cfg.file, `${crypto.randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return readKeyFile(cfg.file);
}

/** Whether loadKeyRing({ create: true }) would make a new default key file now. */
export const keyFileMissing = (cfg: SecretKeyConfig): boolean =>
  !cfg.keys && cfg.defaultFile && !fs.existsSync(cfg.file);

/** Removes a key file this process made and never sealed with (it opens nothing in the database). */
export const dropKeyFile = (cfg: SecretKeyConfig): void => fs.rmSync(cfg.file, { force: true });

/**
 * The sealer, refusing to seal while `blocked()` names a reason: a process whose key does not open what
 * the database holds must not add values under a key no other node has.
 */
export function guardSealing(sealer: Sealer, blocked: () => string | null): Sealer {
  return {
    get keyId() {
      return sealer.keyId;
    },
    get keyIds() {
      return sealer.keyIds;
    },
    seal(plain) {
      const reason = blocked();
      if (reason) throw new SealError(reason);
      return sealer.seal(plain);
    },
    unseal: (sealed) => sealer.unseal(sealed),
  };
}

/**
 * loadKeyRing() now, then the same ring until the key file changes (checked at most once a second, or
 * at once for a value under a key id the ring lacks):
 * a running daemon follows `dommon secrets rotate-key` without a restart. A file that turns unreadable
 * keeps the last good ring.
 */
export function liveKeyRing(cfg: SecretKeyConfig): (fresh?: boolean) => readonly Buffer[] {
  let keys: readonly Buffer[] = loadKeyRing(cfg, { create: true });
  if (cfg.keys) return () => keys;
  let stamp = fileStamp(cfg.file);
  let checked = Date.now();
  return (fresh = false) => {
    if (!fresh && Date.now() - checked < 1000) return keys;
    checked = Date.now();
    const now = fileStamp(cfg.file);
    if (now !== stamp) {
      try {
        keys = readKeyFile(cfg.file);
        stamp = now;
      } catch {
        /* a half-written or removed file: keep the ring we have */
      }
    }
    return keys;
  };
}

function fileStamp(file: string): string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? `${st.mtimeMs}:${st.size}:${st.ino}` : 'none';
}

/** `dommon doctor`'s view of the stored configs: can this node's keys open every sealed one? */
export function judgeSealed(
  configs: readonly string[],
  keys: readonly Buffer[],
): { status: 'ok' | 'warn' | 'fail'; detail: string } {
  const sealer = createSealer(keys);
  let plain = 0;
  const bad = new Map<string, number>();
  for (const c of configs) {
    if (!isSealed(c)) {
      plain++;
      continue;
    }
    try {
      sealer.unseal(c);
    } catch (err) {
      const why = (err as Error).message;
      bad.set(why, (bad.get(why) ?? 0) + 1);
    }
  }
  const sealed = configs.length - plain;
  if (bad.size)
    return {
      status: 'fail',
      detail: `${[...bad.values()].reduce((a, b) => a + b, 0)} of ${sealed} sealed channel config(s) cannot be unsealed: ${[...bad.keys()].join('; ')}`,
    };
  return {
    status: plain ? 'warn' : 'ok',
    detail: `key ${sealer.keyId}: ${sealed} channel config(s) sealed${plain ? `, ${plain} still plain (sealed at the next start)` : ''}`,
  };
}
