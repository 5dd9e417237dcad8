// The operator's desk (/v1/bo): the review queue and one deposit with its evidence and
// timeline; the approvals queue and one withdrawal with its fills and dispute evidence;
// fill reversals ⚑ and disputes. Queues read the write side's world (the orders that wait
// on a person are few, and a reviewer must see a decision the moment it is made); paging
// is oldest first by (waiting since, id) with an opaque cursor bound to the filters.

import Router from '@koa/router';
import { join } from 'node:path';
import type { Context } from 'koa';
import type { Deposit, DepositStatus, ReversalReasonCode } from '../../core/deposit/state.ts';
import { reversalReasonCodes } from '../../core/deposit/state.ts';
import { reasonImportance } from '../../core/deposit/reasons.ts';
import { backOfficeLimits, limits } from '../../core/limits.ts';
import { bankByCode } from '../../core/directory.ts';
import { iso, maskAccountNumber, maskName, presentDeposit, presentDispute, presentWithdrawal, resolutionBucketOf } from '../../core/present.ts';
import { disputeAfter, disputeOutcomes, withdrawalStatuses, type DisputeEvent, type DisputeEvidence, type Withdrawal, type WithdrawalEvent, type WithdrawalStatus } from '../../core/withdrawal/state.ts';
import { DiskSlipStore, type IntakeRecord } from '../../adapters/slips/store.ts';
import { JournalTrail, type TrailEntry } from '../../adapters/sqlite/trail.ts';
import type { Db } from '../../adapters/sqlite/schema.ts';
import type { World } from '../../core/world.ts';
import { unknownFill } from '../../core/withdrawal/decide.ts';
import { reviewNeedsTwo } from '../../core/deposit/decide.ts';
import { operatorAuth, operatorOf } from '../auth/operator.ts';
import { ApiError } from '../errors.ts';
import { runIdempotent, type Response } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { parseIso } from '../time.ts';
import { compile } from '../validate.ts';
import { writtenText } from '../schemas.ts';
import type { Command } from '../../core/handler/commands.ts';
import { amountOf, bodyOf, durableRead, noteBeforeStepUp, notFound, parseWith, operatorScope } from './common.ts';
import { booleanParam, decodeFilterCursor, encodeFilterCursor, enumParam, limitParam, readQuery } from './read-params.ts';
import { depositSlips, operatorDepositView } from './bo-timeline.ts';
import { answerSlipImage } from '../slips/routes.ts';

// The queues list open work, which the write side keeps in memory; closed orders leave it
// (README "Write path") and are read one at a time by id. A final withdrawal stays while
// its dispute is open, so the final statuses are listed with disputed=true.
export const depositQueueStatuses: readonly DepositStatus[] = ['awaiting_liquidity', 'awaiting_payment', 'slip_processing', 'under_review'];
export const openWithdrawalStatuses: readonly WithdrawalStatus[] = ['pending_approval', 'open', 'partially_filled'];

export const deskSchemas = {
  // A missing note is a note too short (review_note_required), as on reviews and claims.
  reversal: compile<{ reason_code: string; note?: string }>({ type: 'object', additionalProperties: false, required: ['reason_code'], properties: { reason_code: { type: 'string', minLength: 1, maxLength: 64 }, note: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText } } }),
  dispute: compile<{ reason_code: string; amount_minor: number; respond_by?: string }>({
    type: 'object', additionalProperties: false, required: ['reason_code', 'amount_minor'],
    properties: { reason_code: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }, amount_minor: { type: 'integer', minimum: 1 }, respond_by: { type: 'string', maxLength: 40 } },
  }),
  resolve: compile<{ outcome: (typeof disputeOutcomes)[number]; note?: string }>({
    type: 'object', additionalProperties: false, required: ['outcome'], properties: { outcome: { enum: [...disputeOutcomes] }, note: { type: 'string', maxLength: limits.noteLengthMax, pattern: writtenText } },
  }),
};

// ---- paging: oldest first by (since, id); the cursor names the last row and the filters ----

interface Cursor { readonly since: number; readonly id: string }
const isCursor = (c: Record<string, unknown>): c is Record<string, unknown> & Cursor => typeof c.since === 'number' && typeof c.id === 'string';

/** One page of `rows`, oldest first by (since, id), after the cursor. */
export function pageOf<T>(rows: readonly T[], key: (row: T) => { since: number; id: string }, q: Record<string, string>, filters: string): { page: T[]; hasMore: boolean; next: string | null } {
  const limit = limitParam(q.limit, backOfficeLimits.queuePageSizeDefault, backOfficeLimits.queuePageSizeMax);
  const after = decodeFilterCursor(q.cursor, filters, isCursor);
  const sorted = rows.map((r) => ({ r, k: key(r) })).sort((a, b) => a.k.since - b.k.since || (a.k.id < b.k.id ? -1 : a.k.id > b.k.id ? 1 : 0));
  const rest = after ? sorted.filter(({ k }) => k.since > after.since || (k.since === after.since && k.id > after.id)) : sorted;
  const page = rest.slice(0, limit);
  const last = page[page.length - 1];
  const hasMore = rest.length > limit;
  return { page: page.map((x) => x.r), hasMore, next: hasMore && last ? encodeFilterCursor({ since: last.k.since, id: last.k.id }, filters) : null };
}

const buckets = ['under_15m', 'under_1h', 'under_4h', 'extended'] as const;
// Where each bucket ends, as the review's own estimate has them: 15 minutes, the escalation (1 h), the extension (4 h).
const bucketEndsMs = [15 * 60_000, limits.reviewEscalationMs, backOfficeLimits.reviewExtendedAfterMs];

/**
 * The queue's estimate: the review's (four eyes, escalation, extension), but never one its
 * age has already passed — a review waiting 30 minutes is not `under_15m` (a support lead's
 * shift read it so). The merchant's object keeps the review's own, which moves with events only.
 */
function queueBucket(review: NonNullable<Deposit['review']>, fourEyes: boolean, now: number): (typeof buckets)[number] {
  const byReview = buckets.indexOf(resolutionBucketOf(review, fourEyes));
  const waited = now - review.openedAt;
  const byAge = bucketEndsMs.filter((end) => waited >= end).length;
  return buckets[Math.max(byReview, byAge)]!;
}

/** The queue entry: the deposit as the merchant sees it plus what a reviewer sorts by. */
function queueEntry(d: Deposit, world: World, now: number): Record<string, unknown> {
  const since = d.review?.openedAt ?? d.createdAt;
  const fourEyes = reviewNeedsTwo(d, world.withdrawalOf);
  return {
    ...presentDeposit(d, { fourEyes }), merchant_id: d.merchantId, merchant_name: world.merchants.get(d.merchantId)?.name ?? null, waiting_since: iso(since), age_seconds: Math.max(0, Math.floor((now - since) / 1000)),
    ...(d.review ? { approvals: [...d.review.approvals], estimated_resolution_bucket: queueBucket(d.review, fourEyes, now) } : {}),
  };
}


function depositQueue(services: Services, q: Record<string, string>): Record<string, unknown> {
  const status = enumParam<DepositStatus>(q.status, 'status', depositQueueStatuses) ?? 'under_review';
  enumParam(q.reason, 'reason', reasonImportance); // a typo is refused, not answered with an empty queue
  const escalated = booleanParam(q.escalated, 'escalated');
  const livemode = booleanParam(q.livemode, 'livemode');
  const filters = JSON.stringify(['deposit_queue', status, q.reason ?? null, escalated ?? null, q.merchant_id ?? null, livemode ?? null]);
  const now = services.write.clock.now();
  const rows = [...services.write.world.deposits.values()].filter((d) => d.status === status
    && (q.reason === undefined || (d.review?.reasons.some((r) => r.code === q.reason) ?? false))
    && (escalated === undefined || (d.review?.escalated ?? false) === escalated)
    && (q.merchant_id === undefined || d.merchantId === q.merchant_id)
    && (livemode === undefined || d.livemode === livemode));
  const { page, hasMore, next } = pageOf(rows, (d) => ({ since: d.review?.openedAt ?? d.createdAt, id: d.id }), q, filters);
  const oldest = rows.reduce<number | null>((m, d) => Math.min(m ?? Infinity, d.review?.openedAt ?? d.createdAt), null);
  return {
    object: 'list', data: page.map((d) => queueEntry(d, services.write.world, now)), has_more: hasMore, next_cursor: next,
    total: rows.length, oldest_age_seconds: oldest === null ? null : Math.max(0, Math.floor((now - oldest) / 1000)), as_of: iso(now),
  };
}

/**
 * Where a withdrawal's money goes and whose it is, as an approver checks them before the
 * second pair of eyes: the payee's bank, account and name, masked as everywhere, and the
 * merchant's name.
 */
function payoutParties(services: Services, w: Withdrawal): Record<string, unknown> {
  const world = services.write.world;
  const b = world.beneficiaries.get(w.beneficiaryId);
  return {
    merchant_name: world.merchants.get(w.merchantId)?.name ?? null,
    beneficiary: b ? {
      id: b.id, status: b.status, bank_code: b.bankCode, bank_name_th: bankByCode(b.bankCode)?.nameTh ?? null,
      account_number_masked: maskAccountNumber(b.accountNumber), account_name_masked: maskName(b.accountNameTh),
    } : null,
  };
}

function withdrawalQueue(services: Services, q: Record<string, string>): Record<string, unknown> {
  const livemode = booleanParam(q.livemode, 'livemode');
  const disputed = booleanParam(q.disputed, 'disputed');
  // disputed=true alone lists every open dispute, whatever its withdrawal's status (a shift's
  // hand-over asked it and got the pending approvals' none); else the approvals queue by default.
  const status = enumParam<WithdrawalStatus>(q.status, 'status', withdrawalStatuses) ?? (disputed === true ? undefined : 'pending_approval');
  if (status !== undefined && !openWithdrawalStatuses.includes(status) && disputed !== true) {
    throw new ApiError('validation_error', `The queue lists open withdrawals (${openWithdrawalStatuses.join(', ')}); a ${status} one is listed only with disputed=true, or read by id.`, { fields: [{ path: 'query.status', reason: 'closed_status' }] });
  }
  const filters = JSON.stringify(['withdrawal_queue', status ?? null, q.merchant_id ?? null, livemode ?? null, disputed ?? null]);
  const now = services.write.clock.now();
  const rows = [...services.write.world.withdrawals.values()].filter((w) => (status === undefined || w.status === status)
    && (q.merchant_id === undefined || w.merchantId === q.merchant_id)
    && (livemode === undefined || w.livemode === livemode)
    && (disputed === undefined || (w.dispute?.status === 'open') === disputed));
  const { page, hasMore, next } = pageOf(rows, (w) => ({ since: w.createdAt, id: w.id }), q, filters);
  return {
    object: 'list', has_more: hasMore, next_cursor: next, total: rows.length, as_of: iso(now),
    data: page.map((w) => ({
      ...presentWithdrawal(w), merchant_id: w.merchantId, ...payoutParties(services, w), age_seconds: Math.max(0, Math.floor((now - w.createdAt) / 1000)),
      approvals: [...w.approvals], approvals_required: w.approvalsRequired,
    })),
  };
}

/**
 * An order and its journal trail at one point. The world applies a commit at once and the
 * journal shows it once it is durable: an order read while a decision on it is being made
 * durable (another operator's, this instant) waits for it, rather than showing a state its
 * trail does not explain yet (a deposit settled with no settling decision in its timeline).
 */
async function withTrail<T extends { readonly id: string }>(services: Services, trail: JournalTrail, id: string, read: (id: string) => T): Promise<{ order: T; own: TrailEntry[] }> {
  await durableRead(services, id);
  const order = read(id);
  return { order, own: trail.stream(order.id) };
}

/**
 * One withdrawal as an operator sees it: the order, its approvals, and one dispute with its
 * evidence from the journal — the one asked for by its id (a dispute's own route: an earlier
 * dispute of an order that has a newer one too), else the order's current one — and every
 * dispute it has had, newest first. A dispute's entries run from its DisputeOpened to the next
 * dispute's.
 */
async function operatorWithdrawalView(services: Services, id: string, trail: JournalTrail, read: (id: string) => Withdrawal, disputeId?: string): Promise<Record<string, unknown>> {
  const { order: w, own } = await withTrail(services, trail, id, read);
  const disputes: { entry: TrailEntry; event: DisputeEvent }[][] = [];
  for (const entry of own) {
    const event = entry.event as WithdrawalEvent;
    if (event.type === 'DisputeOpened') disputes.push([{ entry, event }]);
    else if ((event.type === 'DisputeEvidenceSubmitted' || event.type === 'DisputeResolved') && disputes.length > 0) disputes.at(-1)!.push({ entry, event });
  }
  const asked = disputeId === undefined ? disputes.at(-1) : disputes.find(([first]) => first!.event.type === 'DisputeOpened' && first!.event.dispute.id === disputeId);
  if (disputeId !== undefined && asked === undefined) throw notFound('dispute');
  const askedEvents = (asked ?? []).map((d) => d.event);
  const dispute = asked === undefined ? w.dispute : disputeAfter(askedEvents);
  const evidence = (asked ?? []).filter((d) => d.event.type === 'DisputeEvidenceSubmitted').map(({ entry: e }) => {
    const ev = (e.event as { evidence?: DisputeEvidence }).evidence;
    const files = (ev?.files ?? []).map((f) => ({
      name: f.name, bytes: f.bytes, sha256: f.sha256 ?? null, media_type: f.mediaType ?? null, file_id: f.fileId ?? null,
      // Kept since evidence files are stored; an older journal's file has its name and size only.
      download_url: f.fileId && dispute ? `/v1/bo/disputes/${dispute.id}/files/${f.fileId}` : null,
    }));
    return { seq: e.seq, hash: e.hash, submitted_at: iso(e.recordedAt), text: ev?.text ?? null, files };
  });
  // Who opened the dispute and who resolved it, with the resolution's note: the
  // operators' side, never the merchant's (presentDispute stays as the merchant reads it).
  const opened = askedEvents.find((e): e is Extract<DisputeEvent, { type: 'DisputeOpened' }> => e.type === 'DisputeOpened');
  const resolved = askedEvents.find((e): e is Extract<DisputeEvent, { type: 'DisputeResolved' }> => e.type === 'DisputeResolved');
  // The operators' decisions on the order, each with who, when and their note (journal.db: the
  // request log keeps a body 30 days only). Entries from before they kept their operator or note say null.
  const decisions = own.flatMap((entry) => {
    const e = entry.event as WithdrawalEvent;
    if (e.type === 'WithdrawalApprovalRecorded') return [{ decision: 'approve', operator: e.operatorId, at: iso(e.at), note: e.note ?? null }];
    if (e.type === 'WithdrawalRejected') return [{ decision: 'reject', operator: e.operatorId ?? null, at: iso(e.at), note: e.note ?? null }];
    if (e.type === 'WithdrawalCanceled' && e.by === 'operator') return [{ decision: 'cancel', operator: e.operatorId ?? null, at: iso(e.at), note: e.note ?? null }];
    return [];
  });
  // Each fill with the deposit that paid it, for the operator (the merchant's fill has no other merchant's order).
  const shown = presentWithdrawal(w, { withReceipts: true }) as Record<string, unknown> & { fills: Record<string, unknown>[] };
  const withdrawal = { ...shown, fills: shown.fills.map((f, i) => ({ ...f, deposit_id: w.fills[i]?.depositId ?? null })) };
  return {
    withdrawal, merchant_id: w.merchantId, ...payoutParties(services, w),
    approvals: [...w.approvals], approvals_required: w.approvalsRequired, decisions,
    dispute: dispute ? {
      ...presentDispute(dispute, w.livemode), evidence,
      opened_by: opened?.by ?? null, resolved_by: resolved?.by ?? null, resolution_note: resolved?.note ?? null,
    } : null,
    // Every dispute the order has had, newest first (an earlier one, lost or resolved before a
    // newer was opened, is otherwise reachable only by its id): each as it stands, and when it was resolved.
    disputes: [...disputes].reverse().flatMap((entries) => {
      const each = disputeAfter(entries.map((d) => d.event));
      const resolvedAt = entries.find((d) => d.event.type === 'DisputeResolved')?.event.at;
      return each ? [{ ...presentDispute(each, w.livemode), resolved_at: resolvedAt === undefined ? null : iso(resolvedAt) }] : [];
    }),
  };
}

/** A file name for Content-Disposition's plain `filename`: printable ASCII without quotes or backslashes (filename* carries the name itself). */
const asciiFileName = (name: string): string => name.replace(/[^\x20-\x7e]|["\\]/g, '_');

/** The name a download is saved under: the sender's name without any directory it named (`../../x` is `x`). */
const downloadName = (name: string): string => {
  const base = name.split(/[\\/]/).pop() ?? '';
  return base === '' || base === '.' || base === '..' ? 'evidence' : base;
};

export interface DeskParts {
  readonly services: Services;
  readonly journalDb: Db;
  readonly dataDir: string;
  readonly verify: Parameters<typeof operatorAuth>[0];
}

export function backOfficeDeskRoutes(parts: DeskParts): Router {
  const { services } = parts;
  const router = new Router({ prefix: '/v1/bo', sensitive: true });
  router.use(operatorAuth(parts.verify));
  const trail = new JournalTrail(parts.journalDb);
  const slips = new DiskSlipStore(join(parts.dataDir, 'slips'));
  const world = () => services.write.world;
  const actorOf = (ctx: Context) => ({ kind: 'operator' as const, operatorId: operatorOf(ctx).sub });
  const run = (ctx: Context, command: Command, render: (id: string | undefined) => Response) =>
    runIdempotent(ctx, services, operatorScope(ctx), command, render);
  const withdrawal = (id: string) => world().withdrawals.get(id) ?? (() => { throw notFound('withdrawal'); })();
  const deposit = (id: string) => world().deposits.get(id) ?? (() => { throw notFound('deposit'); })();

  router.get('/deposits', (ctx) => {
    ctx.body = depositQueue(services, readQuery(ctx, ['status', 'reason', 'escalated', 'merchant_id', 'livemode', 'cursor', 'limit']));
  });

  router.get('/deposits/:id', async (ctx) => {
    readQuery(ctx, []);
    // read once: the slips, the settlement's facts and the timeline
    const { order: d, own } = await withTrail(services, trail, ctx.params.id!, deposit);
    const records = new Map<string, IntakeRecord | undefined>();
    for (const s of depositSlips(d, own)) records.set(s.receiptId, await slips.record(s.receiptId).catch(() => undefined));
    const answer = d.slip ? await slips.answer(d.slip.receiptId).catch(() => undefined) : undefined;
    ctx.body = operatorDepositView(d, { world: world(), trail, own, slips: records, ...(answer ? { answer } : {}), now: services.write.clock.now() });
  });

  router.get('/deposits/:id/slips/:receiptId/image', async (ctx) => {
    readQuery(ctx, []);
    const d = world().deposits.get(ctx.params.id!);
    const receipt = d ? depositSlips(d, trail.stream(d.id)).find((s) => s.receiptId === ctx.params.receiptId) : undefined;
    const record = receipt ? await slips.record(receipt.receiptId).catch(() => undefined) : undefined;
    const image = record?.evidence.kind === 'image' ? await slips.image(record.receiptId).catch(() => undefined) : undefined;
    if (!image || record?.evidence.kind !== 'image') throw notFound('slip image');
    answerSlipImage(ctx, image, record.evidence.mediaType);
  });

  router.get('/withdrawals', (ctx) => {
    ctx.body = withdrawalQueue(services, readQuery(ctx, ['status', 'merchant_id', 'livemode', 'disputed', 'cursor', 'limit']));
  });

  router.get('/withdrawals/:id', async (ctx) => {
    readQuery(ctx, []);
    ctx.body = await operatorWithdrawalView(services, ctx.params.id!, trail, withdrawal);
  });

  router.post('/withdrawals/:id/fills/:legRef/reverse', async (ctx) => {
    const b = parseWith(deskSchemas.reversal, bodyOf(ctx));
    if (!reversalReasonCodes.includes(b.reason_code as ReversalReasonCode)) throw new ApiError('validation_error', 'Unknown reason_code.', { fields: [{ path: 'reason_code', reason: 'enum', hint: reversalReasonCodes.join(', ') }] });
    // A note too short, an unknown withdrawal and a leg it has no fill for spend no step-up (noteBeforeStepUp); the handler checks them too.
    const fillFound = () => {
      const w = world().withdrawals.get(ctx.params.id!);
      if (!w) throw notFound('withdrawal');
      const noFill = unknownFill(w, ctx.params.legRef!);
      if (noFill) throw ApiError.from(noFill);
    };
    await runIdempotent(ctx, services, operatorScope(ctx), { type: 'ReverseFill', actor: actorOf(ctx), withdrawalId: ctx.params.id!, legRef: ctx.params.legRef!, reasonCode: b.reason_code, note: b.note ?? '' },
      (id) => ({ status: 200, body: presentWithdrawal(world().withdrawals.get(id!)!, { withReceipts: true }) }), { admit: noteBeforeStepUp(ctx, b.note ?? '', 'A fill reversal', fillFound) });
  });

  router.post('/withdrawals/:id/disputes', async (ctx) => {
    const b = parseWith(deskSchemas.dispute, bodyOf(ctx));
    const respondBy = b.respond_by === undefined ? undefined : parseIso(b.respond_by);
    if (respondBy === null || (respondBy !== undefined && respondBy <= services.write.clock.now())) {
      throw new ApiError('validation_error', 'respond_by is an RFC 3339 instant in the future.', { fields: [{ path: 'respond_by', reason: 'format' }] });
    }
    if (respondBy !== undefined && respondBy > services.write.clock.now() + limits.disputeRespondByMsMax) {
      throw new ApiError('validation_error', `respond_by is at most ${limits.disputeRespondByMsMax / 86_400_000} days ahead: an evidence deadline.`, { fields: [{ path: 'respond_by', reason: 'maximum' }] });
    }
    await run(ctx, { type: 'OpenDispute', actor: actorOf(ctx), withdrawalId: ctx.params.id!, reasonCode: b.reason_code, amountMinor: amountOf(b.amount_minor), ...(respondBy !== undefined ? { respondBy } : {}) },
      (id) => {
        const w = world().withdrawals.get(id!)!;
        return { status: 201, body: presentDispute(w.dispute!, w.livemode) };
      });
  });

  router.get('/disputes/:id', async (ctx) => {
    readQuery(ctx, []);
    const withdrawalId = world().withdrawalByDispute.get(ctx.params.id!);
    if (!withdrawalId) throw notFound('dispute');
    ctx.body = await operatorWithdrawalView(services, withdrawalId, trail, withdrawal, ctx.params.id!);
  });

  // One evidence file's bytes, as the merchant sent them: named by the dispute and the file
  // (a file id of another dispute is 404), served as a download, never rendered.
  router.get('/disputes/:id/files/:fileId', async (ctx) => {
    readQuery(ctx, []);
    const withdrawalId = world().withdrawalByDispute.get(ctx.params.id!);
    if (!withdrawalId) throw notFound('dispute');
    const file = trail.stream(withdrawalId)
      .flatMap((e) => e.type === 'DisputeEvidenceSubmitted' ? ((e.event as { evidence?: DisputeEvidence }).evidence?.files ?? []) : [])
      .find((f) => f.fileId !== undefined && f.fileId === ctx.params.fileId);
    const bytes = file?.fileId ? await slips.file(file.fileId) : undefined;
    if (!file || !bytes) throw notFound('evidence file');
    const name = downloadName(file.name);
    ctx.set('Content-Disposition', `attachment; filename="${asciiFileName(name)}"; filename*=UTF-8''${encodeURIComponent(name)}`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/octet-stream';
    ctx.body = bytes;
  });

  router.post('/disputes/:id/resolve', async (ctx) => {
    const b = parseWith(deskSchemas.resolve, bodyOf(ctx));
    await run(ctx, { type: 'ResolveDispute', actor: actorOf(ctx), disputeId: ctx.params.id!, outcome: b.outcome, ...(b.note !== undefined ? { note: b.note } : {}) }, (id) => {
      const w = world().withdrawals.get(id!)!;
      return { status: 200, body: presentDispute(w.dispute!, w.livemode) };
    });
  });

  return router;
}
