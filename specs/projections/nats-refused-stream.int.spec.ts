// A journal stream NATS refuses — SATANG_NATS_REPLICAS=3 against a single nats-server,
// which cannot keep three replicas — is refused on every try: the relay (in `npm start`'s
// process, a real nats-server beside it) slows its tries down and says why once, naming the
// setting, instead of a warning four times a second that never says what to change.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NatsServer } from '../support/nats.ts';

const startPath = fileURLToPath(new URL('../../server/start.mjs', import.meta.url));
const watchedMs = 4_000;

test('three replicas on one nats-server: the relay says why, names the setting, and does not retry four times a second', async () => {
  const nats = await NatsServer.start();
  const dir = mkdtempSync(join(tmpdir(), 'satang-replicas-'));
  const dataDir = join(dir, 'data');
  const child = spawn(process.execPath, [startPath], {
    env: { PATH: process.env.PATH, SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_LOG_LEVEL: 'warn', SATANG_NATS_URL: nats.url, SATANG_NATS_REPLICAS: '3' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  try {
    const deadline = Date.now() + 30_000;
    while (!/NATS JetStream not ready/.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no word of the refused stream: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, watchedMs));
    const said = output.split('\n').filter((l) => l.includes('NATS JetStream not ready'));
    assert.ok(said.length >= 1 && said.length <= 2, `${said.length} warnings in ${watchedMs / 1000} s:\n${said.join('\n')}`);
    assert.match(said[0]!, /SATANG_NATS_REPLICAS/);
    assert.match(said[0]!, /replicas/);
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'close');
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dataDir}.master-key`, { force: true });
  }
});

test.run();
