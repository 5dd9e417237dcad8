// The webhook envelope of one merchant event, as the exact JSON bytes the outbox stores
// and every delivery and resend sends unchanged (contract: Webhook envelope). Key order
// is fixed here; optional keys are absent rather than null: `request` only when an API
// call caused the event, `previous_attributes` absent for balance_transaction (null on
// *.created, as core/outbox.ts decides).

import type { MerchantEvent } from '../../core/outbox.ts';
import type { CommitMeta } from '../../core/ports.ts';
import { apiVersion, iso } from '../../core/present.ts';

/** The API version pinned on every event this build creates. */

export function envelopeBody(id: string, sequence: number, event: MerchantEvent, meta: CommitMeta): string {
  const data = event.previousAttributes === undefined
    ? { object: event.object }
    : { object: event.object, previous_attributes: event.previousAttributes };
  return JSON.stringify({
    id, object: 'event', type: event.type, api_version: apiVersion, livemode: event.livemode,
    created_at: iso(event.createdAt), sequence,
    account: { merchant_id: event.merchantId, white_label_id: event.whiteLabelId },
    ...(meta.requestId !== undefined
      ? { request: { id: meta.requestId, ...(meta.idempotencyKey !== undefined ? { idempotency_key: meta.idempotencyKey } : {}) } }
      : {}),
    data,
  });
}
