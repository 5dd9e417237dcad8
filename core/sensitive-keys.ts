// The body keys whose values are never kept as they came — one list for the request log's
// redaction (server/redact.ts, on its worker thread), the process logger's (server/log.ts,
// pino's redact paths) and satang verify's scan of logs.db for what the redaction should
// have masked (adapters/sqlite/verify-at-rest.ts), so a key added for one is redacted by
// both loggers and looked for by the scan. In core/, which every layer may import and which
// imports none; pure (lists and a pattern's text).

/** Keys whose value is a secret or a capability, or raw evidence: never kept. */
export const secretKeys = ['api_key', 'secret', 'signing_secret', 'token', 'step_up_token', 'password', 'private_key', 'qr_payload', 'payload', 'image_base64', 'content_base64', 'signature'] as const;
/** Keys whose value is a full account number (or a PromptPay id): kept masked to its last four. */
export const accountNumberKeys = ['account_number', 'promptpay_id'] as const;
/** Keys whose value is a person's name: kept masked. */
export const nameKeys = ['account_name', 'account_name_th', 'account_name_en'] as const;
/** Keys whose value is a URL a merchant gave (a webhook endpoint's): its path, its query and any user or password are credentials. */
export const urlKeys = ['url', 'endpoint_url'] as const;

/** In JSON text, whole or cut short: a URL's key and its value's opening quote (a pattern's source, case-insensitive as accountNumberKeyInJson). */
export const urlKeyInJson = `"(?:${urlKeys.join('|')})"\\s*:\\s*"`;

/**
 * In JSON text, whole or cut short: an account number's key and what opens its value (a
 * quote, a list's bracket), up to where its first digit would be — whatever JSON type the
 * number came as. A pattern's source, for a case-insensitive RegExp (the redaction reads
 * keys case-insensitively); the redaction masks the digits that follow, the scan flags them.
 */
export const accountNumberKeyInJson = `"(?:${accountNumberKeys.join('|')})"\\s*:\\s*\\[?\\s*"?`;
