// One API server per data dir (adapters/data-dir-lock.ts): a second server on the same
// data dir is refused before it binds a port or touches the journal — in the same process
// and from another process (`node server/start.mjs`, as the unit runs it: a one-line reason,
// exit 78) — while the first goes on serving; a stopped server frees the dir, and so does
// a killed one (SIGKILL: the kernel drops the lock, no stale lock file to clean up).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirInUse } from '../../adapters/data-dir-lock.ts';
import { configErrorExitCode } from '../../server/config.ts';
import { TestServer } from '../support/server-harness.ts';

/** What `npm start` and the systemd unit run: server/main.ts bundled. */
const startPath = fileURLToPath(new URL('../../server/start.mjs', import.meta.url));

function serverProcess(dataDir: string): ChildProcess & { output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [startPath], {
    env: { ...process.env, SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return Object.assign(child, { output: () => output, exited });
}

async function listening(child: ReturnType<typeof serverProcess>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!/satang listening/.test(child.output())) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start: ${child.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a second server on the same data dir is refused, in the same process and from another; the first keeps serving', async () => {
  const first = await TestServer.start();
  try {
    const second = await TestServer.start({}, first.dataDir).then(async (s) => { await s.stop(false); return null; }, (e: unknown) => e);
    assert.instance(second, DataDirInUse);
    assert.match((second as Error).message, /is in use by another satang server/);
    const child = serverProcess(first.dataDir);
    assert.is(await child.exited, configErrorExitCode);
    assert.match(child.output(), /^satang: .* is in use by another satang server \(it holds .*server\.lock\): one API server per data dir\n$/);
    assert.is((await first.raw('GET', '/healthz')).status, 200, 'the first goes on');
  } finally {
    await first.stop(false);
  }
  // Stopped, it frees the dir.
  const again = await TestServer.start({}, first.dataDir);
  await again.stop();
});

test('a killed server leaves no stale lock: the next one starts at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'satang-lock-'));
  const dataDir = join(dir, 'data');
  try {
    const killed = serverProcess(dataDir);
    await listening(killed);
    killed.kill('SIGKILL');
    await killed.exited;
    const next = serverProcess(dataDir);
    await listening(next);
    next.kill('SIGTERM');
    assert.is(await next.exited, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dataDir}.master-key`, { force: true });
  }
});

test.run();
