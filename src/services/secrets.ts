// `dommon secrets rotate-key`: every stored channel secret (and liveness credential) sealed again under a new key, in one
// transaction, while the old key still opens what is not resealed yet (store/sealing.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Config } from '../config/index.js';
import { Invalid } from '../domain/errors.js';
import { openPgStore, openStore, type Store } from '../store/index.js';
import { createSealer, keyIdOf, loadKeyRing, readKeyFile, SealError, writeKeyFile } from '../store/sealing.js';

interface RotateReport {
  /** Where the key lives: the key file, or DOMMON_SECRET_KEY. */
  source: string;
  key_id: string;
  previous_key_ids: string[];
  resealed: number;
}

const open = (config: Readonly<Config>, keys: () => readonly Buffer[]): Promise<Store> => {
  const sealer = createSealer(keys);
  return config.database
    ? openPgStore(config.database.url, {
        poolSize: 2,
        statementTimeoutMs: config.database.statementTimeoutMs,
        feedName: 'dommon secrets',
        sealer,
      })
    : openStore(config.dbPath, { sealer });
};

/** Reseals every config under the ring's first key until none is left under another (a daemon may write meanwhile). */
async function resealAll(store: Store, keyId: string): Promise<number> {
  let n = 0;
  for (let round = 0; round < 5; round++) {
    n = await store.transaction(async (tx) => (await tx.notifications.resealAll()) + (await tx.liveness.resealAll()));
    const ids = [
      ...Object.keys(await store.notifications.sealedKeyIds()),
      ...Object.keys(await store.liveness.sealedKeyIds()),
    ];
    if (ids.every((id) => id === keyId)) return n;
  }
  throw new SealError('configs kept being written under another key while resealing; run rotate-key again');
}

/**
 * With a key file: a new key is put first in the file (the old ones stay, so running daemons, which
 * re-read the file, open both), every config is resealed, then the old keys leave the file.
 * With DOMMON_SECRET_KEY ("NEW,OLD"): every config is resealed under its first key; the variable is
 * then set to NEW alone by the operator.
 */
export async function rotateSecretKey(
  config: Readonly<Config>,
  opts: { settleMs?: number } = {},
): Promise<RotateReport> {
  const cfg = config.secretKey;
  if (cfg.keys) {
    const keys = [...cfg.keys];
    const store = await open(config, () => keys);
    try {
      const keyId = keyIdOf(keys[0]!);
      const resealed = await resealAll(store, keyId);
      return { source: 'DOMMON_SECRET_KEY', key_id: keyId, previous_key_ids: keys.slice(1).map(keyIdOf), resealed };
    } finally {
      await store.close();
    }
  }
  if (!cfg.defaultFile && !fs.existsSync(cfg.file))
    throw new Invalid(`DOMMON_SECRET_KEY_FILE: ${cfg.file} does not exist`);
  const old = loadKeyRing(cfg, { create: true });
  const fresh = crypto.randomBytes(32);
  let ring: readonly Buffer[] = [fresh, ...old];
  writeKeyFile(cfg.file, ring);
  const store = await open(config, () => ring);
  try {
    // Running daemons re-read the key file at most once a second: from then on they seal under the new key.
    await new Promise((r) => setTimeout(r, opts.settleMs ?? 1100));
    const resealed = await resealAll(store, keyIdOf(fresh));
    ring = [fresh];
    writeKeyFile(cfg.file, ring);
    // What the file now holds is what every later start reads.
    if (keyIdOf(readKeyFile(cfg.file)[0]!) !== keyIdOf(fresh)) throw new SealError(`${cfg.file} was changed meanwhile`);
    return { source: cfg.file, key_id: keyIdOf(fresh), previous_key_ids: old.map(keyIdOf), resealed };
  } finally {
    await store.close();
  }
}
