// Progress of long CLI work (projections rebuild, verify; reconcile and certify may use it
// too), written to stderr so that stdout keeps only the command's result:
//   - on a terminal, a cli-progress bar redrawn in place (synchronous redraws, so a
//     synchronous loop that never yields still shows progress);
//   - otherwise (a pipe, a file, CI, systemd's journal) one JSON line per step:
//       {"progress":"verify","phase":"replay","done":1000,"total":5234}
//     and a last line with "finished": true.
//
//   const progress = startProgress('projections rebuild', { total: tail });
//   progress.step(done, { phase: 'replay' });   // as often as is useful; the caller chooses the step
//   progress.finish();

import { Presets, SingleBar } from 'cli-progress';

export interface Progress {
  /** `done` of the total so far; `phase` names the part of the work, when it has parts. */
  step(done: number, detail?: { readonly phase?: string; readonly total?: number }): void;
  finish(): void;
}

export interface ProgressOptions {
  readonly total: number;
  /** Where progress goes (default: stderr). */
  readonly stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Forces the bar (true) or the JSON lines (false); default: whether the stream is a terminal. */
  readonly tty?: boolean;
}

export function startProgress(label: string, options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const tty = options.tty ?? stream.isTTY === true;
  return tty ? barProgress(label, options.total, stream) : jsonProgress(label, options.total, stream);
}

function barProgress(label: string, total: number, stream: NodeJS.WritableStream): Progress {
  const bar = new SingleBar({
    format: `${label} {phase} [{bar}] {percentage}% {value}/{total} eta {eta_formatted}`,
    stream: stream as NodeJS.WriteStream, hideCursor: true, clearOnComplete: false, synchronousUpdate: true,
  }, Presets.shades_classic);
  bar.start(Math.max(total, 1), 0, { phase: '' });
  return {
    step(done, detail = {}) {
      if (detail.total !== undefined) bar.setTotal(Math.max(detail.total, 1));
      bar.update(done, { phase: detail.phase ?? '' });
    },
    finish() { bar.stop(); },
  };
}

function jsonProgress(label: string, total: number, stream: NodeJS.WritableStream): Progress {
  let last = { done: 0, total, phase: undefined as string | undefined };
  const line = (fields: Record<string, unknown>) => stream.write(`${JSON.stringify({ progress: label, ...fields })}\n`);
  return {
    step(done, detail = {}) {
      last = { done, total: detail.total ?? last.total, phase: detail.phase ?? last.phase };
      line({ ...(last.phase !== undefined ? { phase: last.phase } : {}), done, total: last.total });
    },
    finish() { line({ ...(last.phase !== undefined ? { phase: last.phase } : {}), done: last.done, total: last.total, finished: true }); },
  };
}
