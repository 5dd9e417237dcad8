// The OpenAPI 3.1 `webhooks` section: one entry per event type the service sends (the
// contract's "Event types and what emits them"), each an HTTPS POST of the event envelope
// whose `data.object` is the order, balance transaction or record the event is about. A
// spec keeps this list equal to the types core/outbox.ts and the webhook adapters emit.

type Json = Record<string, unknown>;

/** Every event type, with the schema its data.object has. */
export const webhookEventTypes: Readonly<Record<string, 'DepositOrder' | 'WithdrawalOrder' | 'BalanceTransaction' | 'Object'>> = {
  'deposit.created': 'DepositOrder', 'deposit.awaiting_liquidity': 'DepositOrder', 'deposit.matched': 'DepositOrder', 'deposit.slip_received': 'DepositOrder',
  'deposit.slip_rejected': 'DepositOrder', 'deposit.expired': 'DepositOrder', 'deposit.canceled': 'DepositOrder', 'deposit.settled': 'DepositOrder',
  'deposit.under_review': 'DepositOrder', 'deposit.rejected': 'DepositOrder', 'deposit.reversed': 'DepositOrder', 'deposit.overpaid': 'DepositOrder',
  'deposit.leg_updated': 'DepositOrder',
  'withdrawal.created': 'WithdrawalOrder', 'withdrawal.matched': 'WithdrawalOrder', 'withdrawal.match_released': 'WithdrawalOrder', 'withdrawal.filled': 'WithdrawalOrder', 'withdrawal.settled': 'WithdrawalOrder',
  'withdrawal.expired': 'WithdrawalOrder', 'withdrawal.canceled': 'WithdrawalOrder', 'withdrawal.rejected': 'WithdrawalOrder', 'withdrawal.fill_reversed': 'WithdrawalOrder',
  'withdrawal.receipt_confirmed': 'WithdrawalOrder', 'withdrawal.disputed': 'WithdrawalOrder', 'withdrawal.dispute_resolved': 'WithdrawalOrder',
  'balance.credited': 'BalanceTransaction', 'balance.cleared': 'BalanceTransaction', 'balance.debited': 'BalanceTransaction',
  'beneficiary.verified': 'Object', 'webhook.key.rotating': 'Object', 'webhook.endpoint.disabled': 'Object',
};

const deliveryHeaders = ['X-PG-Signature', 'X-PG-Event-Id', 'X-PG-Event-Type', 'X-PG-Delivery-Id', 'X-PG-Attempt', 'X-PG-Api-Version', 'X-PG-Livemode'];

/** The document's `webhooks`: what a merchant's endpoint receives, per event type. */
export function webhooksSection(): Json {
  return Object.fromEntries(Object.entries(webhookEventTypes).map(([type, objectSchema]) => [type, {
    post: {
      summary: `${type}: the event envelope; data.object is ${objectSchema === 'Object' ? 'the record it is about' : `a ${objectSchema}`}.`,
      description: 'Verify X-PG-Signature (Ed25519 over "v1.<t>.<event id>." and the raw body; keys at GET /v1/webhooks/signing-keys) before parsing. '
        + 'Deduplicate by the envelope id; apply an object only when its version is higher than the one you hold; decide money from data.object.status and version, never from headers or the type.',
      parameters: deliveryHeaders.map((name) => ({ name, in: 'header', required: true, schema: { type: 'string' } })),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: objectSchema === 'Object' ? { $ref: '#/components/schemas/Event' } : {
              allOf: [{ $ref: '#/components/schemas/Event' }, { type: 'object', properties: { data: { type: 'object', properties: { object: { $ref: `#/components/schemas/${objectSchema}` } } } } }],
            },
          },
        },
      },
      responses: { '200': { description: 'Received: 200, 201, 202 or 204 acknowledges the delivery. Any other answer is a failure: 410 stops this delivery\'s retries and flags the endpoint; 3xx (never followed), 429 and every other status, a timeout (15 s) or a connection error is retried on the schedule (Retry-After ignored).' } },
    },
  }]));
}
