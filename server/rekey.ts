// Rotating the master key (DESIGN.md "Secrets at rest"): every value sealed under the
// current key is opened and sealed again under the next one, with the server stopped.
//
//   journal.db, in ONE transaction: API key secrets (and their secret_index, an HMAC under
//     a key derived from the master key), idempotency response bodies, live and sandbox
//     webhook signing keys, and the marker that tells a server which key it must be
//     started with; then VACUUM and a truncated WAL, so no value sealed under the old key
//     stays in a free page. Before it commits, every text value of every table is checked:
//     a sealed value this module does not know how to reseal aborts the whole rotation.
//   the sealed key files of the data dir (slip capability, development issuer), each
//     replaced whole (written under a temporary name, renamed).
//
// Resumable: each part is judged by the key that opens it — the current one: resealed; the
// next one: done already; neither: refused — so a rotation cut short (between the journal's
// commit and the files) is finished by running it again with the same two keys.
// The data dir's lock (adapters/data-dir-lock.ts) is held throughout: a running server
// refuses the rotation, and no server starts during it.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirLock } from '../adapters/data-dir-lock.ts';
import { writePrivateFile } from '../adapters/private-files.ts';
import { checkPlain, checkPurpose, compactAfterSealing, isSealed, masterKeyOpens, sealedPrefix, type Sealer } from '../adapters/sealing.ts';
import { secretPurpose } from '../adapters/sqlite/api-keys.ts';
import { noteBackupSealedWithRetiredKey } from '../adapters/sqlite/backup.ts';
import { bodyPurpose } from '../adapters/sqlite/keys.ts';
import { openDatabase, tableExists, type Db } from '../adapters/sqlite/schema.ts';
import { urlPurpose } from '../adapters/webhooks/endpoints.ts';
import { privateKeyPurpose } from '../adapters/webhooks/signing-keys.ts';
import { devIssuerKeyFileName, devIssuerKeyPurpose } from './auth/operator.ts';
import { keyFileName as capabilityKeyFileName, keyPurpose as capabilityKeyPurpose } from './capability.ts';

export interface RekeyReport {
  /** journal.db: resealed now, or found under the next key already (a resumed rotation). */
  readonly journal: 'resealed' | 'already';
  readonly api_keys: number;
  readonly idempotency_bodies: number;
  readonly signing_keys: number;
  /** webhook_endpoints.url_sealed: an endpoint's URL, sealed (it may carry a token in its query). */
  readonly webhook_urls: number;
  readonly files: readonly { readonly name: string; readonly state: 'resealed' | 'already' }[];
}

const signingKeyTables = ['webhook_signing_keys', 'webhook_signing_keys_sandbox'] as const;
const keyFiles = [[capabilityKeyFileName, capabilityKeyPurpose], [devIssuerKeyFileName, devIssuerKeyPurpose]] as const;

/** Which of the two keys opens a sealed value. */
function openedBy(value: string, purpose: string, current: Sealer, next: Sealer): 'current' | 'next' | null {
  for (const [name, sealer] of [['current', current], ['next', next]] as const) {
    try { sealer.open(value, purpose); return name; } catch { /* not this one */ }
  }
  return null;
}

/** Every sealed text value in the database, per table and column. */
function sealedValues(db: Db): Map<string, number> {
  const counts = new Map<string, number>();
  const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck(true).all();
  for (const table of tables) {
    const columns = db.prepare<[string], string>('SELECT name FROM pragma_table_info(?)').pluck(true).all(table);
    for (const column of columns) {
      const n = db.prepare<[string], number>(`SELECT COUNT(*) FROM "${table}" WHERE typeof("${column}") = 'text' AND substr("${column}", 1, ${sealedPrefix.length}) = ?`).pluck(true).get(sealedPrefix)!;
      if (n > 0) counts.set(`${table}.${column}`, n);
    }
  }
  return counts;
}

function resealJournal(db: Db, current: Sealer, next: Sealer): Pick<RekeyReport, 'api_keys' | 'idempotency_bodies' | 'signing_keys' | 'webhook_urls'> {
  let apiKeys = 0, bodies = 0, signingKeys = 0, webhookUrls = 0;
  const handled = new Map<string, number>([['sealing.value', 1]]);
  const apiKeyRows = db.prepare<[], { key_id: string; secret: string }>('SELECT key_id, secret FROM api_keys').all();
  const updateKey = db.prepare('UPDATE api_keys SET secret = ?, secret_index = ? WHERE key_id = ?');
  for (const r of apiKeyRows) {
    const plain = current.openText(r.secret, secretPurpose(r.key_id));
    updateKey.run(next.seal(plain, secretPurpose(r.key_id)), next.index(plain), r.key_id);
    apiKeys++;
  }
  handled.set('api_keys.secret', apiKeys);
  const bodyRows = db.prepare<[{ prefix: string }], { rowid: number; scope: string; key: string; body: string }>(
    'SELECT rowid, scope, key, body FROM idempotency WHERE substr(body, 1, length(@prefix)) = @prefix').all({ prefix: sealedPrefix });
  const updateBody = db.prepare('UPDATE idempotency SET body = ? WHERE rowid = ?');
  for (const r of bodyRows) {
    updateBody.run(next.seal(current.open(r.body, bodyPurpose(r.scope, r.key)), bodyPurpose(r.scope, r.key)), r.rowid);
    bodies++;
  }
  handled.set('idempotency.body', bodies);
  for (const table of signingKeyTables) {
    if (!tableExists(db, table)) continue;
    const rows = db.prepare<[], { kid: string; private_pkcs8: string }>(`SELECT kid, private_pkcs8 FROM ${table}`).all().filter((r) => isSealed(r.private_pkcs8));
    const update = db.prepare(`UPDATE ${table} SET private_pkcs8 = ? WHERE kid = ?`);
    for (const r of rows) update.run(next.seal(current.open(r.private_pkcs8, privateKeyPurpose(r.kid)), privateKeyPurpose(r.kid)), r.kid);
    handled.set(`${table}.private_pkcs8`, rows.length);
    signingKeys += rows.length;
  }
  if (tableExists(db, 'webhook_endpoints') && db.prepare<[], string>("SELECT name FROM pragma_table_info('webhook_endpoints')").pluck(true).all().includes('url_sealed')) {
    const rows = db.prepare<[], { id: string; url_sealed: string }>('SELECT id, url_sealed FROM webhook_endpoints WHERE url_sealed IS NOT NULL').all();
    const update = db.prepare('UPDATE webhook_endpoints SET url_sealed = ? WHERE id = ?');
    for (const r of rows) update.run(next.seal(current.open(r.url_sealed, urlPurpose(r.id)), urlPurpose(r.id)), r.id);
    handled.set('webhook_endpoints.url_sealed', rows.length);
    webhookUrls = rows.length;
  }
  db.prepare('UPDATE sealing SET value = ? WHERE name = ?').run(next.seal(checkPlain, checkPurpose), checkPurpose);
  // Nothing sealed may stay under the old key: a sealed value of a kind this module does not know refuses the rotation.
  for (const [where, n] of sealedValues(db)) {
    if ((handled.get(where) ?? 0) !== n) throw new Error(`${where} holds ${n} sealed values of which ${handled.get(where) ?? 0} were resealed: this build cannot rotate the master key for them; nothing was changed`);
  }
  return { api_keys: apiKeys, idempotency_bodies: bodies, signing_keys: signingKeys, webhook_urls: webhookUrls };
}

export function rekeyDataDir(dataDir: string, current: Sealer, next: Sealer): RekeyReport {
  const lock = DataDirLock.acquire(dataDir);
  try {
    const db = openDatabase(dataDir, { mustExist: true });
    let journal: Pick<RekeyReport, 'api_keys' | 'idempotency_bodies' | 'signing_keys' | 'webhook_urls'> & { journal: RekeyReport['journal'] };
    try {
      const by = masterKeyOpens(db, current) ? 'current' : masterKeyOpens(db, next) ? 'next' : null;
      if (by === null) throw new Error('neither key opens this data dir: give the key it was sealed with as the current one (SATANG_MASTER_KEY or SATANG_MASTER_KEY_FILE)');
      if (by === 'next') journal = { journal: 'already', api_keys: 0, idempotency_bodies: 0, signing_keys: 0, webhook_urls: 0 };
      else {
        journal = { journal: 'resealed', ...db.transaction(() => resealJournal(db, current, next))() };
        compactAfterSealing(db); // the old ciphertexts leave the free pages and the WAL
      }
    } finally {
      db.close();
    }
    const files = keyFiles.filter(([name]) => existsSync(join(dataDir, name))).map(([name, purpose]) => {
      const path = join(dataDir, name);
      const sealed = readFileSync(path, 'utf8').trim();
      const by = openedBy(sealed, purpose, current, next);
      if (by === null) throw new Error(`${name}: neither key opens it`);
      if (by === 'next') return { name, state: 'already' as const };
      writePrivateFile(path, next.seal(current.open(sealed, purpose), purpose));
      return { name, state: 'resealed' as const };
    });
    // Backups taken before now are sealed with the key just retired: the data dir's note of its last one says so (the stale-backup alert).
    if (journal.journal === 'resealed' || files.some((f) => f.state === 'resealed')) noteBackupSealedWithRetiredKey(dataDir, new Date());
    return { ...journal, files };
  } finally {
    lock.release();
  }
}
