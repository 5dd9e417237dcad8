// Stopping the server as an operator does: `npm start` signalled with SIGTERM (what a
// process manager sends to the PID it started) must stop the server itself, not just npm;
// and shutdown drains — in-flight requests finish, then the process exits even while a
// slow client holds a connection open, no later than SATANG_SHUTDOWN_DRAIN_MS. Each step is
// in the log (pino's JSON lines on stdout): the drain's start with the signal and what it
// waits on, its end with the time it took, and a second signal that exits at once.

import { requestLimits } from '../../core/limits.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../support/ports.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readyWaitMs = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answers(port: number): Promise<boolean> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) });
    return r.status === 200;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The processes whose environment names this data directory: the ones a run started. */
function processesUsing(dataDir: string): number[] {
  const needle = `SATANG_DATA_DIR=${dataDir}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try { if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) pids.push(Number(entry)); } catch { /* gone or not ours */ }
  }
  return pids;
}

interface Started {
  child: ChildProcess; port: number; dataDir: string; exited: Promise<number | null>;
  /** The server's log lines so far (JSON), in order. */
  logs(): Record<string, unknown>[];
}

async function start(command: string, args: readonly string[], env: Record<string, string> = {}, options: { ownGroup?: boolean } = {}): Promise<Started> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'satang-shutdown-'));
  const child = spawn(command, args, {
    cwd: root, stdio: ['ignore', 'pipe', 'ignore'], detached: options.ownGroup === true, // ownGroup: a process group of its own, as a terminal's foreground job
    env: { ...process.env, SATANG_PORT: String(port), SATANG_DATA_DIR: dataDir, SATANG_LOG_LEVEL: 'warn', ...env },
  });
  let stdout = '';
  child.stdout!.on('data', (d) => { stdout += d; }); // read always, so a full pipe never stalls the server
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await until('the server is ready (/readyz)', () => answers(port), readyWaitMs);
  const logs = () => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, port, dataDir, exited, logs };
}

/** Kills whatever a failed run left behind (processes this spec started), removes its data. */
function cleanUp(run: Started): void {
  for (const pid of processesUsing(run.dataDir)) { try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ } }
  rmSync(run.dataDir, { recursive: true, force: true });
}

/** A client that sent half of its request headers and then went quiet. */
async function slowClient(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.on('error', () => {});
  socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  await sleep(200);
  return socket;
}

const test = suite('shutdown');

test('npm start: SIGTERM to the npm process stops the server; nothing is left answering', async () => {
  const run = await start('npm', ['start']);
  try {
    assert.ok(processesUsing(run.dataDir).length > 0);
    // npm start runs the server bundled (server/start.mjs): what reads its own location
    // (the console's files beside their module) still finds it.
    const consolePage = await fetch(`http://127.0.0.1:${run.port}/console/`);
    assert.is(consolePage.status, 200);
    assert.match(await consolePage.text(), /<html lang="th">/);
    const server = processesUsing(run.dataDir).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('server/start.mjs'));
    assert.ok(server !== undefined, 'a node process runs server/start.mjs');
    // The worker threads' bundles were built without esbuild's service staying beside the server.
    const esbuild = processesUsing(run.dataDir).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('esbuild'));
    assert.equal(esbuild, [], 'no esbuild process stays beside the server');
    run.child.kill('SIGTERM');
    await until('npm exits', async () => run.child.exitCode !== null || run.child.signalCode !== null, 20_000);
    await until('the port stops answering', async () => !(await answers(run.port)), 20_000);
    await until('no server process remains', () => processesUsing(run.dataDir).length === 0, 5_000);
  } finally {
    cleanUp(run);
  }
});

test('a request in flight at SIGTERM gets its answer, then the process exits', async () => {
  const run = await start(process.execPath, ['server/start.mjs'], { SATANG_SHUTDOWN_DRAIN_MS: '10000', SATANG_LOG_LEVEL: 'info' });
  try {
    const socket = await slowClient(run.port);
    let reply = '';
    socket.on('data', (d) => { reply += d; });
    run.child.kill('SIGTERM');
    await sleep(500);
    socket.write('\r\n'); // the rest of the request, after the signal
    await until('the answer arrives', () => reply.includes('\r\n\r\n'), 5_000);
    assert.match(reply, /^HTTP\/1\.1 200 /);
    const answeredAt = Date.now();
    await run.exited;
    assert.ok(Date.now() - answeredAt < 3_000, `exited ${Date.now() - answeredAt} ms after answering (waited on the kept-alive connection?)`);
    socket.destroy();
    await sleep(100); // the last of stdout after the exit
    const draining = run.logs().find((l) => l.msg === 'shutdown: draining requests in flight');
    assert.ok(draining, `a line when the drain starts; logged: ${JSON.stringify(run.logs().map((l) => l.msg))}`);
    assert.is(draining!.level, 30, 'info');
    assert.is(draining!.signal, 'SIGTERM');
    assert.is(typeof draining!.requests_in_flight, 'number');
    assert.ok((draining!.connections as number) >= 1, 'the slow client\'s connection is counted');
    assert.is(draining!.drain_ms, 10_000);
    const done = run.logs().find((l) => l.msg === 'shutdown: drained and closed; exiting');
    assert.ok(done, 'a line when the drain is done');
    assert.is(done!.level, 30);
    assert.is(done!.signal, 'SIGTERM');
    assert.ok(typeof done!.duration_ms === 'number' && done!.duration_ms >= 500, `the drain's duration (it waited for the answer sent 500 ms after the signal): ${done!.duration_ms}`);
  } finally {
    cleanUp(run);
  }
});

test('a slow client holding a connection does not keep the process alive past the drain deadline', async () => {
  const drainMs = 1_000;
  const run = await start(process.execPath, ['server/start.mjs'], { SATANG_SHUTDOWN_DRAIN_MS: String(drainMs) });
  try {
    const socket = await slowClient(run.port);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const signalledAt = Date.now();
    run.child.kill('SIGTERM');
    const code = await Promise.race([run.exited, sleep(drainMs + 10_000).then(() => 'still running')]);
    assert.is.not(code, 'still running', 'the process outlived the drain deadline by 10 s');
    assert.ok(Date.now() - signalledAt >= drainMs - 100, 'it did not wait for the drain deadline');
    await closed;
  } finally {
    cleanUp(run);
  }
});

test('Ctrl-C in a terminal (SIGINT to the whole process group: npm passes it on, so the server gets it twice) drains: the request in flight gets its answer', async () => {
  const run = await start('npm', ['start'], { SATANG_SHUTDOWN_DRAIN_MS: '10000', SATANG_LOG_LEVEL: 'info' }, { ownGroup: true });
  try {
    const socket = await slowClient(run.port);
    let reply = '';
    socket.on('data', (d) => { reply += d; });
    process.kill(-run.child.pid!, 'SIGINT'); // what the terminal does: every process of the foreground job
    await sleep(500);
    socket.write('\r\n'); // the rest of the request, after the signal
    await until('the answer arrives', () => reply.includes('\r\n\r\n'), 5_000);
    assert.match(reply, /^HTTP\/1\.1 200 /);
    await until('npm exits', async () => run.child.exitCode !== null || run.child.signalCode !== null, 20_000);
    await sleep(100);
    assert.not.ok(run.logs().some((l) => l.msg === 'second signal during the drain: exiting at once, requests in flight are cut'), JSON.stringify(run.logs().map((l) => l.msg)));
    assert.ok(run.logs().some((l) => l.msg === 'shutdown: drained and closed; exiting'), 'drained');
    socket.destroy();
  } finally {
    cleanUp(run);
  }
});

test('a second signal during the drain exits at once, with a warning in the log', async () => {
  const run = await start(process.execPath, ['server/start.mjs'], { SATANG_SHUTDOWN_DRAIN_MS: '30000', SATANG_LOG_LEVEL: 'info' });
  try {
    const socket = await slowClient(run.port); // holds the drain open for its 30 s
    const firstAt = Date.now();
    run.child.kill('SIGTERM');
    await until('the drain starts', () => run.logs().some((l) => l.msg === 'shutdown: draining requests in flight'), 5_000);
    await sleep(Math.max(0, requestLimits.shutdownRepeatedSignalMs + 200 - (Date.now() - firstAt))); // past the window where a repeat is the same stop
    const signalledAt = Date.now();
    run.child.kill('SIGINT');
    const code = await Promise.race([run.exited, sleep(5_000).then(() => 'still running')]);
    assert.is(code, 1, 'exit 1 at once, not after the drain');
    assert.ok(Date.now() - signalledAt < 5_000);
    await sleep(100);
    const second = run.logs().find((l) => l.msg === 'second signal during the drain: exiting at once, requests in flight are cut');
    assert.ok(second, `a warning; logged: ${JSON.stringify(run.logs().map((l) => l.msg))}`);
    assert.is(second!.level, 40, 'warn');
    assert.is(second!.signal, 'SIGINT');
    assert.not.ok(run.logs().some((l) => l.msg === 'shutdown: drained and closed; exiting'));
    socket.destroy();
  } finally {
    cleanUp(run);
  }
});

test.run();
