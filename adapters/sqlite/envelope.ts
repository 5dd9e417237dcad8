// The webhook envelope of one merchant event, as the exact JSON bytes the outbox stores
// and every delivery and resend sends unchanged (contract: Webhook envelope). Key order
// is fixed here; optional keys are absent rather than null: `request` only when an API
// call of the event's own merchant caused the event, `previous_attributes` absent for
// balance_transaction (null on *.created, as core/outbox.ts decides); `data.fill`, the fill
// that landed, on withdrawal.filled only. presentedEnvelope is the one way a stored envelope
// leaves the service (deliveries, retries, resends, replays, mails, the events feed): it
// spells a sandbox envelope's balance-transaction ids as the sandbox does whatever form was
// stored, and otherwise gives the stored bytes unchanged.

import type { MerchantEvent } from '../../core/outbox.ts';
import type { CommitMeta } from '../../core/ports.ts';
import { apiVersion, balanceTransactionIdOf, iso, type Json } from '../../core/present.ts';

export function envelopeBody(id: string, sequence: number, event: MerchantEvent, meta: CommitMeta): string {
  return assembleEnvelope(id, sequence, envelopeParts(event, meta));
}

/**
 * The envelope's JSON but its id and sequence, which only the writer knows (it numbers the
 * outbox in its transaction): the part between them and the part after the sequence,
 * each without its separating commas. Serialising the presented object is the costly part,
 * so it is done once, where the event is made; the writer only joins strings.
 */
export interface EnvelopeParts {
  readonly middle: string;
  readonly rest: string;
}

export function envelopeParts(event: MerchantEvent, meta: CommitMeta): EnvelopeParts {
  const data = event.previousAttributes === undefined
    ? { object: event.object }
    : { object: event.object, previous_attributes: event.previousAttributes, ...(event.fill ? { fill: event.fill } : {}) };
  const middle = JSON.stringify({ object: 'event', type: event.type, api_version: apiVersion, livemode: event.livemode, created_at: iso(event.createdAt) });
  const rest = JSON.stringify({
    account: { merchant_id: event.merchantId, white_label_id: event.whiteLabelId },
    // Only the merchant who made the call hears its request id and key (CommitMeta.callerMerchantId).
    ...(meta.requestId !== undefined && meta.callerMerchantId === event.merchantId
      ? { request: { id: meta.requestId, ...(meta.idempotencyKey !== undefined ? { idempotency_key: meta.idempotencyKey } : {}) } }
      : {}),
    data,
  });
  return { middle: middle.slice(1, -1), rest: rest.slice(1, -1) };
}

/** The envelope's exact bytes: key order id, object, type, api_version, livemode, created_at, sequence, account, request, data. */
export function assembleEnvelope(id: string, sequence: number, parts: EnvelopeParts): string {
  return `{"id":${JSON.stringify(id)},${parts.middle},"sequence":${sequence},${parts.rest}}`;
}

/**
 * The envelope as it leaves the service. A sandbox envelope stored by a build before every
 * sandbox balance-transaction id was spelled sbxbtxn_l_… (its history row's id) still names
 * raw btxn_ ids; they are spelled here as balanceTransactionIdOf does now, so a sandbox
 * merchant matches every event, however old, to its history row. Only the places that
 * name a balance transaction are touched: a key ending in `balance_transaction_id`, a
 * balance_transaction's `id` and an adjustment's `source.id` (a merchant_reference or
 * metadata value that happens to start with btxn_ is the merchant's, and stays). Live
 * envelopes, and sandbox ones already in the current form, are the stored bytes as they are;
 * a rewritten one is the same JSON with only those ids changed (JSON.stringify gave the
 * stored bytes, so parsing and writing them again keeps every other byte).
 */
export function presentedEnvelope(body: string): string {
  // A live envelope says "livemode":true wherever it says livemode (a merchant's string would be escaped): no parse on the live delivery path.
  if (!body.includes('"btxn_') || !body.includes('"livemode":false')) return body;
  const envelope = JSON.parse(body) as { livemode?: unknown; data?: Json };
  if (envelope.livemode !== false || envelope.data === undefined) return body;
  return respellBalanceTransactionIds(envelope.data) ? JSON.stringify(envelope) : body;
}

type JsonObject = { [key: string]: Json };
const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const rawId = (v: Json | undefined): v is string => typeof v === 'string' && v.startsWith('btxn_');

/** Spells the raw sandbox balance-transaction ids under `node` in place; whether any was. */
function respellBalanceTransactionIds(node: Json): boolean {
  if (Array.isArray(node)) {
    let changed = false;
    for (const item of node) changed = respellBalanceTransactionIds(item) || changed;
    return changed;
  }
  if (!isObject(node)) return false;
  let changed = false;
  const isTransaction = node.object === 'balance_transaction';
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (rawId(value) && (key.endsWith('balance_transaction_id') || (isTransaction && key === 'id'))) {
      node[key] = balanceTransactionIdOf(value, false);
      changed = true;
    } else if (isTransaction && key === 'source' && isObject(value) && value.type === 'adjustment' && rawId(value.id)) {
      value.id = balanceTransactionIdOf(value.id, false); // an adjustment's source is itself
      changed = true;
    } else if (typeof value === 'object' && value !== null && key !== 'metadata') {
      changed = respellBalanceTransactionIds(value) || changed;
    }
  }
  return changed;
}
