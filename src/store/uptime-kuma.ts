// Reads an Uptime Kuma data file (kuma.db) for `dommon import uptime-kuma`: the tables the importer
// maps, whole. Kuma keeps the file in WAL mode, and opening one (even read only) writes -shm and -wal
// files beside it; so the file (and a -wal beside it, whose commits count) is copied to a temporary
// directory and read there: Kuma's directory is never written to.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { KUMA_TABLES, type KumaTables } from '../domain/uptime-kuma.js';

export function readKumaDatabase(file: string): KumaTables {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dommon-kuma-'));
  try {
    const copy = path.join(dir, 'kuma.db');
    fs.copyFileSync(file, copy);
    if (fs.existsSync(`${file}-wal`)) fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
    const db = new Database(copy, { fileMustExist: true });
    try {
      const names = new Set(
        (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
          (r) => r.name,
        ),
      );
      if (!names.has('monitor')) throw new Error(`${file} is not an Uptime Kuma data file (it has no monitor table)`);
      const out = {} as KumaTables;
      for (const t of KUMA_TABLES)
        out[t] = names.has(t) ? (db.prepare(`SELECT * FROM "${t}" ORDER BY id`).all() as KumaTables[typeof t]) : [];
      return out;
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
