// The review-queue seeder (scripts/bench/seed-review-queue.ts) against a real server, so it
// cannot rot: 30 deposits through the public HTTP API, and every one of them is then in the
// back office's review queue, held for the reason the seeder planned for it (slips without
// image, unknown mini-QRs, transfers from another name or outside the time window), the
// four-eyes ones marked so; the queue's latency measure reads the same queue.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { measureQueue, planOf, seedReviewQueue, type SeedProgress } from '../../scripts/bench/seed-review-queue.ts';
import { TestServer } from '../support/server-harness.ts';

let s: TestServer;
test.before(async () => { s = await TestServer.start(); });
test.after(async () => { await s.stop(); });

test('seeds 30 deposits under review, each for its planned reason, and reports them', async () => {
  const progress: SeedProgress[] = [];
  const seeded = await seedReviewQueue({ baseUrl: s.url, dataDir: s.dataDir, count: 30, concurrency: 8, onProgress: (p) => progress.push(p) });
  assert.is(seeded.depositIds.length, 30);
  assert.is(new Set(seeded.depositIds).size, 30);
  assert.equal(seeded.reasons, { NO_SLIP_IMAGE: 15, SLIP_INVALID: 6, SENDER_NAME_MISMATCH: 6, TIME_WINDOW: 3 });
  assert.is(seeded.fourEyes, 2);
  assert.ok(progress.some((p) => p.phase === 'verifying' && p.done === 30), JSON.stringify(progress));

  const queue = await s.bo('GET', `/v1/bo/deposits?status=under_review&merchant_id=${seeded.merchantId}&limit=200`, undefined, { roles: ['reviewer'] });
  assert.is(queue.status, 200, queue.text);
  assert.is(queue.json.total, 30);
  assert.equal(queue.json.data.map((d: any) => d.id).sort(), [...seeded.depositIds].sort());
  for (const [i, id] of seeded.depositIds.entries()) {
    const row = queue.json.data.find((d: any) => d.id === id);
    const plan = planOf(i, true);
    assert.is(row.status, 'under_review');
    assert.is(row.livemode, true);
    assert.is(row.amount_minor, plan.amountMinor);
    assert.ok(row.review.reasons.some((r: any) => r.code === plan.reason), `${id}: ${JSON.stringify(row.review.reasons)} lacks ${plan.reason}`);
    // Four eyes for the large orders, and for every claim without an image (no bank showed its amount).
    assert.is(row.review.four_eyes_required, plan.fourEyes || plan.reason === 'NO_SLIP_IMAGE', id);
  }

  const latency = await measureQueue({ baseUrl: s.url, dataDir: s.dataDir, calls: 3, limit: 10, merchantId: seeded.merchantId });
  assert.is(latency.total, 30);
  assert.ok(latency.first_page.p50_ms > 0 && latency.deep_page.p99_ms >= latency.deep_page.p50_ms, JSON.stringify(latency));
});

test.run();
