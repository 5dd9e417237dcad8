// The master key (DESIGN.md "Secrets at rest"): the key-encryption key under which the
// service seals every secret it keeps (adapters/sealing.ts). It never lives in the data
// dir: it comes from SATANG_MASTER_KEY, from SATANG_MASTER_KEY_FILE, or — development
// only — from `<data dir>.master-key`, generated (0600) beside the data dir on first
// start, so that a copy of the data dir alone opens nothing. config.ts decides which
// (and refuses production without one); this module reads the 32 bytes.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { privateFileMode } from '../adapters/private-files.ts';
import { everSealed, masterKeyBytes, Sealer, WrongMasterKey } from '../adapters/sealing.ts';
import { journalFileName, openDatabaseReadOnly, SchemaTooNew } from '../adapters/sqlite/schema.ts';
import { masterKeyPattern, type Config, type MasterKeySource } from './config.ts';

export function loadMasterKey(source: MasterKeySource, env: NodeJS.ProcessEnv = process.env): Buffer {
  switch (source.kind) {
    case 'env': return decode(env.SATANG_MASTER_KEY ?? '', 'SATANG_MASTER_KEY');
    case 'file': return decode(readKeyFile(source.path, 'SATANG_MASTER_KEY_FILE'), `SATANG_MASTER_KEY_FILE ${source.path}`);
    case 'development': return decode(developmentKey(source.path), source.path);
    default: { const _: never = source; throw new Error('unknown master key source'); }
  }
}

/** The master key if it can be read without making one (for a scan: a development key not yet made is not there to leak). */
export function existingMasterKey(source: MasterKeySource, env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  if (source.kind === 'development' && !existsSync(source.path)) return undefined;
  try {
    return loadMasterKey(source, env);
  } catch {
    return undefined; // unreadable or malformed: doctor says so; the scan goes on without it
  }
}

export function sealerFor(config: Config, env: NodeJS.ProcessEnv = process.env): Sealer {
  return new Sealer(loadMasterKey(config.masterKey, env));
}

function decode(text: string, where: string): Buffer {
  const trimmed = text.trim();
  if (!masterKeyPattern.test(trimmed)) throw new Error(`${where} must hold the base64 of ${masterKeyBytes} bytes`);
  return Buffer.from(trimmed, 'base64');
}

function readKeyFile(path: string, name: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** Whether the data dir's journal was sealed; a journal a newer satang wrote is refused (SchemaTooNew), as everywhere, before any key is made for it. */
function journalEverSealed(dataDir: string): boolean {
  try {
    const db = openDatabaseReadOnly(dataDir);
    try {
      return everSealed(db);
    } finally {
      db.close();
    }
  } catch (error) {
    if (error instanceof SchemaTooNew) throw error;
    return true; // unreadable: no new key for it (the start's own checks say what is wrong with it)
  }
}

/** The development key beside the data dir, made on first start ('wx': two starts at once keep one key). */
function developmentKey(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // A journal already sealed has a key of its own: a new one would not open it. One an
  // older build left with its secrets in clear (no sealed marker) takes the new key, and is
  // sealed under it at this start (Secrets at rest).
  const dataDir = path.slice(0, -'.master-key'.length);
  const journal = join(dataDir, journalFileName);
  if (existsSync(journal) && journalEverSealed(dataDir)) throw new WrongMasterKey(`the data dir's development master key ${path} is missing, and ${journal} was sealed with it: put that key back there (from the machine or the backup it came from), or start with the SATANG_MASTER_KEY_FILE it was sealed with; a new key would not open its secrets`);
  mkdirSync(dirname(path), { recursive: true }); // the data dir's parent: not ours to tighten
  try {
    writeFileSync(path, `${randomBytes(masterKeyBytes).toString('base64')}\n`, { mode: privateFileMode, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path, 'utf8');
}
