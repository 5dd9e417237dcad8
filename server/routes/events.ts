// GET /v1/pay/events?since_sequence=&limit= (DESIGN.md: the events feed, for the merchants'
// daily reconciliation): the caller's webhook envelopes in its mode, by the merchant's
// event sequence, from the events feed projection → {object 'list', data: [envelopes],
// has_more, next_sequence}. Each envelope is written out as a webhook delivery sends it
// (the outbox's bytes through presentedEnvelope: a sandbox event stored with raw btxn_ ids
// names its balance transactions sbxbtxn_l_…, as the history does); next_sequence is the last one's sequence, or the
// given since_sequence on an empty page. limit 1–200, default 20. coverage tells what
// retention has deleted (adapters/webhooks/retention.ts): min_since_sequence is the highest
// sequence it deleted for the caller (0: none), and state is 'partial' when the page starts
// below it — events at or below it may be missing because they were older than
// retention_days, not because they were lost. coverage.skipped lists the ranges a
// restore's jump passed over (no event ever held one) that lie in or right after the
// page, so a reconciliation takes them for no gap rather than a loss.
// The feed carries every object of the merchant's — balance transactions and withdrawals
// among them — so a live key reads it only with wallet:read and withdrawals:read, the
// scopes that guard those objects' own routes; otherwise the feed would leak what the key
// is refused directly. It is not filtered instead: a filtered feed would have gaps that a
// reconciliation must take for losses.

import Router from '@koa/router';
import { limits, readSideLimits, webhookLimits } from '../../core/limits.ts';
import { presentedEnvelope } from '../../adapters/sqlite/envelope.ts';
import { merchantAuth, requireScope } from '../auth/merchant.ts';
import type { Services } from '../ports.ts';
import { limitParam, readQuery, readSideOf, sequenceParam } from './read-params.ts';

export function eventsRoutes(services: Services): Router {
  const router = new Router({ prefix: '/v1/pay/events', sensitive: true });
  router.use(merchantAuth(services));
  router.get('/', async (ctx) => {
    const m = requireScope(ctx, 'wallet:read', 'withdrawals:read');
    const q = readQuery(ctx, ['since_sequence', 'limit']);
    const since = sequenceParam(q.since_sequence, 'since_sequence', BigInt(Number.MAX_SAFE_INTEGER));
    const limit = limitParam(q.limit, limits.pageSizeDefault, limits.pageSizeMax);
    const read = readSideOf(services);
    await read.caughtUp('events_feed', services.write.world.lastSeq, readSideLimits.listFreshnessWaitMs);
    const page = read.models.events.read(m.merchantId, m.livemode, since, limit);
    const fromJournal = page.bodies.map((body, i) => ({ sequence: page.sequences[i]!, body: presentedEnvelope(body) }));
    const fromService = services.serviceEvents?.(m.merchantId, m.livemode, since, limit + 1) ?? [];
    const merged = [...fromJournal, ...fromService].sort((a, b) => a.sequence - b.sequence);
    const floor = services.eventFloor?.(m.merchantId, m.livemode) ?? 0;
    const jumps = services.sequenceJumps?.(m.merchantId, m.livemode) ?? [];
    /** Whether every sequence from `from` to `to` is one no event holds: deleted by retention, or passed over by a restore's jump. */
    const knownHole = (from: number, to: number): boolean => {
      let at = Math.max(from, floor + 1);
      for (const [a, b] of jumps) if (a <= at && at <= b) at = b + 1;
      return at > to;
    };
    // A merchant's sequences are 1..N with no hole but what retention deleted (≤ floor) and
    // what a restore's jump passed over (readable above: none ever held an event). The
    // service's events come from journal.db at once, the journal's through the projection,
    // which may lag (NATS down, a projector behind, a commit after the wait above): a page
    // that went past a missing sequence would move next_sequence beyond an event the feed
    // then serves below it, and a job that reads from its last sequence would never see it.
    // So the page ends before the first sequence above the floor that is not there yet.
    const rows: typeof merged = [];
    let held = false;
    let last = since;
    for (const row of merged) {
      if (rows.length === limit) break;
      if (BigInt(row.sequence) > last + 1n && !knownHole(Number(last) + 1, row.sequence - 1)) { held = true; break; }
      rows.push(row);
      last = BigInt(row.sequence);
    }
    // Either source holding more than it gave, or the merge holding more than a page, means
    // more; a page held at a missing sequence has nothing more to give until it arrives.
    const hasMore = !held && (page.hasMore || fromService.length > limit || merged.length > limit);
    const next = rows.length === 0 ? since.toString() : String(rows[rows.length - 1]!.sequence);
    // The jumps a reconciliation reading this page meets: those in it and one right after it
    // (where the page ends, or the feed does). Said only when there are any, so a merchant
    // never restored reads the coverage it always did.
    const skipped = jumps.filter(([a, b]) => BigInt(b) > since && BigInt(a) <= BigInt(next) + 1n)
      .map(([a, b]) => `{"from_sequence":${a},"to_sequence":${b},"reason":"restore"}`);
    const coverage = `{"state":"${since < BigInt(floor) ? 'partial' : 'complete'}","retention_days":${webhookLimits.eventRetentionDays},"min_since_sequence":${floor}${skipped.length > 0 ? `,"skipped":[${skipped.join(',')}]` : ''}}`;
    ctx.type = 'application/json';
    ctx.body = `{"object":"list","data":[${rows.map((r) => r.body).join(',')}],"has_more":${hasMore},"next_sequence":${next},"coverage":${coverage}}`;
  });
  return router;
}
