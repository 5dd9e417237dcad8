// The one place where the contract's error codes become HTTP answers. The catalogue is
// keyed by core's ErrorCode list, so a new code fails to compile until it has a row here;
// statuses and retryable follow the contract's Errors table. Routes and middleware throw
// ApiError (or return a core Rejection, turned into one with ApiError.from);
// errorMiddleware is the only code that writes an error response.
//
// Invariants kept: every error body has the contract's shape with all eight keys;
// signature_invalid never carries details; a non-retryable error never carries a retry
// delay; a 5xx answer never exposes the thrown message (Koa's rule: only 4xx messages
// reach clients), and an unexpected exception is always a generic 500 internal_error —
// except a write the journal's disk refused (SQLite's full-disk and I/O codes), the
// service's outage rather than a fault: 503 service_unavailable with a retry.
//
// `type` groups codes by what the client has to do about them:
//   authentication_error  credentials, signature, timestamp or nonce are wrong
//   permission_error      the caller is known but may not do this
//   invalid_request_error the request itself must change
//   idempotency_error     the Idempotency-Key clashes with another request
//   state_conflict        the request is fine but the current state of an object or
//                         balance refuses it (some resolve by waiting: retryable)
//   rate_limit_error      a quota bucket is exhausted
//   api_error             a fault or outage on the service side
// `retryable` is true when the same request may succeed later without change, including
// the contract's conditional "yes after ..." rows (timestamp after clock sync,
// insufficient_balance after clearing — and so not when nothing is clearing —,
// beneficiary_not_verified once verified).

import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { ErrorCode, Rejection } from '../core/errors.ts';
import { iso, isIsoInstant } from '../core/present.ts';
import { newRequestId, requestIdOf } from './request-id.ts';
import { isStorageFailure, RefusedAfterFailure, StateConflict } from '../adapters/sqlite/errors.ts';
import { writeSideLimits } from '../core/limits.ts';

export type ErrorType =
  | 'authentication_error'
  | 'permission_error'
  | 'invalid_request_error'
  | 'idempotency_error'
  | 'state_conflict'
  | 'rate_limit_error'
  | 'api_error';

export interface CatalogueEntry {
  status: number;
  type: ErrorType;
  retryable: boolean;
  message: string;
  /** For staff, not end users (end-user text goes in details.public_message_th). */
  message_th: string;
  /** A delay the contract fixes for this code, used when the thrower gives none. */
  retryAfterSeconds?: number;
  /** Where the contract's "yes after …" depends on the answer: retryable only when this holds of its details. */
  retryableWhen?: (details: ErrorDetails) => boolean;
  /** Where the answer's cause changes what staff should read: message_th for these details, else message_th. */
  messageThWhen?: (details: ErrorDetails) => string | undefined;
}

/** An inline payee given other than as its account was verified (another name or PromptPay id): waiting does not help. */
const notAsVerified = (details: ErrorDetails): boolean =>
  ((details as { fields?: readonly { reason?: string }[] }).fields ?? []).some((f) => f.reason === 'not_as_verified');

export const catalogue: Record<ErrorCode, CatalogueEntry> = {
  signature_invalid: {
    status: 401, type: 'authentication_error', retryable: false,
    message: 'The request signature does not match.',
    // Operator tokens are refused with this code too (expired, signed out, another issuer): the cause is in message.
    message_th: 'ลายเซ็นหรือโทเค็นของคำขอไม่ถูกต้อง (สาเหตุอยู่ใน message เช่น โทเค็นหมดอายุหรือออกจากระบบแล้ว)',
  },
  timestamp_out_of_window: {
    status: 401, type: 'authentication_error', retryable: true,
    message: 'PG-Timestamp is more than 300 seconds away from server time; sync the clock and sign again.',
    message_th: 'PG-Timestamp ไม่มี ไม่ใช่จำนวนวินาทีเต็ม หรือต่างจากเวลาของระบบเกิน 300 วินาที (สาเหตุอยู่ใน message) กรุณาแก้ไขแล้วลงนามใหม่',
  },
  nonce_replayed: {
    status: 401, type: 'authentication_error', retryable: false,
    message: 'This PG-Nonce was already used within the time its request stays valid; send a new one on every attempt.',
    message_th: 'PG-Nonce นี้ถูกใช้ไปแล้ว กรุณาใช้ค่าใหม่ทุกครั้งที่ส่งคำขอ',
  },
  api_key_invalid: {
    status: 401, type: 'authentication_error', retryable: false,
    message: 'The API key does not exist.',
    message_th: 'ไม่พบ API key ที่ใช้ได้ในคำขอนี้ (ไม่ได้ส่ง ส่งผิดรูปแบบ หรือไม่มีในระบบ ดู message)',
  },
  api_key_revoked: {
    status: 401, type: 'authentication_error', retryable: false,
    message: 'The API key has been revoked.',
    message_th: 'API key นี้ถูกเพิกถอนแล้ว',
  },
  tenant_suspended: {
    status: 403, type: 'permission_error', retryable: false,
    message: 'An account in the chain of this key is suspended.',
    message_th: 'ร้านค้าหรือไวท์เลเบลเจ้าของ API key นี้ถูกระงับการใช้งาน',
  },
  scope_denied: {
    status: 403, type: 'permission_error', retryable: false,
    message: 'These credentials lack the permission this request needs (an API key scope, or an operator role).',
    message_th: 'ข้อมูลยืนยันตัวตนนี้ไม่มีสิทธิ์สำหรับคำขอนี้ (scope ของ API key หรือบทบาทของเจ้าหน้าที่)',
  },
  feature_not_enabled: {
    status: 403, type: 'permission_error', retryable: false,
    message: 'This feature is not enabled in this deployment.',
    message_th: 'ฟีเจอร์นี้ไม่ได้เปิดใช้งานในระบบนี้',
  },
  idempotency_key_required: {
    status: 400, type: 'invalid_request_error', retryable: false,
    message: 'Every POST needs an Idempotency-Key header.',
    message_th: 'คำขอ POST ทุกครั้งต้องมี Idempotency-Key',
  },
  malformed_json: {
    status: 400, type: 'invalid_request_error', retryable: false,
    message: 'The request body is not valid JSON.',
    message_th: 'เนื้อหาของคำขอไม่ใช่ JSON ที่ถูกต้อง',
  },
  unsupported_media_type: {
    status: 400, type: 'invalid_request_error', retryable: false,
    message: 'The Content-Type or file type is not supported.',
    message_th: 'ไม่รองรับ Content-Type หรือประเภทไฟล์นี้',
  },
  method_not_allowed: {
    status: 405, type: 'invalid_request_error', retryable: false,
    message: 'This path does not take this HTTP method; the Allow header lists those it takes.',
    message_th: 'เส้นทางนี้ไม่รองรับ HTTP method นี้ ดู header Allow สำหรับ method ที่รองรับ',
  },
  request_timeout: {
    status: 408, type: 'invalid_request_error', retryable: true,
    message: 'The request body did not arrive in time; send it again, whole and promptly.',
    message_th: 'ได้รับเนื้อหาของคำขอไม่ครบภายในเวลาที่กำหนด กรุณาส่งใหม่',
  },
  malformed_request: {
    status: 400, type: 'invalid_request_error', retryable: false,
    message: 'The request is not well-formed HTTP (its request line, a header or its framing); the server could not read it.',
    message_th: 'คำขอไม่ใช่ HTTP ที่ถูกต้อง เซิร์ฟเวอร์อ่านคำขอนี้ไม่ได้',
  },
  cursor_filter_mismatch: {
    status: 400, type: 'invalid_request_error', retryable: false,
    message: 'The filters changed while paging with a cursor.',
    message_th: 'ตัวกรองถูกเปลี่ยนระหว่างการใช้ cursor',
  },
  validation_error: {
    status: 422, type: 'invalid_request_error', retryable: false,
    message: 'The request failed validation; see details.fields.',
    message_th: 'ข้อมูลในคำขอไม่ถูกต้อง ดูรายละเอียดใน details.fields',
  },
  sender_required: {
    status: 422, type: 'invalid_request_error', retryable: false,
    message: 'Give either sender or sender_id.',
    message_th: 'ต้องระบุ sender หรือ sender_id อย่างใดอย่างหนึ่ง',
  },
  amount_not_supported: {
    status: 422, type: 'invalid_request_error', retryable: false,
    message: 'The amount is outside the limits or not a round amount.',
    message_th: 'จำนวนเงินอยู่นอกขอบเขตที่กำหนดหรือไม่ลงตัวตามหน่วยที่กำหนด (ดูขอบเขตใน details.min_minor และ details.max_minor)',
  },
  amount_below_p2p_minimum: {
    status: 422, type: 'invalid_request_error', retryable: false,
    message: 'The amount is below the current P2P minimum.',
    message_th: 'จำนวนเงินต่ำกว่าขั้นต่ำของ P2P ในปัจจุบัน',
  },
  review_note_required: {
    status: 422, type: 'invalid_request_error', retryable: false,
    message: 'A reviewer note of at least 20 characters is required.',
    message_th: 'ต้องมีบันทึกของผู้ตรวจสอบอย่างน้อย 20 ตัวอักษร',
  },
  invalid_cursor: {
    status: 422, type: 'invalid_request_error', retryable: false,
    message: 'The cursor is ahead of the history checkpoint.',
    message_th: 'cursor อยู่เลยจุด checkpoint ของประวัติ',
  },
  resource_not_found: {
    status: 404, type: 'invalid_request_error', retryable: false,
    message: 'No such resource.',
    message_th: 'ไม่พบรายการที่ร้องขอ',
  },
  insufficient_balance: {
    status: 402, type: 'state_conflict', retryable: true, retryableWhen: clearingWillCover,
    message: 'The available balance is less than the amount plus fee.',
    message_th: 'ยอดเงินที่ใช้ได้ไม่พอสำหรับรายการนี้',
  },
  idempotency_key_reused: {
    status: 409, type: 'idempotency_error', retryable: false,
    message: 'This Idempotency-Key was used with a different request.',
    message_th: 'Idempotency-Key นี้ถูกใช้กับคำขอที่ต่างกันไปแล้ว',
  },
  idempotency_in_flight: {
    status: 409, type: 'idempotency_error', retryable: true,
    message: 'A request with this Idempotency-Key is still being processed.',
    message_th: 'คำขอที่ใช้ Idempotency-Key นี้กำลังดำเนินการอยู่',
    retryAfterSeconds: 1,
  },
  sender_bank_unavailable: {
    status: 409, type: 'state_conflict', retryable: true,
    message: 'The sender bank is not accepting new orders.',
    message_th: 'ธนาคารของผู้โอนไม่รับรายการใหม่ในขณะนี้',
  },
  duplicate_open_deposit: {
    status: 409, type: 'state_conflict', retryable: false,
    message: 'An identical open deposit already exists.',
    message_th: 'มีรายการฝากที่เหมือนกันซึ่งยังเปิดอยู่แล้ว',
  },
  too_many_open_deposits: {
    status: 409, type: 'state_conflict', retryable: false,
    message: 'The end user has too many open deposits.',
    message_th: 'ผู้ใช้มีรายการฝากที่ยังเปิดอยู่เกินจำนวนที่กำหนด',
  },
  deposit_not_cancelable: {
    status: 409, type: 'state_conflict', retryable: false,
    message: 'The deposit can no longer be canceled.',
    message_th: 'ไม่สามารถยกเลิกรายการฝากนี้ได้แล้ว',
  },
  withdrawal_has_pending_fill: {
    status: 409, type: 'state_conflict', retryable: true,
    message: 'A fill is in progress; the withdrawal cannot be canceled until it completes.',
    message_th: 'มีการโอนบางส่วนกำลังดำเนินการอยู่ ยังยกเลิกรายการถอนไม่ได้',
  },
  withdrawal_not_cancelable: {
    status: 409, type: 'state_conflict', retryable: false,
    message: 'The withdrawal is already settled, expired or canceled.',
    message_th: 'รายการถอนนี้เสร็จสิ้น หมดอายุ หรือถูกยกเลิกแล้ว',
    // A claim's refund is open but the operators': saying it is finished would mislead.
    messageThWhen: (details) => ('refund_of_deposit_id' in details ? 'รายการถอนนี้เป็นการคืนเงินให้ผู้โอนตามคำร้อง (เคลม) ร้านค้ายกเลิกเองไม่ได้ เจ้าหน้าที่เป็นผู้ดูแล' : undefined),
  },
  beneficiary_not_verified: {
    status: 409, type: 'state_conflict', retryable: true, retryableWhen: (details) => !notAsVerified(details),
    message: 'The beneficiary is not verified yet.',
    message_th: 'บัญชีผู้รับเงินยังไม่ผ่านการยืนยัน',
    messageThWhen: (details) => (notAsVerified(details)
      ? 'บัญชีนี้ยืนยันแล้วด้วยข้อมูลที่ต่างจากที่ส่งมา กรุณาระบุผู้รับเงินให้ตรงกับที่ยืนยันไว้ (details.beneficiary_id) หรือลงทะเบียนบัญชีใหม่'
      : undefined),
  },
  alloc_state_conflict: {
    status: 409, type: 'state_conflict', retryable: true,
    message: 'The underlying fill changed state during the request.',
    message_th: 'สถานะของรายการจับคู่เปลี่ยนไประหว่างดำเนินการคำขอ',
  },
  withdrawal_state_conflict: {
    status: 409, type: 'state_conflict', retryable: true,
    message: 'The withdrawal changed state during the request.',
    message_th: 'สถานะของรายการถอนเปลี่ยนไประหว่างดำเนินการคำขอ',
  },
  sandbox_run_changed: {
    status: 409, type: 'state_conflict', retryable: false,
    message: 'The sandbox run generation changed; restart from sequence 0.',
    message_th: 'รอบของ sandbox เปลี่ยนแล้ว กรุณาเริ่มใหม่จาก sequence 0',
  },
  operation_not_allowed: {
    status: 409, type: 'state_conflict', retryable: false,
    message: 'The operation is not allowed in the current state.',
    message_th: 'ไม่อนุญาตให้ทำรายการนี้ในสถานะปัจจุบัน (เหตุผลและกฎที่ใช้อยู่ใน message)',
  },
  late_slip_window_closed: {
    status: 410, type: 'state_conflict', retryable: false,
    message: 'The 24-hour late-slip window has closed; see details.claim_url.',
    message_th: 'หมดเวลารับสลิปล่าช้า 24 ชั่วโมงแล้ว ดู details.claim_url',
  },
  sandbox_history_cursor_expired: {
    status: 410, type: 'state_conflict', retryable: false,
    message: 'The sandbox cursor is below the retained history; restart from sequence 0.',
    message_th: 'cursor ของ sandbox เก่ากว่าประวัติที่เก็บไว้ กรุณาเริ่มใหม่จาก sequence 0',
  },
  rate_limited: {
    status: 429, type: 'rate_limit_error', retryable: true,
    message: 'Too many requests; retry after the given delay.',
    message_th: 'มีคำขอมากเกินกำหนด กรุณารอตามเวลาที่ระบุแล้วลองใหม่',
  },
  sandbox_rate_limited: {
    status: 429, type: 'rate_limit_error', retryable: true,
    message: 'Too many sandbox history requests.',
    message_th: 'มีคำขอประวัติของ sandbox มากเกินกำหนด',
  },
  route_unavailable: {
    status: 503, type: 'api_error', retryable: true,
    message: 'No route is available to open a new deposit.',
    message_th: 'ขณะนี้ไม่มีช่องทางสำหรับเปิดรายการฝากใหม่',
  },
  service_unavailable: {
    status: 503, type: 'api_error', retryable: true,
    message: 'The service is temporarily unavailable.',
    message_th: 'ระบบไม่พร้อมให้บริการชั่วคราว',
  },
  slip_intake_unavailable: {
    status: 503, type: 'api_error', retryable: true,
    message: 'The slip intake could not be confirmed; retry the same evidence with the same Idempotency-Key.',
    message_th: 'ยังยืนยันการรับสลิปไม่ได้ กรุณาส่งหลักฐานเดิมด้วย Idempotency-Key เดิมอีกครั้ง',
    retryAfterSeconds: 1,
  },
  history_not_ready: {
    status: 503, type: 'api_error', retryable: true,
    message: 'Balance history is not ready; retry with the same sequence.',
    message_th: 'ประวัติยอดเงินยังไม่พร้อม กรุณาลองใหม่ด้วย sequence เดิม',
    retryAfterSeconds: 1,
  },
  sandbox_balance_history_not_ready: {
    status: 503, type: 'api_error', retryable: false,
    message: 'Sandbox balance history is incomplete.',
    message_th: 'ประวัติยอดเงินของ sandbox ยังไม่ครบถ้วน',
  },
  internal_error: {
    status: 500, type: 'api_error', retryable: true,
    message: 'An internal error occurred.',
    message_th: 'เกิดข้อผิดพลาดภายในระบบ',
  },
};

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails, retryAfterSeconds?: number) {
    super(message ?? catalogue[code].message);
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** A core refusal (a value) raised at the HTTP edge. */
  static from(rejection: Rejection): ApiError {
    const details = rejection.details === undefined ? undefined : presentInstants(rejection.details);
    return new ApiError(rejection.code, rejection.message, details);
  }
}

// The core speaks instants as epoch milliseconds; the contract's timestamps are RFC 3339
// UTC with three fractional digits (convention 2). A detail named as an instant (…_at,
// …_until, e.g. pending_clearing_available_at, late_slip_accepted_until) that holds a
// number is presented as one (one RFC 3339 cannot write stays a number); null stays null.
const instantDetailKey = /_(at|until)$/;

function presentInstants(details: Readonly<Record<string, unknown>>): ErrorDetails {
  const out: ErrorDetails = {};
  for (const [key, value] of Object.entries(details)) {
    out[key] = instantDetailKey.test(key) && typeof value === 'number' && isIsoInstant(value) ? iso(value) : value;
  }
  return out;
}

/**
 * insufficient_balance is retryable "after pending_clearing_available_at": only when
 * something is clearing into available and, once it has, available covers what was asked
 * (waiting brings no money otherwise, nor to a reversal taking from pending clearing itself).
 */
function clearingWillCover(d: ErrorDetails): boolean {
  if (d.pending_clearing_available_at == null || d.bucket === 'pending_clearing') return false;
  const minor = (v: unknown): bigint | undefined => (typeof v === 'number' || typeof v === 'string') && /^-?\d+$/.test(String(v)) ? BigInt(String(v)) : undefined;
  const [available, clearing, required] = [minor(d.available_minor), minor(d.pending_clearing_minor), minor(d.required_minor)];
  return available === undefined || clearing === undefined || required === undefined || available + clearing >= required;
}

export interface ErrorBody {
  error: {
    code: ErrorCode;
    type: ErrorType;
    message: string;
    message_th: string;
    retryable: boolean;
    retry_after_seconds: number | null;
    request_id: string;
    details: ErrorDetails;
  };
}

export interface ErrorBodyOptions {
  message?: string;
  details?: ErrorDetails;
  retryAfterSeconds?: number;
}

export function errorBody(code: ErrorCode, requestId: string, options: ErrorBodyOptions = {}): ErrorBody {
  const entry = catalogue[code];
  const retryable = entry.retryable && (entry.retryableWhen?.(options.details ?? {}) ?? true);
  return {
    error: {
      code,
      type: entry.type,
      message: options.message ?? entry.message,
      message_th: entry.messageThWhen?.(options.details ?? {}) ?? entry.message_th,
      retryable,
      retry_after_seconds: retryable ? retryAfterFor(entry, options.retryAfterSeconds) : null,
      request_id: requestId,
      // A bad signature must not tell the caller which part of the canonical string differed.
      details: code === 'signature_invalid' ? {} : { ...options.details },
    },
  };
}

function retryAfterFor(entry: CatalogueEntry, given: number | undefined): number | null {
  if (!entry.retryable) return null;
  const seconds = given ?? entry.retryAfterSeconds;
  if (seconds === undefined || !Number.isFinite(seconds)) return null;
  // Retry-After takes whole seconds; rounding up never invites a retry too early.
  return Math.max(0, Math.ceil(seconds));
}

/**
 * Maps every thrown error to the contract's error object; mount it right after request ids.
 * `publicMessageTh` gives, for a request an end user's own device made (the slip upload),
 * the sentence their screen shows (details.public_message_th), or undefined.
 */
export function errorMiddleware(logger: Logger, publicMessageTh?: (ctx: Context, code: ErrorCode, details: ErrorDetails) => string | undefined): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      // No route matched (or a route left the body empty with 404): answer in the contract's shape.
      if (ctx.status === 404 && ctx.body == null) throw new ApiError('resource_not_found');
      // The router's bare 405 (a known path, another method) and 501 (a method it does not
      // know at all, e.g. PROPFIND): on a known path both are 405 method_not_allowed with
      // the router's Allow header, since a client's choice of method must never read as a
      // fault of the service (5xx); with nothing allowed the path itself is unknown.
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body == null) throw methodNotAllowed(ctx.method, ctx.response.get('Allow'));
    } catch (thrown) {
      const requestId = requestIdOf(ctx) ?? newRequestId();
      const apiError = toApiError(thrown);
      // /readyz's 503 reports a state (starting, lagging, a full disk), not a request that failed: a
      // prober polling it during a start would otherwise fill the log with warnings.
      if (!(ctx.path === '/readyz' && apiError.code === 'service_unavailable')) logError(logger, thrown, apiError, requestId);
      if (ctx.headerSent) return; // a streamed answer already started: nothing can be rewritten
      const status = catalogue[apiError.code].status;
      const body = errorBody(apiError.code, requestId, {
        message: status >= 500 ? undefined : apiError.message,
        details: apiError.details,
        retryAfterSeconds: apiError.retryAfterSeconds,
      });
      const forEndUser = publicMessageTh?.(ctx, apiError.code, body.error.details);
      if (forEndUser !== undefined && body.error.details.public_message_th === undefined) body.error.details.public_message_th = forEndUser;
      ctx.state.errorCode = apiError.code; // for the access-log line written further out
      ctx.status = status;
      ctx.body = body;
      if (body.error.retry_after_seconds !== null) ctx.set('Retry-After', String(body.error.retry_after_seconds));
    }
  };
}

function methodNotAllowed(method: string, allowHeader: string): ApiError {
  const allowed = allowHeader.split(',').map((m) => m.trim()).filter((m) => m !== '');
  if (allowed.length === 0) return new ApiError('resource_not_found', `No such resource for the method ${method}.`);
  return new ApiError('method_not_allowed', `${method} is not allowed here; this path takes ${allowed.join(', ')}.`, { allowed_methods: allowed });
}

/** Errors the body parser (koa-body → co-body / raw-body) throws, by their `type` or shape. */
function toApiError(thrown: unknown): ApiError {
  if (thrown instanceof ApiError) return thrown;
  const status = (thrown as { status?: unknown } | null)?.status;
  const type = (thrown as { type?: unknown } | null)?.type;
  if (thrown instanceof SyntaxError && status === 400) return new ApiError('malformed_json');
  if (type === 'request.aborted' || type === 'request.size.invalid') return new ApiError('malformed_json');
  // A Content-Encoding (gzip, deflate, br) whose bytes do not decompress: the body cannot
  // be parsed. zlib names these Z_DATA_ERROR, Z_BUF_ERROR, ...; brotli ERR__ERROR_FORMAT_...
  const code = (thrown as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(Z_|ERR__ERROR_|ERR_BROTLI)/.test(code)) return new ApiError('malformed_json');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported' || status === 415) {
    return new ApiError('unsupported_media_type');
  }
  // The journal's disk refused the write (full, an I/O error, read-only): nothing was
  // recorded and the same request may succeed later — the service's outage, not a fault
  // of the request: 503 with a retry, never a 500.
  if (isStorageFailure(thrown)) {
    return new ApiError('service_unavailable', `The journal could not store the request: its disk refused the write (${String((thrown as { code: unknown }).code)}); nothing was recorded. Retry with the same Idempotency-Key.`, undefined, writeSideLimits.storageFailureRetryAfterSeconds);
  }
  // Not written because a commit before it failed (its world is being rebuilt): nothing
  // was recorded, and the same request may succeed in a moment.
  if (thrown instanceof RefusedAfterFailure) {
    return new ApiError('service_unavailable', 'The request was not stored: a write before it failed and the service is rebuilding its state; nothing was recorded. Retry with the same Idempotency-Key.', undefined, writeSideLimits.storageFailureRetryAfterSeconds);
  }
  // Another writer changed the order this request was decided against: the contract's conflict, retryable.
  if (thrown instanceof StateConflict) return new ApiError(thrown.code, `${thrown.streamKind === 'withdrawal' ? 'The withdrawal' : 'The order'} changed while the request was decided; nothing was recorded. Retry with the same Idempotency-Key.`);
  if (type === 'entity.too.large') {
    // The contract has no 413 code; a too-large body is a validation failure of the body as a whole.
    return new ApiError('validation_error', undefined, {
      fields: [{ path: '', reason: 'too_large', hint: 'the request body exceeds the size limit' }],
    });
  }
  return new ApiError('internal_error');
}

function logError(logger: Logger, thrown: unknown, apiError: ApiError, requestId: string): void {
  const fields = { request_id: requestId, code: apiError.code };
  if (!(thrown instanceof ApiError) && apiError.code === 'internal_error') {
    // Only name, message and stack: other own properties (co-body's `body`) may hold request data.
    logger.error({ ...fields, err: describeThrown(thrown) }, 'unhandled error');
  } else if (catalogue[apiError.code].status >= 500) {
    logger.warn({ ...fields, message: apiError.message }, 'request failed on the service side');
  } else {
    logger.debug(fields, 'request refused');
  }
}

function describeThrown(thrown: unknown): { type: string; message: string; stack?: string } {
  if (thrown instanceof Error) return { type: thrown.name, message: thrown.message, stack: thrown.stack };
  return { type: typeof thrown, message: String(thrown) };
}
