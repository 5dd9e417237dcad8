// The webhook envelope of one merchant event, as the exact JSON bytes the outbox stores
// and every delivery and resend sends unchanged (contract: Webhook envelope). Key order
// is fixed here; optional keys are absent rather than null: `request` only when an API
// call of the event's own merchant caused the event, `previous_attributes` absent for
// balance_transaction (null on *.created, as core/outbox.ts decides); `data.fill`, the fill
// that landed, on withdrawal.filled only.

import type { MerchantEvent } from '../../core/outbox.ts';
import type { CommitMeta } from '../../core/ports.ts';
import { apiVersion, iso } from '../../core/present.ts';

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
