// `satang backup --to DIR` and `satang restore --from DIR` (adapters/sqlite/backup.ts): a
// consistent backup of the data dir taken while the server runs, checked as `satang
// verify` checks a journal, and its restore into a data dir without a journal. Both print
// a summary (or the JSON with --json); a backup that verifies is noted in the data dir
// (last-backup.json, read by the metrics); exit 0 when the result verifies, 1 when it does not
// (the backup or the restore is kept, for a person to look at), 2 on a usage error or a
// refusal (an existing target, a damaged backup, an unreachable NATS).
// With NATS (--nats, $SATANG_NATS_URL), restore first reads what the journal stream holds
// past the backup's tail — the entries committed after the backup, which the restore loses
// — and, once the files are restored and verify, deletes the stream: the restored journal
// gives those seqs again, and the stream must not hold the lost entries, nor their message
// ids in its duplicate window (a purge keeps those), or it would drop the new entries.
// What was lost is printed and kept in the data dir (restore-lost.json) for the operators.
// A NATS failure at the deletion, once the files are restored, exits 1 with the command
// to delete the stream by hand (the relay publishes nothing to it meanwhile).

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NatsConnection } from 'nats';
import { connectNatsOnce, deleteJournalStream, journalEntriesBeyond, type StreamBeyond } from '../../adapters/bus/nats.ts';
import { natsAuthFrom, withoutNatsCredentials } from '../../adapters/bus/nats-settings.ts';
import { writePrivateFile } from '../../adapters/private-files.ts';
import { makeBackup, readManifest, recordBackup, restoreBackup, restoreMarkerFileName, type BackupManifest } from '../../adapters/sqlite/backup.ts';
import { limits, readSideLimits } from '../../core/limits.ts';
import { journalStreamName, type RelayedEntry } from '../../projections/entry.ts';
import { journalFileName } from '../../adapters/sqlite/schema.ts';
import { defaultDataDir, exitFailed, exitOk, exitUsage, flag, parseCommand, text, urlOption, type Args, type CommandSpec } from './args.ts';
import { verifyJournal } from './verify.ts';
import { satangServerAt } from './reach.ts';
import { redactUrl } from '../../server/secret-text.ts';
import { backupKeyFacts, keyMismatchUpFront, masterKeyOpensRestored, masterKeyReminder } from './restore-key.ts';

const dataDirOption = { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" } as const;
const jsonOption = { type: 'boolean', help: 'print the manifest and the verification as JSON' } as const;

export const backupSpec: CommandSpec = {
  usage: 'satang backup --to DIR',
  summary: 'Backs the data dir up while the server runs: journal.db and logs.db as consistent snapshots, the slips, the sealed keys (not the master key: keep it apart), with a manifest of sizes and SHA-256; then verifies the copied journal (hash chain, replay, balances). DIR must not exist.',
  options: { to: { type: 'string', value: 'DIR', required: true, help: 'a new directory for the backup' }, 'data-dir': dataDirOption, json: jsonOption },
};

export const restoreSpec: CommandSpec = {
  usage: 'satang restore --from DIR',
  summary: "Restores a backup into a data dir that holds no journal (stop the API and the projector, and move the old data dir aside first): checks every file against the manifest, copies them, verifies the journal. Projections are rebuilt when the server starts. With NATS, it lists what the journal stream holds past the backup (committed after it: lost), keeps that list in restore-lost.json, and deletes the stream (the relay makes it again and publishes the journal into it; the projector waits for it).",
  options: {
    from: { type: 'string', value: 'DIR', required: true, help: 'the backup directory (its backup.json)' }, 'data-dir': dataDirOption,
    nats: { type: 'string', value: 'URL', help: "the journal stream's NATS server: what it holds past the backup is listed, then the stream is deleted ($SATANG_NATS_URL counts only for a restore into $SATANG_DATA_DIR, the deployment's own data dir)" },
    json: jsonOption,
    url: { ...urlOption, help: "the deployment's API ($SATANG_BASE_URL, else http://$SATANG_HOST:$SATANG_PORT): a restore into its data dir, or one that resets the journal stream, is refused while it answers" },
  },
};

/** Where a restore with NATS keeps what it lost, in the restored data dir. */
export const restoreLostFileName = 'restore-lost.json';

/** What a restore loses: the entries committed after the backup, as the journal stream still holds them. */
interface Lost {
  readonly backup_tail_seq: number;
  readonly stream_last_seq: number | null;
  /** Entries committed after the backup (journal seqs are gapless: the stream's last seq less the backup's). */
  readonly entries: number;
  readonly from_seq: number | null;
  readonly to_seq: number | null;
  readonly first_recorded_at: string | null;
  readonly last_recorded_at: string | null;
  /** Whether every lost entry was read (else only the first restoreLostEntriesListedMax are in `merchants`). */
  readonly listed_all: boolean;
  /** Per merchant and mode: the entries, the webhook events emitted for them, and the orders they touched. */
  readonly merchants: readonly { merchant_id: string | null; livemode: boolean | null; entries: number; events: number; orders: string[] }[];
  /** How many messages the deleted stream held; null when it could not be deleted (it must be, by hand, before the server starts). */
  readonly stream_deleted_messages: number | null;
}

function lostOf(tail: number, beyond: StreamBeyond, deletedMessages: number | null): Lost {
  const byMerchant = new Map<string, { merchant_id: string | null; livemode: boolean | null; entries: number; events: number; orders: Set<string> }>();
  for (const e of beyond.entries) {
    const key = `${e.merchantId}\n${e.livemode}`;
    let m = byMerchant.get(key);
    if (!m) byMerchant.set(key, (m = { merchant_id: e.merchantId, livemode: e.livemode, entries: 0, events: 0, orders: new Set() }));
    m.entries++;
    m.events += e.events.length;
    if (e.kind === 'deposit' || e.kind === 'withdrawal') m.orders.add(e.stream);
  }
  const last = beyond.lastSeq ?? tail;
  const at = (e: RelayedEntry | undefined) => (e ? new Date(e.recordedAt).toISOString() : null);
  return {
    backup_tail_seq: tail, stream_last_seq: beyond.lastSeq, entries: Math.max(0, last - tail), from_seq: last > tail ? tail + 1 : null, to_seq: last > tail ? last : null,
    first_recorded_at: at(beyond.entries[0]), last_recorded_at: at(beyond.entries[beyond.entries.length - 1]), listed_all: !beyond.more,
    merchants: [...byMerchant.values()].map((m) => ({ ...m, orders: [...m.orders].sort() })), stream_deleted_messages: deletedMessages,
  };
}

interface Verified { readonly ok: boolean; readonly journal_ok: boolean; readonly action_log_ok: boolean; readonly mismatches: readonly string[] }

/** `satang verify`'s journal checks on a copy, read-only (the copy is left byte for byte as its manifest says). */
function verifyCopy(dir: string): Verified {
  const db = new Database(join(dir, journalFileName), { readonly: true, fileMustExist: true });
  try {
    const { report, actionLog } = verifyJournal(db);
    return { ok: report.ok && actionLog.ok, journal_ok: report.ok, action_log_ok: actionLog.ok, mismatches: report.mismatches.slice(0, 20) };
  } finally {
    db.close();
  }
}

function print(args: Args, what: string, dir: string, manifest: BackupManifest, verified: Verified, lost?: Lost): number {
  if (flag(args, 'json')) {
    // A restore's JSON says what it undoes too: automation reads this, not the text.
    const security = what === 'restored into' ? { security: { revocations_undone_after: manifest.taken_at, warning: undoneSecurity(manifest.taken_at) } } : {};
    process.stdout.write(`${JSON.stringify({ [what]: dir, manifest, verified, ...(lost ? { lost } : {}), ...security }, null, 2)}\n`);
  } else {
    const bytes = manifest.files.reduce((t, f) => t + f.bytes, 0);
    const slips = manifest.files.filter((f) => f.path.startsWith('slips/')).length;
    process.stdout.write([
      `${what} ${dir}: journal up to seq ${manifest.journal.tail_seq} (head ${manifest.journal.head_hash?.slice(0, 16) ?? 'none'}…), taken ${manifest.taken_at}`,
      `files: ${manifest.files.length} (${slips} slip files), ${(bytes / 1_048_576).toFixed(1)} MB, each with its SHA-256 in backup.json`,
      `verified: ${verified.ok ? 'hash chain, replay against the snapshots, balances against the postings, action log: OK' : `FAILED${verified.mismatches.length ? `: ${verified.mismatches.join('; ')}` : ''}`}`,
      `not included: ${manifest.not_included.join('; ')}`,
      '',
    ].join('\n'));
    if (lost) printLost(lost, dir);
    if (what === 'restored into') process.stdout.write(`${undoneSecurity(manifest.taken_at)}\n`);
  }
  return verified.ok ? exitOk : exitFailed;
}

/**
 * What a restore undoes that no merchant's feed tells of: a revocation made after the backup
 * is not in it, so a key revoked for a leak, or an operator cut off, works again (an audit's
 * finding). Said beside every restore, with where the revocations are named.
 */
function undoneSecurity(takenAt: string): string {
  return [
    `SECURITY: what was revoked after ${takenAt} is not revoked in the restored data dir — API keys revoked, operators revoked or signed out,`,
    '  webhook endpoints disabled, signing keys withdrawn. Revoke them again before the server takes traffic: the server log\'s /v1/bo lines',
    `  since then, or \`scripts/satang bo actions --since ${takenAt} --outcome ok\` on a server started on the old data dir, name each one.`,
  ].join('\n');
}

function refused(command: string, error: unknown): number {
  process.stderr.write(`satang ${command}: ${(error as Error).message}\n`);
  return exitUsage;
}

export async function backupCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(backupSpec, argv);
  if (typeof args === 'number') return args;
  const to = text(args, 'to');
  let manifest: BackupManifest;
  try {
    manifest = makeBackup(text(args, 'data-dir'), to);
  } catch (error) {
    return refused('backup', error);
  }
  const verified = verifyCopy(to);
  if (verified.ok) recordBackup(text(args, 'data-dir'), to, manifest); // the stale-backup alert's clock (server/metrics.ts)
  return print(args, 'backup', to, manifest, verified);
}

/**
 * The NATS whose journal stream a restore resets: --nats, or $SATANG_NATS_URL only when the
 * restore goes into the deployment's own data dir ($SATANG_DATA_DIR). A drill that restores
 * into a scratch dir with the unit's environment loaded would otherwise delete the stream the
 * running deployment publishes to (outside-in SRE audit).
 */
function restoreNatsUrl(explicit: string, dataDir: string): string {
  if (explicit !== '') return explicit;
  const fromEnv = process.env.SATANG_NATS_URL ?? '';
  if (fromEnv === '') return '';
  const deployment = process.env.SATANG_DATA_DIR;
  if (deployment !== undefined && resolve(deployment) === resolve(dataDir)) return fromEnv;
  process.stderr.write(`satang restore: ${resolve(dataDir)} is not the deployment's data dir ($SATANG_DATA_DIR), so the journal stream at $SATANG_NATS_URL is left alone; pass --nats URL to reset it for this data dir\n`);
  return '';
}

export async function restoreCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(restoreSpec, argv);
  if (typeof args === 'number') return args;
  const dataDir = text(args, 'data-dir');
  const natsUrl = restoreNatsUrl(text(args, 'nats'), dataDir);
  // Which key opens the backup, read from it before anything is copied (after a rekey, the
  // data dir's key now does not): said up front, and the reminder names the right key.
  const keyFacts = backupKeyFacts(text(args, 'from'), dataDir);
  const reminder = () => masterKeyReminder(dataDir, masterKeyOpensRestored(dataDir), keyFacts);
  // A server still running (its data dir moved aside under it) goes on answering writes into
  // the moved dir — lost to the restore, and to restore-lost.json — and its relay makes the
  // deleted stream again with them: a restore into the deployment's data dir, or one that
  // resets the stream, waits until it is stopped (outside-in SRE drill).
  const deployment = resolve(defaultDataDir) === resolve(dataDir);
  if (deployment || natsUrl) {
    const url = text(args, 'url');
    const answering = await satangServerAt(url);
    if (answering !== undefined) {
      const code = refused('restore', new Error(`a satang server answers at ${redactUrl(url)} (${answering}): stop the API and the projector first — it would go on taking writes that the restore loses and no list names${natsUrl ? ', and make the journal stream again' : ''}; nothing was restored`));
      process.stderr.write(`${reminder()}\n`); // done or refused, a restore ends with the reminder (README)
      return code;
    }
  }
  const mismatch = keyMismatchUpFront(keyFacts);
  if (mismatch) process.stderr.write(`${mismatch}\n`);
  let nc: NatsConnection | undefined;
  try {
    // With NATS, what the stream holds past the backup is read before anything is restored.
    let beyond: StreamBeyond | undefined;
    let tail = 0;
    if (natsUrl) {
      tail = readManifest(text(args, 'from')).journal.tail_seq;
      nc = await connectNatsOnce(natsUrl, natsAuthFrom(process.env)).catch((error: unknown) => {
        throw new Error(`cannot reach NATS at ${natsUrl} (${(error as Error).message}): bring it up, or restore without --nats and delete the journal stream by hand (scripts/satang drop-stream --nats URL) before the server starts`);
      });
      beyond = await journalEntriesBeyond(await nc.jetstreamManager({ timeout: readSideLimits.natsApiTimeoutMs }), tail, readSideLimits.restoreLostEntriesListedMax);
    }
    const manifest = restoreBackup(text(args, 'from'), dataDir);
    const verified = verifyCopy(dataDir);
    let lost: Lost | undefined;
    // Only a restore that verifies is one to start on; otherwise the stream is left as it is.
    if (nc && beyond && verified.ok) {
      // The files are restored: from here a NATS failure is reported as what it is, not as a
      // refused restore, and what was lost is still kept.
      const deleted = await deleteJournalStream(await nc.jetstreamManager({ timeout: readSideLimits.natsApiTimeoutMs })).catch((error: unknown) => {
        process.stderr.write(withoutNatsCredentials(natsUrl, `satang restore: the journal is restored and verifies, but the journal stream could not be deleted (${(error as Error).message}): delete it (scripts/satang drop-stream --nats URL) before the server starts; until then the relay publishes nothing\n`));
        return null;
      });
      lost = lostOf(tail, beyond, deleted);
      writePrivateFile(join(dataDir, restoreLostFileName), `${JSON.stringify(lost, null, 2)}\n`);
    } else if (nc) {
      process.stderr.write('satang restore: the restored journal does not verify, so the journal stream was left as it is\n');
    }
    // A restore the configured key cannot open is not one to start on: exit 1 says so to a script.
    const printed = print(args, 'restored into', dataDir, manifest, verified, lost);
    const opens = masterKeyOpensRestored(dataDir); // tried once: the exit code and the reminder say the same
    const code = opens === false ? exitFailed : printed;
    if (flag(args, 'json')) process.stderr.write(`${masterKeyReminder(dataDir, opens, keyFacts)}\n`);
    else {
      if (verified.ok) process.stdout.write('next: start the server on this data dir; the projections are rebuilt from the journal as it starts\n');
      process.stdout.write(`sequences: the server's first start on it moves every merchant's event and balance-history sequences on by ${limits.sequenceJumpAfterRestore} (${restoreMarkerFileName}), so none given out after the backup is given again\n`);
      process.stdout.write(`${masterKeyReminder(dataDir, opens, keyFacts)}\n`);
    }
    return lost?.stream_deleted_messages === null ? exitFailed : code;
  } catch (error) {
    // The NATS URL in a message without its password or token.
    const code = refused('restore', new Error(withoutNatsCredentials(natsUrl, (error as Error).message)));
    process.stderr.write(`${reminder()}\n`);
    return code;
  } finally {
    await nc?.close();
  }
}

function printLost(lost: Lost, dataDir: string): void {
  const stream = lost.stream_deleted_messages === null
    ? `the journal stream could NOT be deleted: delete it (scripts/satang drop-stream --nats URL) before the server starts`
    : `the journal stream was deleted (${lost.stream_deleted_messages} messages), the relay makes it again`;
  const lines = [lost.entries === 0
    ? `journal stream: nothing past the backup's seq ${lost.backup_tail_seq}; ${stream}`
    : `LOST: ${lost.entries} journal entries committed after the backup (seq ${lost.from_seq}–${lost.to_seq}, ${lost.first_recorded_at} – ${lost.last_recorded_at}); ${stream}`];
  for (const m of lost.merchants) lines.push(`  ${m.merchant_id ?? 'system'} ${m.livemode === null ? '' : m.livemode ? 'live' : 'sandbox'}: ${m.entries} entries, ${m.events} webhook events emitted (in its feed, and sent to its endpoints), orders ${m.orders.join(' ') || '—'}`);
  if (!lost.listed_all) lines.push(`  (the first ${lost.merchants.reduce((t, m) => t + m.entries, 0)} entries are listed)`);
  if (lost.entries > 0) lines.push(`the list is kept in ${join(dataDir, restoreLostFileName)}: tell these merchants, whose events feed and webhooks told of what the journal no longer holds`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
