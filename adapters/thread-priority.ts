// Background threads yield the CPU to the request path. On a machine with fewer cores than
// busy threads (two cores: the event loop, the journal's writer thread, the read side, the
// request log, the load), Linux shares time between threads by their nice value; a thread
// that raises its own (which needs no privilege) still runs whenever a core is free, but
// gives way while the event loop or the writer thread wants one, so requests wait less.
// Linux only (a thread's nice is per thread there, set through its id); elsewhere nothing.

import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Sets the calling thread's nice value (0 normal … 19 lowest). Best effort: false where
 * threads cannot be told apart or the system refuses (a sandbox that forbids setpriority),
 * and the thread goes on at its priority rather than fail to start.
 */
export function setThisThreadNice(nice: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/task/')[1]); // "<pid>/task/<tid>"
    if (!Number.isSafeInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false; // not Linux, or refused
  }
}
