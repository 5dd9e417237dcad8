// doctor's disk check as a pure function of what statfs reports: FAIL below the room a
// journal commit needs (observabilityLimits.readinessDiskFreeBytesMin, the bound /readyz
// answers 503 disk_full under), WARN under 10 % free, OK otherwise. A full disk used to be
// a WARN, and doctor exited 0 on it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { observabilityLimits } from '../../core/limits.ts';
import { diskCheck } from '../../scripts/cli/doctor.ts';

const bsize = 4096;
const blocks = 1_000_000; // a 4 GB file system
const min = observabilityLimits.readinessDiskFreeBytesMin;

test('0 bytes free is FAIL', () => {
  const check = diskCheck('/data', { bavail: 0, bsize, blocks });
  assert.is(check.level, 'FAIL');
  assert.match(check.detail, /0 bytes free where \/data lives/);
});

test('one block under what a commit needs is FAIL; exactly that much is not', () => {
  assert.is(diskCheck('/data', { bavail: min / bsize - 1, bsize, blocks }).level, 'FAIL');
  assert.is(diskCheck('/data', { bavail: min / bsize, bsize, blocks }).level, 'WARN');
});

test('under 10 % free is WARN, 10 % and more OK', () => {
  assert.is(diskCheck('/data', { bavail: blocks * 0.05, bsize, blocks }).level, 'WARN');
  assert.is(diskCheck('/data', { bavail: blocks * 0.5, bsize, blocks }).level, 'OK');
});

test('a file system reporting no blocks is FAIL, not NaN %', () => {
  assert.is(diskCheck('/data', { bavail: 0, bsize, blocks: 0 }).level, 'FAIL');
});

test.run();
