// The alerting rules (deploy/prometheus/satang-alerts.yml) against the metrics a real
// server serves: every satang_* series an expression names is one the server exposes on
// SATANG_METRICS_PORT (a histogram's _bucket/_count/_sum by its base name), so renaming a
// metric cannot leave an alert silently dead; every rule has a summary and a severity;
// and `promtool check rules` accepts the file where Prometheus is installed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TestServer } from '../support/server-harness.ts';

const rulesPath = fileURLToPath(new URL('../../deploy/prometheus/satang-alerts.yml', import.meta.url));
const rules = readFileSync(rulesPath, 'utf8');
const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find(existsSync);

/** The rules as the file writes them: each `- alert:` block with its expression and what it says. */
function alerts(): { name: string; expr: string; block: string }[] {
  return rules.split(/\n\s+- alert: /).slice(1).map((block) => ({
    name: block.split('\n')[0]!.trim(), expr: /\n\s+expr: (.*)/.exec(block)?.[1] ?? '', block,
  }));
}

test('every satang_* series an alert names is served by a real server', async () => {
  const s = await TestServer.start({ SATANG_METRICS_PORT: '0' });
  try {
    const exposition = await (await fetch(s.running.metricsUrl!)).text();
    const served = new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    const found = alerts();
    assert.ok(found.length >= 10, `${found.length} alerts`);
    for (const a of found) {
      assert.ok(a.expr.length > 0, `${a.name}: an expression`);
      for (const [series] of a.expr.matchAll(/satang_[a-z_]+/g)) {
        const base = series.replace(/_(bucket|count|sum)$/, '');
        assert.ok(served.has(base), `${a.name} names ${series}, which the server does not serve`);
      }
      assert.match(a.block, /\n\s+severity: (page|ticket)\n/, `${a.name}: a severity`);
      assert.match(a.block, /\n\s+summary: "/, `${a.name}: a summary`);
    }
  } finally {
    await s.stop();
  }
});

test('promtool accepts the rules (where Prometheus is installed)', () => {
  if (!promtool) {
    console.log('promtool is not installed here: only the series were checked');
    return;
  }
  const result = spawnSync(promtool, ['check', 'rules', rulesPath], { encoding: 'utf8' });
  assert.is(result.status, 0, `${result.stdout}${result.stderr}`);
  assert.match(result.stdout, new RegExp(`SUCCESS: ${alerts().length} rules found`));
});

test.run();
