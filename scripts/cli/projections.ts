// `scripts/satang projections rebuild [NAME] [--data-dir DIR]` drops the named projection
// (or all of them) and replays it from journal.db; `scripts/satang projections status
// [--data-dir DIR] [--nats URL]` prints each projection's position and lag behind the
// journal, the relays' positions, parked (poison) entries with their errors, and — with a
// NATS URL (or SATANG_NATS_URL) — the JetStream stream and each durable consumer's backlog.
// Both print JSON. Exit codes: 0 done, 1 rebuild parked entries, 2 a usage or I/O error.

import { JournalReader } from '../../adapters/bus/journal-reader.ts';
import { connectNatsOnce, durableNameOf } from '../../adapters/bus/nats.ts';
import { natsAuthFrom } from '../../adapters/bus/nats-settings.ts';
import { projectionNamed, projectionNames, projections, projectionSchemas } from '../../projections/all.ts';
import { openProjectionsDb } from '../../projections/db.ts';
import { journalStreamName } from '../../projections/entry.ts';
import { readSideLimits } from '../../core/limits.ts';
import { rebuildProjections } from '../../projections/rebuild.ts';
import { startProgress } from './progress.ts';
import { readSideStatus } from '../../projections/status.ts';
import { createLogger } from '../../server/log.ts';
import { defaultDataDir, dispatch, exitUsage, text, type Subcommand } from './args.ts';
import { dataDirProblem } from './data-dir.ts';

/** Columns opening adds to an older projections.db are said on stderr: stdout carries the JSON. */
const schemaLog = () => createLogger({ destination: process.stderr });

const dataDirOption = { type: 'string', value: 'DIR', default: defaultDataDir, help: "the server's data directory ($SATANG_DATA_DIR)" } as const;

const subcommands: readonly Subcommand[] = [
  {
    words: ['rebuild'],
    spec: {
      usage: 'satang projections rebuild [NAME]',
      summary: `Drops the named projection (or all of them) and replays it from journal.db; prints a JSON report (exit 1 when entries were parked). NAME: one of ${projectionNames.join(', ')}.`,
      words: ['[NAME]'],
      options: { 'data-dir': dataDirOption },
    },
    run: async (args) => noDataDir(text(args, 'data-dir')) ?? rebuild(text(args, 'data-dir'), args.words[0]),
  },
  {
    words: ['status'],
    spec: {
      usage: 'satang projections status',
      summary: "Prints each projection's position and lag behind the journal, the relays' positions, parked entries and, with a NATS URL, the JetStream backlog, as JSON.",
      options: {
        'data-dir': dataDirOption,
        nats: { type: 'string', value: 'URL', default: process.env.SATANG_NATS_URL ?? '', help: 'a NATS server to ask for the stream and consumers ($SATANG_NATS_URL)' },
      },
    },
    run: async (args) => noDataDir(text(args, 'data-dir')) ?? status(text(args, 'data-dir'), text(args, 'nats')),
  },
];

export async function projectionsCommand(argv: readonly string[]): Promise<number> {
  return dispatch('projections', 'The read models built from the journal (see README, Read side).', subcommands, argv);
}

/** Exit 2 (an I/O error, as this command's header has it; 1 means parked entries) naming the dir, when no server has started on it. */
function noDataDir(dataDir: string): number | undefined {
  const problem = dataDirProblem(dataDir, 'journal');
  if (problem === undefined) return undefined;
  process.stderr.write(`satang projections: ${problem}\n`);
  return exitUsage;
}

function rebuild(dataDir: string, name: string | undefined): number {
  const chosen = name === undefined ? projections : [projectionNamed(name)];
  if (chosen.some((p) => p === undefined)) {
    process.stderr.write(`unknown projection ${name}; one of ${projectionNames.join(', ')}\n`);
    return 2;
  }
  const journal = new JournalReader(dataDir);
  const db = openProjectionsDb(dataDir, projectionSchemas, schemaLog());
  try {
    const progress = startProgress('projections rebuild', { total: journal.tail() });
    const report = rebuildProjections(db, journal, chosen.map((p) => p!), createLogger(), (entries, tail) => progress.step(entries, { phase: 'replay', total: tail }));
    progress.finish();
    console.log(JSON.stringify(report, null, 2));
    return report.parked === 0 ? 0 : 1;
  } finally {
    db.close();
    journal.close();
  }
}

async function status(dataDir: string, natsUrl: string): Promise<number> {
  const journal = new JournalReader(dataDir);
  const db = openProjectionsDb(dataDir, projectionSchemas, schemaLog());
  try {
    const report = readSideStatus(db, journal.tail());
    const nats = natsUrl ? await natsStatus(natsUrl) : undefined;
    console.log(JSON.stringify({ ...report, ...(nats ? { nats } : {}) }, null, 2));
    return 0;
  } finally {
    db.close();
    journal.close();
  }
}

async function natsStatus(url: string): Promise<Record<string, unknown>> {
  try {
    const nc = await connectNatsOnce(url, natsAuthFrom(process.env));
    try {
      const jsm = await nc.jetstreamManager({ timeout: readSideLimits.natsApiTimeoutMs });
      const stream = await jsm.streams.info(journalStreamName);
      const consumers: Record<string, unknown> = {};
      for (const name of projectionNames) {
        try {
          const c = await jsm.consumers.info(journalStreamName, durableNameOf(name));
          consumers[name] = { durable: c.name, num_pending: c.num_pending, num_ack_pending: c.num_ack_pending, num_redelivered: c.num_redelivered, delivered_stream_seq: c.delivered.stream_seq };
        } catch (error) {
          consumers[name] = { error: String(error) };
        }
      }
      return { stream: { name: journalStreamName, messages: stream.state.messages, first_seq: stream.state.first_seq, last_seq: stream.state.last_seq }, consumers };
    } finally {
      await nc.close();
    }
  } catch (error) {
    return { error: String(error) };
  }
}
