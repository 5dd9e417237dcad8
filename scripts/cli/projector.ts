// `scripts/satang projector [--data-dir DIR] [--nats URL]`: runs every projection as its own
// process against NATS JetStream (SATANG_NATS_URL), so the API and the projections scale
// apart. It consumes the durable consumers satang_<projection>, writes projections.db in the
// data directory (which the API, run with the same SATANG_NATS_URL and data directory,
// serves its reads from) and reads journal.db there to fill gaps and to check that every
// entry the stream delivers is this journal's (projections/own-journal.ts). Runs until SIGTERM
// or SIGINT; a poison entry is parked and logged, never retried forever.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { JournalReader } from '../../adapters/bus/journal-reader.ts';
import { connectNats, JetStreamTransport, logConnectionStatus } from '../../adapters/bus/nats.ts';
import { natsAuthFrom, natsAuthProblems, withoutNatsCredentials } from '../../adapters/bus/nats-settings.ts';
import { projectionSchemas } from '../../projections/all.ts';
import { openProjectionsDb } from '../../projections/db.ts';
import { Projector } from '../../projections/projector.ts';
import { OwnJournalTransport } from '../../projections/own-journal.ts';
import { createLogger } from '../../server/log.ts';
import { readSideLimits } from '../../core/limits.ts';
import { defaultDataDir, parseCommand, Refusal, text, usageError, type CommandSpec } from './args.ts';

const journalWaitMs = 500;

export const projectorSpec: CommandSpec = {
  usage: 'satang projector',
  summary: 'Runs every projection as its own process against NATS JetStream, writing projections.db in the data directory, until SIGTERM or SIGINT.',
  options: {
    'data-dir': { type: 'string', value: 'DIR', default: defaultDataDir, help: "the API's data directory ($SATANG_DATA_DIR)" },
    nats: { type: 'string', value: 'URL', default: process.env.SATANG_NATS_URL ?? '', help: 'the NATS server ($SATANG_NATS_URL; required)' },
  },
};

export async function projectorCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommand(projectorSpec, argv);
  if (typeof args === 'number') return args;
  const dataDir = text(args, 'data-dir');
  const natsUrl = text(args, 'nats');
  if (!natsUrl) return usageError(projectorSpec, 'the projector runs against NATS: set SATANG_NATS_URL or pass --nats URL');
  // Its unit reads the API's environment: what the API refuses there (a password in the URL, no
  // sign-in in production, a password file others may read) the projector refuses too, rather
  // than carrying the journal over a sign-in the API would not use.
  const mode = process.env.SATANG_ENV === 'production' ? 'production' : 'development';
  const natsProblems = natsAuthProblems({ ...process.env, SATANG_NATS_URL: natsUrl }, mode);
  if (natsProblems.length > 0) throw new Refusal(`the NATS settings are refused, as the API refuses them (see .env.example):\n  - ${natsProblems.join('\n  - ')}`);
  const log = createLogger();
  let stopping = false;
  const stopped = new Promise<void>((resolve) => {
    const stop = () => { stopping = true; resolve(); };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  let toldWaiting = false;
  while (!existsSync(join(dataDir, 'journal.db')) && !stopping) {
    if (!toldWaiting) log.info({ data_dir: dataDir }, 'projector waits for journal.db (start the API first)');
    toldWaiting = true;
    await Promise.race([stopped, new Promise((r) => setTimeout(r, journalWaitMs))]);
  }
  if (stopping) return 0;
  const db = openProjectionsDb(dataDir, projectionSchemas, log);
  const journal = new JournalReader(dataDir);
  // Said while NATS does not answer (connectNats retries without a word), and a stop then
  // ends the process at once: the pending connection would otherwise keep it alive.
  const waiting = setInterval(() => log.warn({ nats: withoutNatsCredentials(natsUrl) }, 'projector still waiting for NATS'), readSideLimits.natsWaitLogMs);
  let nc;
  try {
    nc = await Promise.race([connectNats(natsUrl, 'satang-projector', natsAuthFrom(process.env)), stopped.then(() => null)]);
  } catch (error) {
    // A refused sign-in is no outage to wait out: said, and the process ends (the interval kept it alive, deaf to SIGTERM).
    journal.close();
    db.close();
    throw /authori[sz]ation/i.test(String(error)) ? new Refusal(`NATS refused the sign-in (${(error as Error).message}): give SATANG_NATS_USER and SATANG_NATS_PASSWORD_FILE as NATS's authorization has them`) : error;
  } finally {
    clearInterval(waiting);
  }
  if (!nc) {
    journal.close();
    db.close();
    log.info('projector stopped before NATS answered');
    process.exit(0);
  }
  void logConnectionStatus(nc, log, 'projector'); // ends when the connection closes
  const projector = new Projector(db, journal, log);
  // Entries are checked against this data dir's journal: another journal's stream is never applied.
  projector.start(new OwnJournalTransport(new JetStreamTransport(nc, log), journal, log));
  log.info({ data_dir: dataDir, nats: withoutNatsCredentials(natsUrl), positions: Object.fromEntries(projector.appliers.map((a) => [a.name, a.position()])) }, 'projector running');
  await stopped;
  await projector.stop();
  await nc.close();
  journal.close();
  db.close();
  log.info('projector stopped');
  return 0;
}
