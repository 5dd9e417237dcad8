// Slip verification through a provider over HTTP: the bank simulator run on its own port
// (as `scripts/satang bank-sim` runs it) named by SATANG_SLIP_PROVIDER_URL. A transfer
// registered there settles the deposit whose slip shows it; once the provider is down,
// the next slip waits some rounds (a blip is ridden out), then goes to review with
// PROVIDER_UNAVAILABLE after bounded retries — never a
// settlement without evidence. Production never mounts the simulator: without a provider
// URL the server refuses to start, and with one /v1/sim/bank/ does not exist.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBankSimServer, type RunningBankSim } from '../../adapters/slips/bank-sim-server.ts';
import { BankSimulator } from '../../adapters/slips/bank-sim.ts';
import { depositBody, freshSender, publicKeySetJson } from '../support/server-harness.ts';
import { startServer } from '../../server/main.ts';
import { slipAdapterLimits } from '../../core/limits.ts';
import {
  assertReceipt, getDeposit, matchedDeposit, pngSlip, registerTransfer, sha256Hex, slipScene, transferFor, uploadFile, type SlipScene,
} from '../support/slip-harness.ts';

let bank: RunningBankSim;
let scene: SlipScene;
/** The provider's verifications, counted (a sandbox slip must never be one). */
let verified = 0;

class CountingBank extends BankSimulator {
  override verify(body: unknown) {
    verified++;
    return super.verify(body);
  }
}

test.before(async () => {
  bank = await startBankSimServer({ simulator: new CountingBank() });
  scene = await slipScene({ SATANG_SLIP_PROVIDER_URL: bank.url, SATANG_METRICS_PORT: '0' });
});
test.after(async () => { await scene.s.stop(); await bank.close(); });

test('a transfer registered at the provider settles the deposit whose slip shows it', async () => {
  const deposit = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, deposit, { image_sha256: sha256Hex(image) }), bank.url);
  assertReceipt(await uploadFile(deposit.slip_upload, image));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const after = await getDeposit(scene, deposit.id);
  assert.is(after.status, 'settled');
  assert.is(after.verification.receiver_match, true, 'the provider printed the receiver masked; it still matched');
});

test('a sandbox slip never goes to the provider: the scenario engine answers it', async () => {
  const before = verified;
  const created = await scene.s.call(scene.shop.sandbox.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 50_000, sender: freshSender() }));
  assert.is(created.status, 201, created.text);
  assertReceipt(await uploadFile(created.json.slip_upload, pngSlip()));
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  const after = await scene.s.call(scene.shop.sandbox.api_key, 'GET', `/v1/pay/deposits/${created.json.id}`);
  assert.is(after.json.status, 'settled', after.text);
  assert.is(verified, before, 'the provider was not asked');
});

/** satang_slip_provider_errors_total{kind="unavailable"} as /metrics shows it now. */
async function unavailableCount(): Promise<number> {
  const text = await (await fetch(scene.s.running.metricsUrl!)).text();
  return Number(/^satang_slip_provider_errors_total\{kind="unavailable"\} (\d+)$/m.exec(text)?.[1]);
}

test('a provider that stays down → under_review PROVIDER_UNAVAILABLE, no settlement', async () => {
  const unavailableBefore = await unavailableCount();
  const deposit = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, deposit, { image_sha256: sha256Hex(image) }), bank.url);
  await bank.close();
  assertReceipt(await uploadFile(deposit.slip_upload, image));
  const started = Date.now();
  // A provider down for a moment is waited out: each round fails and the slip stays pending, until the last.
  for (let round = 1; round < slipAdapterLimits.workerAttemptsPerSlipMax; round++) {
    assert.is(await scene.s.running.slipWorker.drain(), 0, `round ${round}: the provider did not answer, the slip waits`);
    assert.is((await getDeposit(scene, deposit.id)).status, 'slip_processing');
    assert.is(await unavailableCount(), unavailableBefore, `round ${round}: a round the worker rides out pages no one (the alert reads "unavailable")`);
  }
  assert.is(await scene.s.running.slipWorker.drain(), 1);
  assert.is(await unavailableCount(), unavailableBefore + 1, 'one verification ended provider_unavailable: counted once');
  assert.ok(Date.now() - started < 20_000, 'the retries are bounded');
  const after = await getDeposit(scene, deposit.id);
  assert.is(after.status, 'under_review');
  assert.equal(after.review.reasons.map((r: any) => r.code), ['PROVIDER_UNAVAILABLE']);
  assert.not.ok('balance_transaction_id' in after);
  // The dashboard counts it, in the hour the slip came: two slips today (the one before it settled), one provider error.
  const dash = await scene.s.bo('GET', `/v1/bo/dashboard?merchant_id=${scene.shop.id}`, undefined, { roles: ['finance'] });
  assert.is(dash.status, 200, dash.text);
  assert.equal({ slips: dash.json.slip_provider_today.slips, provider_unavailable: dash.json.slip_provider_today.provider_unavailable }, { slips: 2, provider_unavailable: 1 });
  const hour = Math.floor((Date.parse(after.slip.received_at) - Date.parse(dash.json.day_started_at)) / 3_600_000);
  assert.equal(dash.json.slip_provider_by_hour.hours.filter((h: any) => h.slips > 0), [{ ...dash.json.slip_provider_by_hour.hours[hour], slips: 2, provider_errors: 1 }]);
});

test('in development with a provider named, the in-process bank is not mounted (its transfers would be where no verification looks)', async () => {
  const r = await fetch(`${scene.s.url}/v1/sim/bank/transfers`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  assert.is(r.status, 404);
});

test('production never runs the simulator: no provider URL refuses to start; with one, /v1/sim/bank/ is not there', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'satang-slip-prod-'));
  const env = { SATANG_DATA_DIR: dataDir, SATANG_PORT: '0', SATANG_ENV: 'production', SATANG_LOG_LEVEL: 'silent', SATANG_MASTER_KEY: randomBytes(32).toString('base64'), SATANG_OIDC_ISSUER: 'https://login.example.test/', SATANG_OIDC_JWKS: join(dataDir, 'jwks.json') };
  writeFileSync(env.SATANG_OIDC_JWKS, publicKeySetJson()); // production needs a configured operator issuer too
  try {
    let refused: Error | undefined;
    try {
      const running = await startServer(env);
      await running.close();
    } catch (error) {
      refused = error as Error;
    }
    assert.match(refused?.message ?? '', /SATANG_SLIP_PROVIDER_URL is required when SATANG_ENV=production/);
    const running = await startServer({ ...env, SATANG_SLIP_PROVIDER_URL: 'http://127.0.0.1:9' });
    try {
      const r = await fetch(`${running.url}/v1/sim/bank/transfers`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      assert.is(r.status, 404);
    } finally {
      await running.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
