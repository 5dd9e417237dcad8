// The bank simulator (DESIGN.md "Slip verification"): a stand-in for the banks and the
// slip-verification provider, for development, demos and tests. Tests register the
// transfers a bank would know; a slip is recognised by its mini-QR payload or, failing
// that, by the SHA-256 of its image bytes; a slip it does not recognise is unreadable, and
// a payload that names no known transfer is not_found (a QR that reads but proves nothing).
//
//   POST /transfers {trans_ref, amount_minor, sender {bank_code, account_number, account_name_th},
//                    receiver {bank_code, account_number, account_name}, occurred_at, payload?, image_sha256?} → 201
//   POST /verify    {payload?, image_sha256} → 200 {status: 'found' | 'not_found' | 'unreadable', transfer?}
//
// A found transfer is answered as a Thai slip prints it: account numbers masked to four
// visible digits ("xxx-x-x4321-x"), names cut after the first letter of the surname
// ("สมชาย ใ***"), so the six-dimension check meets masked data on every path. Memory is
// bounded (simulatorTransfersMax). Pure logic: handle() maps a request to a response; the
// Koa mount and the standalone server only carry bytes.

import type { SlipEvidence, SlipVerdict, SlipVerifier } from '../../core/ports.ts';
import { slipAdapterLimits } from '../../core/limits.ts';
import { instantOf, isObject, verdictOf, verifyRequestOf, type TransferJson, type VerifyResponseJson } from './protocol.ts';

export interface SimResponse {
  readonly status: number;
  readonly body: unknown;
}

interface RegisteredTransfer extends TransferJson {
  readonly payload?: string;
  readonly image_sha256?: string;
}

export interface FieldProblem { readonly path: string; readonly reason: string }

/** The body of a refusal: the simulator's own protocol, as a provider answers; the mounted route re-says it as the contract's error object. */
export interface SimFailureBody {
  readonly error: { readonly code: string; readonly message: string; readonly fields?: readonly FieldProblem[] };
}

const bankCode = /^[0-9]{3}$/;
const accountNumber = /^[0-9]{6,20}$/;
const sha256Hex = /^[0-9a-f]{64}$/;
const controlChars = /[\u0000-\u001f\u007f]/;
const honorific = /^(นาย|นางสาว|นาง|น\.ส\.|mr\.?|mrs\.?|ms\.?|miss)$/i;

export class BankSimulator {
  private readonly transfers = new Map<string, RegisteredTransfer>();
  private readonly byPayload = new Map<string, string>();
  private readonly byImage = new Map<string, string>();

  /** Routes one request; `path` is relative to the simulator's root ('/transfers', '/verify'). */
  handle(method: string, path: string, body: unknown): SimResponse {
    if (method === 'POST' && path === '/transfers') return this.register(body);
    if (method === 'POST' && path === '/verify') return this.verify(body);
    return failure(404, 'not_found', `No simulator route ${method} ${path}.`);
  }

  register(body: unknown): SimResponse {
    const problems = transferProblems(body);
    if (problems.length > 0) return failure(422, 'validation_error', 'The transfer is not valid.', problems);
    const t = body as RegisteredTransfer;
    if (this.transfers.has(t.trans_ref)) return failure(409, 'duplicate_trans_ref', `Transfer ${t.trans_ref} is already registered.`);
    if ((t.payload !== undefined && this.byPayload.has(t.payload)) || (t.image_sha256 !== undefined && this.byImage.has(t.image_sha256))) {
      return failure(409, 'duplicate_slip', 'Another transfer already has this payload or image.');
    }
    if (this.transfers.size >= slipAdapterLimits.simulatorTransfersMax) return failure(507, 'simulator_full', `The simulator keeps at most ${slipAdapterLimits.simulatorTransfersMax} transfers.`);
    const stored: RegisteredTransfer = {
      trans_ref: t.trans_ref, amount_minor: t.amount_minor,
      sender: { bank_code: t.sender.bank_code, account_number: t.sender.account_number, account_name_th: t.sender.account_name_th },
      receiver: { bank_code: t.receiver.bank_code, account_number: t.receiver.account_number, account_name: t.receiver.account_name },
      occurred_at: new Date(instantOf(t.occurred_at)!).toISOString(),
      ...(t.payload !== undefined ? { payload: t.payload } : {}), ...(t.image_sha256 !== undefined ? { image_sha256: t.image_sha256 } : {}),
    };
    this.transfers.set(stored.trans_ref, stored);
    if (stored.payload !== undefined) this.byPayload.set(stored.payload, stored.trans_ref);
    if (stored.image_sha256 !== undefined) this.byImage.set(stored.image_sha256, stored.trans_ref);
    return { status: 201, body: stored };
  }

  verify(body: unknown): SimResponse {
    const problems: FieldProblem[] = [];
    if (!isObject(body)) return failure(422, 'validation_error', 'The body must be an object.', [{ path: '', reason: 'type' }]);
    for (const key of Object.keys(body)) if (key !== 'payload' && key !== 'image_sha256') problems.push({ path: key, reason: 'unknown_field' });
    if (typeof body.image_sha256 !== 'string' || !sha256Hex.test(body.image_sha256)) problems.push({ path: 'image_sha256', reason: 'pattern' });
    if (body.payload !== undefined && !isPayload(body.payload)) problems.push({ path: 'payload', reason: 'type' });
    if (problems.length > 0) return failure(422, 'validation_error', 'The verify request is not valid.', problems);
    const payload = body.payload as string | undefined;
    const ref = (payload !== undefined ? this.byPayload.get(payload) : undefined) ?? this.byImage.get(body.image_sha256 as string);
    const transfer = ref === undefined ? undefined : this.transfers.get(ref);
    const answer: VerifyResponseJson = transfer ? { status: 'found', transfer: asPrinted(transfer) } : { status: payload !== undefined ? 'not_found' : 'unreadable' };
    return { status: 200, body: answer };
  }
}

/** The simulator as the SlipVerifier port, called in-process (the server's development default). */
export class SimulatorVerifier implements SlipVerifier {
  constructor(private readonly simulator: BankSimulator) {}

  async verify(evidence: SlipEvidence): Promise<SlipVerdict> {
    const answer = this.simulator.verify(verifyRequestOf(evidence));
    return answer.status === 200 ? verdictOf(JSON.parse(JSON.stringify(answer.body))) : { kind: 'provider_unavailable' };
  }
}

function failure(status: number, code: string, message: string, fields?: FieldProblem[]): SimResponse {
  const body: SimFailureBody = { error: { code, message, ...(fields ? { fields } : {}) } };
  return { status, body };
}

function isPayload(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= slipAdapterLimits.payloadLengthMax;
}

function text(value: unknown, lengthMax: number): boolean {
  return typeof value === 'string' && value.trim().length > 0 && value.length <= lengthMax && !controlChars.test(value);
}

function transferProblems(body: unknown): FieldProblem[] {
  if (!isObject(body)) return [{ path: '', reason: 'type' }];
  const problems: FieldProblem[] = [];
  const known = ['trans_ref', 'amount_minor', 'sender', 'receiver', 'occurred_at', 'payload', 'image_sha256'];
  for (const key of Object.keys(body)) if (!known.includes(key)) problems.push({ path: key, reason: 'unknown_field' });
  if (!text(body.trans_ref, 64)) problems.push({ path: 'trans_ref', reason: 'type' });
  if (typeof body.amount_minor !== 'number' || !Number.isSafeInteger(body.amount_minor) || body.amount_minor <= 0) problems.push({ path: 'amount_minor', reason: 'positive_safe_integer' });
  if (instantOf(body.occurred_at) === null) problems.push({ path: 'occurred_at', reason: 'format' });
  if (body.payload !== undefined && !isPayload(body.payload)) problems.push({ path: 'payload', reason: 'type' });
  if (body.image_sha256 !== undefined && (typeof body.image_sha256 !== 'string' || !sha256Hex.test(body.image_sha256))) problems.push({ path: 'image_sha256', reason: 'pattern' });
  const party = (name: 'sender' | 'receiver', nameKey: string) => {
    const p = body[name];
    if (!isObject(p)) { problems.push({ path: name, reason: 'type' }); return; }
    for (const key of Object.keys(p)) if (!['bank_code', 'account_number', nameKey].includes(key)) problems.push({ path: `${name}.${key}`, reason: 'unknown_field' });
    if (typeof p.bank_code !== 'string' || !bankCode.test(p.bank_code)) problems.push({ path: `${name}.bank_code`, reason: 'pattern' });
    if (typeof p.account_number !== 'string' || !accountNumber.test(p.account_number)) problems.push({ path: `${name}.account_number`, reason: 'pattern' });
    if (!text(p[nameKey], 140)) problems.push({ path: `${name}.${nameKey}`, reason: 'type' });
  };
  party('sender', 'account_name_th');
  party('receiver', 'account_name');
  return problems;
}

/** The transfer as a slip prints it: numbers and names masked. */
function asPrinted(t: RegisteredTransfer): TransferJson {
  return {
    trans_ref: t.trans_ref, amount_minor: t.amount_minor, occurred_at: t.occurred_at,
    sender: { bank_code: t.sender.bank_code, account_number: maskAccountNumber(t.sender.account_number), account_name_th: maskName(t.sender.account_name_th) },
    receiver: { bank_code: t.receiver.bank_code, account_number: maskAccountNumber(t.receiver.account_number), account_name: maskName(t.receiver.account_name) },
  };
}

/** Four digits visible, one masked after them, the rest masked before: "9876543210" → "xxx-x-x4321-x". */
export function maskAccountNumber(accountNumber: string): string {
  const digits = accountNumber.replace(/\D/g, '');
  const n = digits.length;
  if (n < 6) return 'x'.repeat(n);
  const masked = 'x'.repeat(n - 5) + digits.slice(n - 5, n - 1) + 'x';
  return n === 10 ? `${masked.slice(0, 3)}-${masked.slice(3, 4)}-${masked.slice(4, 9)}-${masked.slice(9)}` : masked;
}

/** The given name in full, the surname cut after its first letter: "นาย สมชาย ใจดี" → "นาย สมชาย ใ***". */
export function maskName(name: string): string {
  const words = name.trim().split(/\s+/);
  const title = words.length >= 2 && honorific.test(words[0]!) ? `${words.shift()} ` : '';
  const [given = '', surname] = words;
  if (surname === undefined) return title + [...given].slice(0, 3).join('') + '***';
  return `${title}${given} ${[...surname][0]}***`;
}
