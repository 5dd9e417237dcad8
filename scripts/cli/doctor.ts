// `satang doctor [--data-dir DIR] [--url URL]`: a deployment's health in one list, before a
// go-live or during an incident — each check OK, WARN or FAIL with what it saw. Read-only:
// it writes nothing to the data dir and takes no lock.
//   config      the environment as the server would read it (every problem at once)
//   master key  the configured key opens the data dir's secrets (its sealed marker); in its
//               place `journal` FAILs when journal.db cannot be read (no SQLite file, corrupt)
//   clock       on the system clock, not further behind journal.db's last entry than a start
//               accepts (FAIL: the server would refuse to start, exit 78)
//   at rest     no secret in clear, every file 0600 and directory 0700 (satang verify's scan)
//   data dir    FAIL when it does not exist: there is nothing to run on (a typo, the wrong cwd)
//   disk        free space where the data dir lives (FAIL under what /readyz needs for a
//               journal commit, readinessDiskFreeBytesMin; WARN under 10 %)
//   backup      the last verified backup (WARN when none, older than 26 h, gone, or sealed with
//               another master key than the configured one: taken before a rekey)
//   server      GET /readyz at the URL (WARN when it is degraded, not ready or not reachable)
//   stream      with NATS (--nats, $SATANG_NATS_URL): the journal stream's last entry is this
//               journal's (FAIL when it is not: the relay would publish nothing; WARN when
//               NATS does not answer)
// Exit 0 when nothing FAILs (a WARN is for a person to read), 1 otherwise, 2 on a usage error.

import Database from 'better-sqlite3';
import { connectNatsOnce } from '../../adapters/bus/nats.ts';
import { natsAuthFrom, withoutNatsCredentials } from '../../adapters/bus/nats-settings.ts';
import { observabilityLimits, readSideLimits } from '../../core/limits.ts';
import { journalStreamName } from '../../projections/entry.ts';
import { existsSync, statfsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { masterKeyOpens } from '../../adapters/sealing.ts';
import { clockBehindJournal } from '../../adapters/clock.ts';
import { journalLastRecordedAt, manualClockMarkOf } from '../../adapters/sqlite/peek.ts';
import { lastBackup, manifestFileName as backupManifestFileName } from '../../adapters/sqlite/backup.ts';
import { journalFileName, refuseNewerSchema, SchemaTooNew } from '../../adapters/sqlite/schema.ts';
import { unusableDatabases } from '../../adapters/sqlite/unusable.ts';
import { endpointsInClear, scanDataDir } from '../../adapters/sqlite/verify-at-rest.ts';
import { readConfig, type Config } from '../../server/config.ts';
import { existingMasterKey, sealerFor } from '../../server/master-key.ts';
import { defaultDataDir, exitFailed, exitOk, flag, parseCommand, text, type CommandSpec, urlOption } from './args.ts';
import { redactUrl } from '../../server/secret-text.ts';
import { notSatang, readyzAt, whyUnreachable } from './reach.ts';
import { streamOwnership } from './stream.ts';

export const doctorSpec: CommandSpec = {
  usage: 'satang doctor',
  summary: "A deployment's health in one list, each check OK, WARN or FAIL: the configuration, the master key against the data dir, secrets at rest and file modes, free disk, the last verified backup, the server's readiness and, with NATS, whether the journal stream is this journal's. Read-only. Exit 1 when a check FAILs.",
  options: {
    'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" },
    url: urlOption,
    nats: { type: 'string', value: 'URL', default: process.env.SATANG_NATS_URL ?? '', help: "the journal stream's NATS server ($SATANG_NATS_URL): is the stream this journal's?" },
    json: { type: 'boolean', help: 'print the checks as JSON' },
  },
};

type Level = 'OK' | 'WARN' | 'FAIL';
export interface Check { readonly check: string; readonly level: Level; readonly detail: string }

const backupStaleMs = 26 * 3_600_000;
const diskFreeWarnFraction = 0.1;

/** The free space a statfs reports, in the units it reports them. */
export interface DiskSpace { readonly bavail: number; readonly bsize: number; readonly blocks: number }

/**
 * FAIL below the room a journal commit needs — the bound /readyz answers 503 disk_full under
 * (server/readiness.ts), so doctor and the load balancer agree — and WARN under 10 % free.
 */
export function diskCheck(dataDir: string, fs: DiskSpace): Check {
  const freeBytes = fs.bavail * fs.bsize;
  const free = fs.blocks > 0 ? fs.bavail / fs.blocks : 0;
  const detail = `${(freeBytes / 1e9).toFixed(1)} GB free (${(free * 100).toFixed(0)} %) where ${dataDir} lives`;
  if (freeBytes < observabilityLimits.readinessDiskFreeBytesMin) {
    return { check: 'disk', level: 'FAIL', detail: `${freeBytes} bytes free where ${dataDir} lives, under the ${observabilityLimits.readinessDiskFreeBytesMin} a journal commit needs: the server refuses writes (/readyz 503 disk_full)` };
  }
  return { check: 'disk', level: free < diskFreeWarnFraction ? 'WARN' : 'OK', detail };
}

/**
 * What the backup check reads of a backup's journal, opened once read-only (undefined when it
 * cannot be opened): whether the configured key opens it (undefined: no marker, no config, or
 * unreadable; after a rekey a backup sealed with the retired key restores only with that key),
 * and how many webhook endpoints it keeps with their URL's path or query in clear (taken by a
 * build before those were sealed, 35b7865: a restore seals them at its first start, but the
 * backup itself holds them).
 */
function backupJournalFacts(file: string, config: Config | undefined, env: NodeJS.ProcessEnv): { opensWithKey?: boolean; endpointsInClear: number } | undefined {
  if (!existsSync(file)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const opened = db;
    const attempt = <T>(read: () => T): T | undefined => { try { return read(); } catch { return undefined; } };
    const opensWithKey = config ? attempt(() => masterKeyOpens(opened, sealerFor(config, env))) : undefined;
    return { ...(opensWithKey !== undefined ? { opensWithKey } : {}), endpointsInClear: attempt(() => endpointsInClear(opened).length) ?? 0 };
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

function masterKeyCheck(config: Config, env: NodeJS.ProcessEnv): Check {
  const file = join(config.dataDir, journalFileName);
  if (!existsSync(file)) return { check: 'master key', level: 'WARN', detail: `no ${journalFileName} yet: nothing is sealed` };
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    refuseNewerSchema(db);
    const opens = masterKeyOpens(db, sealerFor(config, env));
    if (opens === undefined) return { check: 'master key', level: 'WARN', detail: 'the data dir has no sealed marker yet (a server has not started on it)' };
    return opens
      ? { check: 'master key', level: 'OK', detail: `the configured key (${config.masterKey.kind}) opens the data dir` }
      : { check: 'master key', level: 'FAIL', detail: 'the configured key does not open the data dir: a server would refuse to start' };
  } catch (error) {
    // The journal itself cannot be read (no SQLite file, corrupt, unreadable): said of the journal, not of the key.
    if (error instanceof SchemaTooNew) return { check: 'journal', level: 'FAIL', detail: `${error.message}; a server of this build would refuse to start` };
    const code = String((error as { code?: unknown }).code ?? '');
    if (code.startsWith('SQLITE_')) return { check: 'journal', level: 'FAIL', detail: `${file} cannot be read (${code}: ${(error as Error).message}): a server would refuse to start; restore the data dir from a backup (satang restore)` };
    return { check: 'master key', level: 'FAIL', detail: (error as Error).message };
  } finally {
    db?.close();
  }
}

async function serverCheck(url: string): Promise<Check> {
  const shown = redactUrl(url).replace(/\/$/, ''); // a user and password in SATANG_BASE_URL are not printed (fetch refuses them anyway)
  let answer;
  try {
    answer = await readyzAt(url);
  } catch (error) {
    return { check: 'server', level: 'WARN', detail: `${shown} does not answer (${whyUnreachable(error).replaceAll(url, shown)})` };
  }
  const { status, body } = answer;
  if (body === undefined) return { check: 'server', level: 'WARN', detail: notSatang(shown, status, answer.contentType).message };
  if (status === 200 && body.status === 'ready') return { check: 'server', level: 'OK', detail: `${shown} is ready` };
  if (status === 200) return { check: 'server', level: 'WARN', detail: `${shown} takes traffic but is degraded: ${JSON.stringify(body.checks ?? body)}` };
  return { check: 'server', level: 'WARN', detail: `${shown} is not ready (${status}): ${JSON.stringify(body.error?.details?.checks ?? body)}` };
}

/** Whether the journal stream's last entry is this journal's (the relay's own test, adapters/bus/nats.ts). */
async function streamCheck(natsUrl: string, dataDir: string): Promise<Check> {
  let nc;
  try {
    nc = await connectNatsOnce(natsUrl, natsAuthFrom(process.env));
  } catch (error) {
    return { check: 'stream', level: 'WARN', detail: withoutNatsCredentials(natsUrl, `NATS at ${natsUrl} does not answer (${(error as Error).message})`) };
  }
  try {
    let held;
    try {
      held = await streamOwnership(await nc.jetstreamManager({ timeout: readSideLimits.natsApiTimeoutMs }), dataDir);
    } catch (error) {
      // journal.db unreadable (the journal check says so), or NATS refusing the request.
      return { check: 'stream', level: 'WARN', detail: withoutNatsCredentials(natsUrl, `cannot compare ${journalStreamName} with this journal (${(error as Error).message})`) };
    }
    switch (held.kind) {
      case 'missing': return { check: 'stream', level: 'WARN', detail: `${journalStreamName} does not exist (deleted, or NATS's store lost): the relay makes it and publishes this journal from seq 1 at its next write; the projector waits for it` };
      case 'empty': return { check: 'stream', level: 'OK', detail: `no entry in ${journalStreamName} yet: the relay publishes from seq 1` };
      case 'aged_out': return { check: 'stream', level: 'OK', detail: `${journalStreamName}'s messages aged out: it tells nothing` };
      case 'no_journal': return { check: 'stream', level: 'WARN', detail: `${journalStreamName} holds seq ${held.seq}, and ${dataDir} holds no journal to compare it with` };
      case 'ours': return { check: 'stream', level: 'OK', detail: `${journalStreamName}'s last entry (seq ${held.seq}) is this journal's` };
      default: return { check: 'stream', level: 'FAIL', detail: `${journalStreamName}'s last entry (seq ${held.seq}) is not this journal's: the relay publishes nothing until it is deleted (scripts/satang drop-stream --nats URL; after a restore, satang restore --nats does it) — unless another satang still publishes to it (a drill or a second deployment on the same NATS): give this one a NATS of its own instead` };
    }
  } finally {
    await nc.close();
  }
}

/**
 * FAIL when the system clock is further behind journal.db's last entry than a start accepts
 * (server/main.ts refuses it, exit 78: a data dir a manual clock advanced, or this machine's
 * clock wrong); undefined when there is no journal to compare with, or none this build reads.
 */
function clockCheck(config: Config, dataDir: string): Check | undefined {
  let last: number | undefined;
  try {
    last = journalLastRecordedAt(dataDir);
  } catch {
    return undefined; // a journal this build cannot read: the master key's check names why
  }
  if (!last) return undefined;
  const lastText = `journal.db's last entry at ${new Date(last).toISOString()}`;
  if (config.clock === 'manual') return { check: 'clock', level: 'OK', detail: `manual clock; it resumes at ${lastText} or later` };
  const now = Date.now();
  const behind = clockBehindJournal(last, now);
  if (behind) {
    // The usual cause: the server runs on a manual clock and this shell was not given SATANG_CLOCK as the server was.
    let mark: number | undefined;
    try { mark = manualClockMarkOf(dataDir); } catch { /* the journal's check says why it cannot be read */ }
    const hint = mark === undefined ? '' : `; the data dir was run on a manual clock (its mark at ${new Date(mark).toISOString()}): if its server runs with SATANG_CLOCK=manual, give satang the same (export SATANG_CLOCK=manual)`;
    return { check: 'clock', level: 'FAIL', detail: `${behind.message}; a server on the system clock would refuse to start (exit 78)${hint}` };
  }
  return { check: 'clock', level: 'OK', detail: `the system clock is not behind ${lastText}` };
}

export async function doctorCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(doctorSpec, argv);
  if (typeof args === 'number') return args;
  const dataDir = text(args, 'data-dir');
  const env = { ...process.env, SATANG_DATA_DIR: dataDir };
  const checks: Check[] = [];
  let config: Config | undefined;
  try {
    config = readConfig(env);
    checks.push({ check: 'config', level: 'OK', detail: `${config.env}, profile ${config.profile}, clock ${config.clock}` });
  } catch (error) {
    const problems = (error as { problems?: readonly string[] }).problems ?? [(error as Error).message];
    checks.push({ check: 'config', level: 'FAIL', detail: problems.join('; ') });
  }
  if (config?.env === 'production' && !process.env.SATANG_BASE_URL) {
    // Every merchant is given URLs from it (the slip upload's, the claim's): the listening address is seldom what they can reach.
    checks.push({ check: 'addresses', level: 'WARN', detail: `SATANG_BASE_URL is unset: merchants are given ${config.baseUrl}/… URLs (the slip upload's, the claim's); set the public https address` });
  }
  // A file given as the data dir (--data-dir /etc/hostname) is said as a FAIL, as a missing dir is, and the other checks still run.
  const isDir = statSync(dataDir, { throwIfNoEntry: false })?.isDirectory() === true;
  // Each SQLite file readable first: a corrupt journal is said as such, not as a key problem.
  const unusable = isDir ? unusableDatabases(dataDir) : [];
  for (const u of unusable) checks.push({ check: u.file === journalFileName ? 'journal' : 'database', level: 'FAIL', detail: `${join(dataDir, u.file)} is not a usable SQLite file (${u.problem}): a server would refuse to start; ${u.advice}` });
  if (config && !unusable.some((u) => u.file === journalFileName)) {
    checks.push(masterKeyCheck(config, env));
    const clock = clockCheck(config, dataDir);
    if (clock) checks.push(clock);
  }
  if (isDir) {
    // The journal read too, for its webhook endpoints' clear URLs (when it is a usable SQLite file).
    const journalFile = join(dataDir, journalFileName);
    const journal = existsSync(journalFile) && !unusable.some((u) => u.file === journalFileName) ? new Database(journalFile, { readonly: true, fileMustExist: true }) : undefined;
    let atRest;
    try {
      atRest = scanDataDir(dataDir, { masterKey: config && existingMasterKey(config.masterKey, env), ...(journal ? { journal } : {}) });
    } finally {
      journal?.close();
    }
    checks.push(atRest.ok
      ? { check: 'at rest', level: 'OK', detail: `${atRest.files_scanned} files: no secret in clear, modes 0600/0700` }
      : { check: 'at rest', level: 'FAIL', detail: atRest.findings.slice(0, 5).join('; ') });
    checks.push(diskCheck(dataDir, statfsSync(dataDir)));
    const last = lastBackup(dataDir);
    const age = last ? Date.now() - Date.parse(last.taken_at) : Infinity;
    // The note is the server's; the backup is a directory a rotation may have deleted since.
    const gone = last && !existsSync(join(last.path, backupManifestFileName));
    // After a rekey, a backup taken before it is sealed with the retired key: it restores only with that key.
    const backup = last && !gone ? backupJournalFacts(join(last.path, journalFileName), config, env) : undefined;
    const sealedApart = backup?.opensWithKey === false;
    const inClear = backup?.endpointsInClear ?? 0;
    if (last && gone) checks.push({ check: 'backup', level: 'WARN', detail: `the last verified backup (${(age / 3_600_000).toFixed(1)} h ago) is no longer at ${last.path}: take another (satang backup --to DIR)` });
    else if (sealedApart) checks.push({ check: 'backup', level: 'WARN', detail: `the last verified backup (${(age / 3_600_000).toFixed(1)} h ago, ${last!.path}) is sealed with another master key than the configured one (taken before a rekey): it restores only with that key — keep it with the backup, or take a new backup (satang backup --to DIR)` });
    else if (inClear > 0) checks.push({ check: 'backup', level: 'WARN', detail: `the last verified backup (${(age / 3_600_000).toFixed(1)} h ago, ${last!.path}) keeps ${inClear} webhook endpoint URL${inClear === 1 ? '' : 's'} with the path or query in clear (taken by a build before they were sealed; secrets a receiver takes in its URL): take a new backup (satang backup --to DIR) and delete that one, or have those receivers' URLs changed` });
    else checks.push(last && age <= backupStaleMs
      ? { check: 'backup', level: 'OK', detail: `last verified backup ${(age / 3_600_000).toFixed(1)} h ago, up to journal seq ${last.tail_seq}, in ${last.path}` }
      : { check: 'backup', level: 'WARN', detail: last ? `the last verified backup is ${(age / 3_600_000).toFixed(1)} h old (${last.path})` : 'no verified backup of this data dir (satang backup --to DIR)' });
  } else if (existsSync(dataDir)) {
    checks.push({ check: 'data dir', level: 'FAIL', detail: `${resolve(dataDir)} is not a directory: pass the server's data dir (--data-dir)` });
  } else {
    // Nothing to run on: a typo or the wrong cwd, or a volume not mounted (a server started here would begin an empty journal).
    checks.push({ check: 'data dir', level: 'FAIL', detail: `no satang data dir at ${resolve(dataDir)}: start the server once (npm start) or pass --data-dir` });
  }
  checks.push(await serverCheck(text(args, 'url')));
  if (text(args, 'nats')) checks.push(await streamCheck(text(args, 'nats'), dataDir));
  if (flag(args, 'json')) process.stdout.write(`${JSON.stringify({ ok: !checks.some((c) => c.level === 'FAIL'), checks }, null, 2)}\n`);
  else process.stdout.write(`${checks.map((c) => `${c.level.padEnd(4)}  ${c.check.padEnd(10)}  ${c.detail}`).join('\n')}\n`);
  return checks.some((c) => c.level === 'FAIL') ? exitFailed : exitOk;
}
