// The body keys whose values are never kept as they came — one list for the request log's
// redaction (server/redact.ts, on its worker thread) and the process logger's (server/log.ts,
// pino's redact paths), so a key added for one is redacted by both.

/** Keys whose value is a secret or a capability, or raw evidence: never kept. */
export const secretKeys = ['api_key', 'secret', 'signing_secret', 'token', 'step_up_token', 'password', 'private_key', 'qr_payload', 'payload', 'image_base64', 'content_base64', 'signature'] as const;
/** Keys whose value is a full account number (or a PromptPay id): kept masked to its last four. */
export const accountNumberKeys = ['account_number', 'promptpay_id'] as const;
/** Keys whose value is a person's name: kept masked. */
export const nameKeys = ['account_name', 'account_name_th', 'account_name_en'] as const;
