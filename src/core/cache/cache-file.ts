// Reading and writing one file of a cache folder (see cache-dir.ts): a file
// is read only when this user wrote it, and written whole, then renamed, so
// a reader in another process never sees half of it.
import { closeSync, fstatSync, futimesSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

const WINDOWS = process.platform === 'win32';

/** The file's bytes when this user wrote it and nobody else can change it (marking it used, for pruning); else undefined. */
export function readOwnFile(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    if (!isOwnFile(fd)) return undefined;
    const data = readFileSync(fd);
    const now = new Date();
    futimesSync(fd, now, now);
    return data;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes `data` to `file` (0600) through a temporary file; false when it could not. */
export function writeWhole(file: string, data: string | Buffer): boolean {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, file);
    return true;
  } catch {
    rmSync(tmp, { force: true });
    return false;
  }
}

function isOwnFile(fd: number): boolean {
  if (WINDOWS) return true;
  const s = fstatSync(fd);
  return s.isFile() && s.uid === process.getuid?.() && (s.mode & 0o022) === 0;
}
