// The background worker threads yield the CPU to the request path: in a running server the
// read side's and the request log's threads run at writeSideLimits.backgroundThreadNice,
// while the event loop and the journal's writer thread keep the process's (0). Read from
// /proc/self/task/<tid>/stat (the 19th field is the nice value), Linux as deployed.

import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeSideLimits } from '../../core/limits.ts';
import { TestServer } from '../support/server-harness.ts';

/** Each thread of this process: its id and nice value. */
function threads(): { tid: number; nice: number }[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after "pid (comm) "
    return { tid: Number(tid), nice: Number(fields[16]) }; // field 19 of stat, the 17th after comm
  });
}

test('a running server: the read side and the request log run niced, the event loop and the writer thread do not', async () => {
  const before = threads();
  assert.ok(before.every((t) => t.nice === 0), 'the spec starts with every thread at nice 0');
  const s = await TestServer.start();
  try {
    const started = () => threads().filter((t) => !before.some((b) => b.tid === t.tid));
    const niced = () => started().filter((t) => t.nice === writeSideLimits.backgroundThreadNice);
    // The request log's worker boots in the background: a request goes through, and its thread is given a moment.
    assert.is((await fetch(`${s.url}/healthz`)).status, 200);
    for (let i = 0; i < 100 && niced().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is(niced().length, 2, `threads started by the server and their nice: ${JSON.stringify(started())}`);
    assert.is(threads().find((t) => t.tid === process.pid)!.nice, 0, 'the event loop keeps nice 0');
    // The writer thread is among the rest: every other thread the server started keeps 0.
    assert.ok(started().filter((t) => t.nice !== writeSideLimits.backgroundThreadNice).every((t) => t.nice === 0));
  } finally {
    await s.stop();
  }
});

test.run();
