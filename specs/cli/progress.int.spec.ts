// Progress of long CLI work (scripts/cli/progress.ts): a cli-progress bar on a terminal,
// one JSON line per step otherwise, always on stderr so stdout keeps only the result.
// The helper is driven directly on both kinds of stream, then `satang verify` and
// `satang projections rebuild` are run as child processes (stderr a pipe, so JSON lines)
// on a real data dir.

import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startProgress } from '../../scripts/cli/progress.ts';
import { TestServer } from '../support/server-harness.ts';

const satangPath = fileURLToPath(new URL('../../scripts/satang', import.meta.url));

class Collected extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) { super(); }
  columns = 100;
  override _write(chunk: Buffer, _encoding: string, done: () => void): void { this.text += chunk.toString(); done(); }
}

test('not a terminal: one JSON line per step and a last one marked finished', () => {
  const out = new Collected(false);
  const p = startProgress('verify', { total: 3000, stream: out });
  p.step(1000, { phase: 'replay' });
  p.step(2000, { phase: 'replay' });
  p.step(3000, { phase: 'replay' });
  p.finish();
  const lines = out.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines, [
    { progress: 'verify', phase: 'replay', done: 1000, total: 3000 },
    { progress: 'verify', phase: 'replay', done: 2000, total: 3000 },
    { progress: 'verify', phase: 'replay', done: 3000, total: 3000 },
    { progress: 'verify', phase: 'replay', done: 3000, total: 3000, finished: true },
  ]);
});

test('a terminal: a bar redrawn in place, reaching 100%', () => {
  const out = new Collected(true);
  const p = startProgress('projections rebuild', { total: 200, stream: out });
  p.step(100, { phase: 'replay' });
  p.step(200, { phase: 'replay' });
  p.finish();
  assert.ok(out.text.includes('projections rebuild replay'), out.text);
  assert.ok(out.text.includes('100%'), out.text);
  assert.ok(out.text.includes('200/200'), out.text);
  assert.not.ok(out.text.includes('{"progress"'), 'no JSON lines on a terminal');
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(satangPath, args, { cwd: tmpdir(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('satang verify and projections rebuild: JSON progress on stderr, the report alone on stdout', async () => {
  const s = await TestServer.start();
  try {
    for (let i = 0; i < 3; i++) await s.onboard(`Shop ${i}`);
    const lastSeq = s.running.store.world.lastSeq;
    const env = { SATANG_DATA_DIR: s.dataDir, SATANG_LOG_LEVEL: 'silent' };
    const verified = await run(['verify'], env);
    assert.is(verified.code, 0, verified.stderr);
    assert.is(JSON.parse(verified.stdout).ok, true, 'stdout is the report only');
    const verifyLines = verified.stderr.trim().split('\n').filter((l) => l.startsWith('{"progress"')).map((l) => JSON.parse(l));
    assert.ok(verifyLines.length >= 2, verified.stderr);
    assert.equal(verifyLines.at(-1), { progress: 'verify', phase: 'replay', done: lastSeq, total: lastSeq, finished: true });

    const rebuilt = await run(['projections', 'rebuild'], env);
    assert.is(rebuilt.code, 0, rebuilt.stderr);
    assert.is(JSON.parse(rebuilt.stdout).entries, lastSeq);
    const rebuildLines = rebuilt.stderr.trim().split('\n').filter((l) => l.startsWith('{"progress"')).map((l) => JSON.parse(l));
    assert.equal(rebuildLines.at(-1), { progress: 'projections rebuild', phase: 'replay', done: lastSeq, total: lastSeq, finished: true });
  } finally {
    await s.stop();
  }
});

test.run();
