// The data directory holds webhook secrets, chat URLs and token hashes: it is private to the user the
// daemon runs as (directory 0700, files 0600). Older installs made it 0755/0644; opening fixes that.
import fs from 'node:fs';
import path from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Creates `dir` (0700) if missing; tightens it and every file in it (and in its subdirectories, two
 * levels down). Returns the paths it changed, so the caller can say so. Does nothing on Windows,
 * where POSIX modes do not apply.
 */
export function secureDataDir(dir: string): string[] {
  if (process.platform === 'win32') return [];
  const fixed: string[] = [];
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const tighten = (p: string, mode: number) => {
    try {
      const st = fs.lstatSync(p);
      // Only what this user owns and only real files and directories (a symlink's target is not ours to change).
      if (st.isSymbolicLink() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) return;
      if ((st.mode & 0o077) !== 0) {
        fs.chmodSync(p, mode);
        fixed.push(p);
      }
    } catch {
      /* vanished meanwhile, or not ours: nothing to tighten */
    }
  };
  const walk = (d: string, depth: number) => {
    tighten(d, DIR_MODE);
    if (depth > 2) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p, depth + 1);
      else if (e.isFile()) tighten(p, FILE_MODE);
    }
  };
  walk(dir, 0);
  return fixed;
}

/** Makes one file this process just wrote or opened private (0600) if it is not already. */
export function restrictFile(file: string): void {
  if (process.platform === 'win32') return;
  try {
    const st = fs.statSync(file);
    if ((st.mode & 0o077) !== 0 && (typeof process.getuid !== 'function' || st.uid === process.getuid()))
      fs.chmodSync(file, FILE_MODE);
  } catch {
    /* not there (yet): nothing to restrict */
  }
}
