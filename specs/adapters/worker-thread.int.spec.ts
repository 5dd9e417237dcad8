// startWorker (adapters/worker-thread.ts): a worker runs its TypeScript module bundled, under
// the heap limits the write side sets for every worker (its own old space, a small young
// generation), and a module that reads its own location is refused before it runs.

import { once } from 'node:events';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startWorker } from '../../adapters/worker-thread.ts';
import { writeSideLimits } from '../../core/limits.ts';

const test = suite('worker-thread');

test('a worker runs under the write side\'s old-space and young-generation limits', async () => {
  const worker = startWorker(new URL('./fixtures/worker-limits.ts', import.meta.url));
  try {
    const [report] = await once(worker, 'message') as [{ resourceLimits: { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number }; newSpaceBytes: number }];
    assert.is(report.resourceLimits.maxOldGenerationSizeMb, writeSideLimits.workerOldSpaceMb);
    assert.is(report.resourceLimits.maxYoungGenerationSizeMb, writeSideLimits.workerYoungSpaceMb);
    assert.ok(report.newSpaceBytes <= writeSideLimits.workerYoungSpaceMb * 1024 * 1024, `new space ${report.newSpaceBytes} bytes`);
  } finally {
    await worker.terminate();
  }
});

test('a module that reads import.meta.url is refused at start', () => {
  assert.throws(() => startWorker(new URL('./fixtures/worker-own-url.ts', import.meta.url)), /import\.meta\.url/);
});

test.run();
