// The data dir is private (DESIGN.md "Secrets at rest"): the directory 0700, every file
// in it 0600. How: the server sets process.umask(0o077) at startup, so whatever is
// created later — SQLite's -wal and -shm (made lazily, with the database file's mode),
// slips, markers — is private by default; on top of that every file we create names its
// mode, SQLite database files are created 0600 before SQLite opens them and chmodded
// after (an older data dir may hold 0644 files), and at startup the data dir and what is
// in it are tightened (tightenDataDir), so a data dir from an older build is fixed too.

import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The sealed key files a data dir keeps beside its databases (made by server/capability.ts and server/auth/operator.ts; backed up and rekeyed whole). */
export const sealedKeyFileNames = { slipCapability: 'slip-capability-ed25519.key', devIssuer: 'dev-issuer.jwk.sealed' } as const;

export const privateDirMode = 0o700;
export const privateFileMode = 0o600;
/** tightenDataDir descends this many levels (the data dir holds slips/ one level down). */
const tightenDepthMax = 2;

/** Creates the directory (and its parents) if needed and makes it 0700. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: privateDirMode });
  chmodSync(dir, privateDirMode);
}

/** Makes the data dir 0700, the directories in it 0700 and the files 0600 (symlinks are left alone). */
export function tightenDataDir(dir: string, depth = 0): void {
  chmodSync(dir, privateDirMode);
  if (depth >= tightenDepthMax) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) tightenDataDir(path, depth + 1);
    else if (stat.isFile() && (stat.mode & 0o777) !== privateFileMode) chmodSync(path, privateFileMode);
  }
}

/** Before SQLite opens `file`: creates it 0600 if absent, and makes it and its -wal/-shm 0600. */
export function preparePrivateDatabase(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', privateFileMode));
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) if (existsSync(path)) chmodSync(path, privateFileMode);
}

/** Writes a file 0600 in full, under a temporary name first, so a crash never leaves half a key. */
export function writePrivateFile(path: string, bytes: string | Uint8Array): void {
  const temporary = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, bytes, { mode: privateFileMode, flag: 'w' });
    chmodSync(temporary, privateFileMode);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
