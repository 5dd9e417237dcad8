// satang as its own process for the benchmarks, as `npm start` runs it (package.json's
// start script, flags and environment included) on the embedded default: a temp data dir,
// a free port, stdout (pino) to our stderr so that the bench's stdout carries only its
// JSON report, and a stop that drains then kills.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const benchHost = '127.0.0.1';
const root = new URL('../..', import.meta.url).pathname;
const serverReadyTimeoutMs = 30_000;
const serverStopTimeoutMs = 5_000;

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, benchHost, resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Starts satang on `dataDir` (no NATS: the embedded default; log level error, so server
 * faults show and the warning of every refused request does not) and waits for /readyz.
 * `nodeArgs` go before the entry point (a CPU profile); `track` sees the child at once.
 */
export async function startSatangProcess(dataDir: string, options: { extraEnv?: NodeJS.ProcessEnv; nodeArgs?: readonly string[]; track?: (child: ChildProcess) => void } = {}): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.extraEnv, SATANG_DATA_DIR: dataDir, SATANG_PORT: String(port), SATANG_HOST: benchHost, SATANG_LOG_LEVEL: 'error' };
  delete env.SATANG_NATS_URL;
  // package.json's start script itself (its node flags and environment), which execs node: the child is the server.
  const child = spawn('sh', ['-c', startScript(options.nodeArgs ?? [])], { cwd: root, env, stdio: ['ignore', 2, 2] });
  options.track?.(child);
  const url = `http://${benchHost}:${port}`;
  const deadline = Date.now() + serverReadyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`satang exited with ${child.exitCode} while starting`);
    const ready = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) return { child, url };
    if (Date.now() > deadline) throw new Error(`satang was not ready (/readyz) within ${serverReadyTimeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * `npm start` without npm: the start script of package.json, run by sh as npm runs it, with
 * `nodeArgs` put on node's command line (not NODE_OPTIONS, which refuses --cpu-prof).
 */
function startScript(nodeArgs: readonly string[]): string {
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const execNode = /^((?:\S+=\S+ )*exec node )/;
  if (!execNode.test(start)) throw new Error(`package.json's start script no longer execs node (${start}): the benchmarks measure the process it starts`);
  const quoted = nodeArgs.map((a) => `'${a.replaceAll("'", `'\\''`)}'`);
  return quoted.length ? start.replace(execNode, `$1${quoted.join(' ')} `) : start;
}

/** SIGTERM (the server drains), SIGKILL when it has not exited within a few seconds. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), serverStopTimeoutMs);
  await exited;
  clearTimeout(timer);
}
