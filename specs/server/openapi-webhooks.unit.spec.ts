// The OpenAPI document's `webhooks` section (server/openapi/webhooks.ts) names every event
// type the service sends and no other: the types core/outbox.ts maps journal events to,
// and the service events the webhook adapters emit (webhook.*). A new event type that is
// not documented fails here.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { webhookEventTypes } from '../../server/openapi/webhooks.ts';
import { repositoryRoot, sourceFiles } from '../structure/source-files.ts';

test('the webhooks section lists exactly the event types the service emits', () => {
  const emitted = new Set<string>();
  const outbox = readFileSync(join(repositoryRoot, 'core/outbox.ts'), 'utf8');
  for (const m of outbox.matchAll(/'((?:deposit|withdrawal|balance|beneficiary)\.[a-z_]+)'/g)) emitted.add(m[1]!);
  for (const file of sourceFiles(['adapters']).filter((f) => f.startsWith('adapters/webhooks/'))) {
    for (const m of readFileSync(join(repositoryRoot, file), 'utf8').matchAll(/type: '(webhook\.[a-z_.]+)'/g)) emitted.add(m[1]!);
  }
  assert.ok(emitted.size >= 29, `${emitted.size} types found`);
  assert.equal(Object.keys(webhookEventTypes).sort(), [...emitted].sort());
});

test('the committed document carries the section: each event a POST of the Event envelope', () => {
  const doc = JSON.parse(readFileSync(join(repositoryRoot, 'docs/openapi.json'), 'utf8'));
  assert.equal(Object.keys(doc.webhooks).sort(), Object.keys(webhookEventTypes).sort());
  assert.match(JSON.stringify(doc.webhooks['deposit.settled'].post.requestBody), /#\/components\/schemas\/DepositOrder/);
  assert.match(JSON.stringify(doc.webhooks['withdrawal.filled'].post.requestBody), /#\/components\/schemas\/WithdrawalOrder/);
});

test.run();
