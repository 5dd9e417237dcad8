// The request log's worker thread (started by server/request-log-thread.ts): it owns
// logs.db's one writer (adapters/request-log.ts) and does what a row costs — redaction and
// truncation (server/redact.ts bodyForLog), the batch's transaction, the pruning — so the
// API's thread only hands over what it already holds: each request's metadata, the JSON
// text its body was parsed from, and its answer's text.
//
// Bodies arrive here unredacted, in process memory only (a structured clone between the
// threads); nothing but bodyForLog's output is ever written, and nothing here logs a body.
//
// Messages: parent → worker RequestLogBatch | 'stop'; worker → parent { written: seq } once a
// batch is committed. Batches are handled in the order sent, so 'stop' comes after every
// batch sent before it: the store is closed only when they are all written.

import { parentPort, workerData } from 'node:worker_threads';
import { setThisThreadNice } from '../adapters/thread-priority.ts';
import { writeSideLimits } from '../core/limits.ts';
import { RequestLogStore } from '../adapters/request-log.ts';
import { bodyForLog, redactionRulesVersion, redactStoredBody } from './redact.ts';
import type { BodyHandoff, RequestLogBatch, RequestLogWorkerData } from './request-log-thread.ts';

function keptBody(body: BodyHandoff): string | null {
  return body === null || typeof body === 'string' ? bodyForLog(body) : body.kept;
}

/** An exception ends this worker, and reaches the parent as its 'error' event: as a plain Error, since a SqliteError's structured clone keeps only its code. */
function fatal(error: unknown): never {
  throw new Error(String(error));
}

const port = parentPort!;
setThisThreadNice(writeSideLimits.backgroundThreadNice); // background work: the request path first
let store: RequestLogStore;
try {
  store = new RequestLogStore((workerData as RequestLogWorkerData).dataDir);
  // Rows an older build redacted under older rules are redacted again before new ones come.
  const redactedAgain = store.redactStored(redactionRulesVersion, redactStoredBody);
  if (redactedAgain > 0) port.postMessage({ redactedAgain });
} catch (error) {
  fatal(error);
}
port.on('message', (message: RequestLogBatch | 'stop') => {
  if (message === 'stop') {
    store.close();
    process.exit(0); // ends this worker thread only
  }
  try {
    store.append(message.entries.map((e) => ({ ...e, requestBody: keptBody(e.requestBody), responseBody: keptBody(e.responseBody) })), message.now);
  } catch (error) {
    fatal(error);
  }
  port.postMessage({ written: message.seq });
});
