// A backup taken while operators work checks clean with `satang verify`, as the data dir it
// came from does. verify holds the action log (journal.db) against the back-office calls the
// request log (logs.db) names: the server appends a call's action-log row before the request
// log's line, so every call logs.db holds has its row — as long as logs.db is not read after
// journal.db. backup copies them one after the other, so it copies logs.db first: a call
// answered between the two copies then has its row in the journal copy and no line in the
// logs copy (allowed), never a line without its row (a backup, and every data dir restored
// from it, failing verify for good: "back-office call(s) of the request log have no row here").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { satang } from '../support/cli.ts';
import { TestServer } from '../support/server-harness.ts';

test('backups taken while back-office calls go on verify with the request log as their witness', async () => {
  const s = await TestServer.start();
  const dir = mkdtempSync(join(tmpdir(), 'satang-backup-bo-'));
  let working = true;
  let load: Promise<number> = Promise.resolve(0);
  try {
    const { id } = await s.onboard('Shop');
    load = (async () => {
      let calls = 0;
      while (working) {
        const r = await s.bo('GET', `/v1/bo/merchants/${id}/balance`, undefined, { roles: ['finance'] });
        assert.is(r.status, 200, r.text);
        calls++;
      }
      return calls;
    })();
    const backups = 4;
    for (let i = 0; i < backups; i++) {
      const to = join(dir, `b${i}`);
      const r = await satang(['backup', '--to', to, '--data-dir', s.dataDir], { SATANG_LOG_LEVEL: 'silent' });
      assert.is(r.code, 0, r.stdout + r.stderr);
      const v = await satang(['verify', '--data-dir', to], { SATANG_LOG_LEVEL: 'silent' });
      const report = JSON.parse(v.stdout) as { ok: boolean; action_log: { ok: boolean; request_log_calls: number; problem: string | null } };
      assert.ok(report.action_log.ok, `backup ${i}: ${report.action_log.problem}`);
      assert.ok(report.action_log.request_log_calls > 0, 'the request log was a witness');
      assert.is(v.code, 0, v.stdout);
    }
    working = false;
    assert.ok(await load > backups, 'operators worked throughout');
  } finally {
    working = false;
    await load.catch(() => 0);
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
