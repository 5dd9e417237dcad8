// What the request log keeps of a body that is not JSON data, decided without reading it:
// no body, bytes, a stream, a body JSON.stringify refused. Apart from server/redact.ts so
// that the API's thread, which decides these marks as it hands a request to the request
// log's worker, never loads the redaction (it runs on the worker only).

/** null for no body, a marker for bytes or a stream; undefined for a string or JSON data, which bodyForLog must redact. */
export function bodyMarkOf(body: unknown): string | null | undefined {
  if (body === undefined || body === null || body === '') return null;
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) return `[binary ${body.byteLength} bytes]`;
  if (typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe === 'function') return '[stream]';
  return undefined;
}

/** The mark of a body that JSON.stringify refused (a BigInt, a cycle). */
export const unserialisableMark = '[unserialisable]';
