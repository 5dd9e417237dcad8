// `satang drop-stream --nats URL [--data-dir DIR] [--force]`: deletes the NATS journal
// stream (SATANG_JOURNAL) when its last entry is not this journal's — one left behind by a
// restore without `--nats`, or another data dir's — so that the relay, which publishes
// nothing into such a stream, publishes this journal again from seq 1. It is the shipped
// way to do what `nats stream rm` would, without the nats CLI. A stream that is this
// journal's is left as it is unless --force: deleting it only makes the relay publish
// everything again, and the projector rebuild from it. Exit 0 when the stream is gone (or
// was never there), 1 when it was kept or NATS did not answer, 2 on a usage error.

import { JournalReader } from '../../adapters/bus/journal-reader.ts';
import type { JetStreamManager } from 'nats';
import { connectNatsOnce, deleteJournalStream, journalStreamExists, lastEntryInStream } from '../../adapters/bus/nats.ts';
import { natsAuthFrom, withoutNatsCredentials } from '../../adapters/bus/nats-settings.ts';
import { readSideLimits } from '../../core/limits.ts';
import { journalStreamName } from '../../projections/entry.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { journalFileName } from '../../adapters/sqlite/schema.ts';
import { defaultDataDir, exitFailed, exitOk, flag, parseCommand, text, usageError, type CommandSpec } from './args.ts';

export const dropStreamSpec: CommandSpec = {
  usage: 'satang drop-stream',
  summary: `Deletes the NATS journal stream (${journalStreamName}) when its last entry is not this data dir's journal's (after a restore without --nats, or another deployment's), so the relay publishes this journal again from seq 1. A stream that is this journal's is kept unless --force.`,
  options: {
    nats: { type: 'string', value: 'URL', default: process.env.SATANG_NATS_URL ?? '', help: "the journal stream's NATS server ($SATANG_NATS_URL)" },
    'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR), whose journal the stream is compared with" },
    force: { type: 'boolean', help: "delete it even when it is this journal's (the relay then publishes everything again)" },
  },
};

/** What the journal stream holds against the data dir's journal: the relay's own test (adapters/bus/nats.ts), for doctor and drop-stream. */
export type StreamOwnership =
  | { readonly kind: 'missing' | 'empty' | 'aged_out' }
  | { readonly kind: 'no_journal' | 'ours' | 'foreign'; readonly seq: number };

export async function streamOwnership(jsm: JetStreamManager, dataDir: string): Promise<StreamOwnership> {
  if (!(await journalStreamExists(jsm))) return { kind: 'missing' };
  const last = await lastEntryInStream(jsm);
  if (last === 0) return { kind: 'empty' };
  if (last === null) return { kind: 'aged_out' };
  if (!existsSync(join(dataDir, journalFileName))) return { kind: 'no_journal', seq: last.seq };
  const reader = new JournalReader(dataDir);
  try {
    return { kind: reader.holds(last) ? 'ours' : 'foreign', seq: last.seq };
  } finally {
    reader.close();
  }
}

export async function dropStreamCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(dropStreamSpec, argv);
  if (typeof args === 'number') return args;
  const natsUrl = text(args, 'nats');
  if (natsUrl === '') return usageError(dropStreamSpec, 'name the NATS server: --nats URL (or $SATANG_NATS_URL)');
  const dataDir = text(args, 'data-dir');
  let nc;
  try {
    nc = await connectNatsOnce(natsUrl, natsAuthFrom(process.env));
  } catch (error) {
    process.stderr.write(withoutNatsCredentials(natsUrl, `satang drop-stream: NATS at ${natsUrl} does not answer (${(error as Error).message}); nothing was deleted\n`));
    return exitFailed;
  }
  try {
    const jsm = await nc.jetstreamManager({ timeout: readSideLimits.natsApiTimeoutMs });
    const held = flag(args, 'force') ? undefined : await streamOwnership(jsm, dataDir);
    if (held?.kind === 'no_journal') {
      process.stderr.write(`satang drop-stream: ${dataDir} holds no journal to compare ${journalStreamName} with; kept (name the data dir, or --force)\n`);
      return exitFailed;
    }
    if (held?.kind === 'ours') {
      process.stdout.write(`${journalStreamName}'s last entry (seq ${held.seq}) is this journal's: kept (--force deletes it all the same)\n`);
      return exitFailed;
    }
    if (!(await journalStreamExists(jsm))) {
      process.stdout.write(`${journalStreamName} does not exist: nothing to delete (the relay makes it at its next write)\n`);
      return exitOk;
    }
    const deleted = await deleteJournalStream(jsm);
    process.stdout.write(`${journalStreamName} deleted (${deleted} messages): the relay publishes this journal into a new stream from seq 1, and the projector rebuilds from it\n`);
    return exitOk;
  } catch (error) {
    process.stderr.write(withoutNatsCredentials(natsUrl, `satang drop-stream: ${(error as Error).message}; nothing more was deleted\n`));
    return exitFailed;
  } finally {
    await nc.close();
  }
}
