// Shared set-up of the slip specs: a real server with the verification worker on manual
// (drain() verifies what is pending, deterministically), a withdrawing merchant whose open
// withdrawal gives deposits a destination, a depositing shop, and a client for the slip
// routes written here from the contract — slip images with real magic bytes, multipart
// bodies built byte by byte, uploads with only the capability, transfers registered at
// the mounted bank simulator over HTTP; and the claims specs' scenes (a deposit paid with any
// amount, a same-slip overpayment in a white label of its own, a claim whose refund the payer owes back).

import { createHash, randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { SlipOptions } from '../../server/slips/wiring.ts';
import { depositBody, freshSender, sender, TestServer, type MerchantKeys, type Reply } from './server-harness.ts';
import { checkAgainstOpenApi } from './openapi-check.ts';

export interface Capability {
  readonly token: string;
  readonly expires_at: string;
  readonly upload_url: string;
  readonly max_bytes: number;
  readonly content_types: string[];
}

export interface SlipScene {
  readonly s: TestServer;
  readonly payer: MerchantKeys;
  readonly shop: MerchantKeys;
  /** The payer's open withdrawals, oldest first (each takes at most max_splits fills). */
  readonly withdrawalIds: readonly string[];
}

const withdrawalsPerScene = 4;

/** The withdrawing merchant's beneficiary: where every matched deposit's money goes. */
export const receiver = { bank_code: '004', account_number: '1234567890', account_name: 'สมหญิง รักดี' };

export async function slipScene(env: Record<string, string> = {}, options: SlipOptions = {}, dataDir?: string): Promise<SlipScene> {
  const s = await TestServer.start(env, dataDir, { slipWorker: 'manual', ...options });
  const payer = await s.onboard('Payer');
  const shop = await s.onboard('Shop', payer.whiteLabelId);
  await s.fund(payer.id, 50_000_000);
  const ben = await s.beneficiary(payer.id, true, receiver.account_number);
  const withdrawalIds: string[] = [];
  for (let i = 0; i < withdrawalsPerScene; i++) {
    const w = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', {
      amount_minor: 5_000_000, currency: 'THB', merchant_reference: `w-${randomUUID()}`, end_user_ref: 'payee-1', beneficiary_id: ben,
    });
    assert.is(w.status, 201, w.text);
    withdrawalIds.push(w.json.id);
  }
  return { s, payer, shop, withdrawalIds };
}

/** A deposit matched to the payer's withdrawal: the 201 body, with its slip_upload capability. */
export async function matchedDeposit(scene: SlipScene, overrides: Record<string, unknown> = {}): Promise<any> {
  const r = await scene.s.call(scene.shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: 50_000, fill_preference: 'internal_only', ...overrides }));
  assert.is(r.status, 201, r.text);
  return r.json;
}

/**
 * One open withdrawal of `amountMinor` for each payee account, to a verified beneficiary
 * of the payer: what a multi-leg deposit in the payer's white label is split across.
 */
export async function withdrawalsTo(s: TestServer, payer: MerchantKeys, accounts: readonly string[], amountMinor: number, referencePrefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (const account of accounts) {
    const ben = await s.beneficiary(payer.id, true, account);
    const w = await s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: amountMinor, currency: 'THB', merchant_reference: `${referencePrefix}-${account}`, end_user_ref: 'payee', beneficiary_id: ben });
    assert.is(w.status, 201, w.text);
    ids.push(w.json.id);
  }
  return ids;
}

/**
 * A deposit of `shop`'s for `amount`, paid with `paid` satang (more: an overpayment; less: a
 * short pay) to `to` from `from`, its slip verified: the deposit as the merchant reads it.
 */
export async function paidDeposit(scene: SlipScene, shop: MerchantKeys, amount: number, paid: number, to = receiver, from = sender): Promise<any> {
  const created = await scene.s.call(shop.live.api_key, 'POST', '/v1/pay/deposits', depositBody({ amount_minor: amount, fill_preference: 'internal_only', end_user_ref: `u-${randomUUID()}`, sender: from }));
  assert.is(created.status, 201, created.text);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, created.json, { amount_minor: paid, receiver: to, sender: { bank_code: from.bank_code, account_number: from.account_number, account_name_th: from.account_name_th }, image_sha256: sha256Hex(image) }));
  assert.is((await uploadFile(created.json.slip_upload, image)).status, 202);
  await scene.s.running.slipWorker.drain();
  return getDeposit(scene, created.json.id, shop.live.api_key);
}

/**
 * A new white label (a payer and a shop its merchants, so the only liquidity is what the caller
 * opens): the payer's withdrawal of 400 baht to a payee, paid by a shop's deposit of 400 baht
 * with 450 sent (a same-slip overpayment of 50 baht, its claim opened by itself).
 */
export async function overpaidInNewWhiteLabel(scene: SlipScene, name: string): Promise<{ deposit: any; payer: MerchantKeys; shop: MerchantKeys }> {
  const payer = await scene.s.onboard(`${name} payer`);
  const shop = await scene.s.onboard(`${name} shop`, payer.whiteLabelId);
  await scene.s.fund(payer.id, 1_000_000);
  const payee = { bank_code: '004', account_number: '5550001111', account_name: 'สมหญิง รักดี' };
  const ben = await scene.s.beneficiary(payer.id, true, payee.account_number);
  const w = await scene.s.call(payer.live.api_key, 'POST', '/v1/pay/withdrawals', { amount_minor: 40_000, currency: 'THB', merchant_reference: `${name}-w`, end_user_ref: 'payee', beneficiary_id: ben });
  assert.is(w.status, 201, w.text);
  return { deposit: await paidDeposit(scene, shop, 40_000, 45_000, payee), payer, shop };
}

/**
 * A same-slip overpayment's claim (overpaidInNewWhiteLabel) reviewed and refunded (emp_claims),
 * paid out (emp_payer) and filled by another payer's 50-baht deposit: the refund drawn from
 * suspense, and the payee owing what it paid. Answers the claim's id, the deposit and the
 * refund withdrawal.
 */
export async function refundedClaim(scene: SlipScene, name: string, note: string): Promise<{ claimId: string; deposit: any; refundWithdrawal: any; shop: MerchantKeys }> {
  const { shop, deposit } = await overpaidInNewWhiteLabel(scene, name);
  const claimId = deposit.overpayment.claim_id;
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/review`, { note }, { sub: 'emp_claims' })).status, 200);
  assert.is((await scene.s.bo('POST', `/v1/bo/claims/${claimId}/refund`, { note }, { sub: 'emp_claims', stepUp: true })).status, 200);
  const payout = await scene.s.bo('POST', `/v1/bo/claims/${claimId}/payout`, { note }, { sub: 'emp_payer', stepUp: true });
  assert.is(payout.status, 200, payout.text);
  const payerAccount = { bank_code: sender.bank_code, account_number: sender.account_number, account_name: sender.account_name_th };
  assert.is((await paidDeposit(scene, shop, 5_000, 5_000, payerAccount, freshSender())).status, 'settled');
  return { claimId, deposit, refundWithdrawal: payout.json.refund_withdrawal, shop };
}

/**
 * A claim whose payer owes 50 baht back: a refundedClaim whose deposit is then reversed
 * (BANK_RECALL) recording the refund as owed back. Answers the claim's id, the deposit and
 * the refund withdrawal.
 */
export async function owedClaim(scene: SlipScene, name: string, note: string): Promise<{ claimId: string; deposit: any; refundWithdrawal: any; shop: MerchantKeys }> {
  const refunded = await refundedClaim(scene, name, note);
  const recall = { reason_code: 'BANK_RECALL', note: 'the sending bank recalled the whole transfer', claim_refunds: 'recover_from_payer' };
  const reversed = await scene.s.bo('POST', `/v1/bo/deposits/${refunded.deposit.id}/reverse`, recall, { stepUp: true });
  assert.is(reversed.status, 200, reversed.text);
  assert.is((await scene.s.bo('GET', `/v1/bo/claims/${refunded.claimId}`)).json.owed_by_payer_minor, 5_000);
  return refunded;
}

/**
 * A withdrawal with two disputes: the first (not_received, for a settled deposit's fill) lost
 * (merchant_lost, by emp_resolver), then a second (wrong_amount, 10 baht) opened. Answers the
 * withdrawal's id, the fill and both disputes' 201 replies.
 */
export async function disputedTwice(scene: SlipScene): Promise<{ withdrawalId: string; fill: any; first: Reply; second: Reply }> {
  const { withdrawalId, fill, first } = await lostDispute(scene);
  const second = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'wrong_amount', amount_minor: 1_000 });
  assert.is(second.status, 201, second.text);
  return { withdrawalId, fill, first, second };
}

/** The payer's first withdrawal filled by a settled deposit, disputed for the fill's amount (not_received) and the dispute lost by the merchant (emp_resolver): no dispute open on it. */
export async function lostDispute(scene: SlipScene): Promise<{ withdrawalId: string; fill: any; first: Reply }> {
  const d = await settledDeposit(scene);
  const withdrawalId = scene.withdrawalIds[0]!;
  const fill = (await scene.s.bo('GET', `/v1/bo/withdrawals/${withdrawalId}`)).json.withdrawal.fills.find((f: any) => f.deposit_id === d.id);
  const first = await scene.s.bo('POST', `/v1/bo/withdrawals/${withdrawalId}/disputes`, { reason_code: 'not_received', amount_minor: fill.amount_minor });
  assert.is(first.status, 201, first.text);
  const lost = await scene.s.bo('POST', `/v1/bo/disputes/${first.json.id}/resolve`, { outcome: 'merchant_lost', note: 'the payee showed the bank statement without it' }, { sub: 'emp_resolver' });
  assert.is(lost.status, 200, lost.text);
  return { withdrawalId, fill, first };
}

export async function getDeposit(scene: SlipScene, id: string, apiKey = scene.shop.live.api_key): Promise<any> {
  const r = await scene.s.call(apiKey, 'GET', `/v1/pay/deposits/${id}`);
  assert.is(r.status, 200, r.text);
  return r.json;
}

/** A deposit matched to the payer's withdrawal and paid, its slip verified: settled, it fills the payer's first withdrawal. Its 201 body. */
export async function settledDeposit(scene: SlipScene): Promise<any> {
  const d = await matchedDeposit(scene);
  const image = pngSlip();
  await registerTransfer(scene.s, transferFor(scene, d, { image_sha256: sha256Hex(image) }));
  assert.is((await uploadFile(d.slip_upload, image)).status, 202);
  await scene.s.running.slipWorker.drain();
  return d;
}

// ---- slip images: only their first bytes matter to the type, the tag makes each unique ----

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ihdr = Buffer.from('0000000d49484452000000010000000108060000001f15c489', 'hex');

export function pngSlip(tag: string = randomUUID()): Buffer {
  return Buffer.concat([pngSignature, ihdr, Buffer.from(`slip ${tag}`)]);
}

export function jpegSlip(tag: string = randomUUID()): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\u0000'), Buffer.from(`slip ${tag}`), Buffer.from([0xff, 0xd9])]);
}

// ---- bodies ----

export interface FilePart { readonly name: string; readonly data: Buffer | string; readonly filename?: string; readonly contentType?: string }

export function multipartBody(parts: readonly FilePart[], boundary = `----satang${randomUUID()}`): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.contentType ? `Content-Type: ${p.contentType}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs to the capability's upload_url with only the token and an Idempotency-Key. */
export async function upload(cap: Capability, body: Buffer | string, contentType: string, options: { key?: string; headers?: Record<string, string>; url?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = { Authorization: `Bearer ${cap.token}`, 'Idempotency-Key': options.key ?? randomUUID(), 'Content-Type': contentType, ...options.headers };
  const url = options.url ?? cap.upload_url;
  const res = await fetch(url, { method: 'POST', headers, body: body as BodyInit });
  const text = await res.text();
  let json: unknown;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  const reply = { status: res.status, headers: res.headers, text, json };
  checkAgainstOpenApi('POST', new URL(url).pathname, reply); // the answer matches docs/openapi.json
  return reply;
}

export function uploadFile(cap: Capability, image: Buffer, options: { payload?: string; key?: string; boundary?: string; filename?: string; fileType?: string } = {}): Promise<Reply> {
  const parts: FilePart[] = [{ name: 'file', data: image, filename: options.filename ?? 'slip.jpg', contentType: options.fileType ?? 'image/jpeg' }];
  if (options.payload !== undefined) parts.push({ name: 'payload', data: options.payload });
  const { body, contentType } = multipartBody(parts, options.boundary);
  return upload(cap, body, contentType, options.key !== undefined ? { key: options.key } : {});
}

export function uploadJson(cap: Capability, body: unknown, key?: string): Promise<Reply> {
  return upload(cap, typeof body === 'string' ? body : JSON.stringify(body), 'application/json', key !== undefined ? { key } : {});
}

export function assertReceipt(r: Reply): { receipt_id: string; livemode: boolean; status: string; received_at: string } {
  assert.is(r.status, 202, r.text);
  assert.equal(Object.keys(r.json).sort(), ['livemode', 'receipt_id', 'received_at', 'status']);
  assert.type(r.json.livemode, 'boolean');
  assert.match(r.json.receipt_id, /^rcpt_[0-9A-Z]{26}$/);
  assert.is(r.json.status, 'accepted');
  assert.match(r.json.received_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  return r.json;
}

// ---- the bank simulator ----

export interface TransferBody {
  trans_ref: string; amount_minor: number; occurred_at: string; payload?: string; image_sha256?: string;
  sender: { bank_code: string; account_number: string; account_name_th: string };
  receiver: { bank_code: string; account_number: string; account_name: string };
}

/** The transfer a deposit asks for, as the bank knows it (full numbers and names). */
export function transferFor(scene: SlipScene, deposit: { amount_minor: number }, overrides: Partial<TransferBody> = {}): TransferBody {
  return {
    trans_ref: `TR${randomUUID().replace(/-/g, '').slice(0, 18).toUpperCase()}`, amount_minor: deposit.amount_minor,
    occurred_at: new Date(scene.s.clock.now()).toISOString(), sender: { ...sender }, receiver: { ...receiver }, ...overrides,
  };
}

export async function registerTransfer(s: TestServer, transfer: TransferBody, simulatorUrl = `${s.url}/v1/sim/bank`): Promise<void> {
  const r = await fetch(`${simulatorUrl}/transfers`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(transfer) });
  assert.is(r.status, 201, await r.text());
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
