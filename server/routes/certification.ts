// POST /v1/test/certification (sandbox key, merchant HMAC, Idempotency-Key; body none or
// {}): starts a certification run — the signature probes (two deliveries each endpoint
// must refuse, sent at once), one sandbox deposit each of 10300, 10800, 10900 and
// 11600 (their scenarios play on the service clock) and the out-of-order cases A, B and C —
// against the merchant's enabled sandbox webhook endpoints; answers 202 with the run.
// GET /v1/test/certification: the latest run, its status ('running', 'passed', 'failed')
// and a result per check, read from the deliveries (adapters/sandbox/certification.ts).
// Refusals: a live key is 403 scope_denied; no enabled sandbox endpoint (a `satang listen`
// stream's does not count) is 409
// operation_not_allowed; GET with no run yet is 404 resource_not_found.

import Router from '@koa/router';
import { createHash } from 'node:crypto';
import { probeSignatureChecks, scenarioChecks, type CertificationStore, type CheckName, type RunResult, type StoredRun } from '../../adapters/sandbox/certification.ts';
import { isCliEndpoint } from '../../adapters/webhooks/endpoints.ts';
import { outOfOrderCases } from '../../adapters/webhooks/out-of-order.ts';
import type { Webhooks } from '../../adapters/webhooks/webhooks.ts';
import { iso } from '../../core/present.ts';
import { merchantAuth, merchantOf } from '../auth/merchant.ts';
import { ApiError } from '../errors.ts';
import { runIdempotentOwn } from '../idempotency.ts';
import type { Services } from '../ports.ts';
import { emptyBody, emptyQuery } from '../schemas.ts';
import { bodyOf, merchantScope, parseWith, queryOf } from './common.ts';


/**
 * Who "pays" a run's certification deposits (the sandbox bank verifies them as this
 * sender's transfers): an account of the run's own, so that a run started while the
 * previous one's orders still await payment is not refused as their duplicate.
 */
const certificationSender = (runId: string) => ({
  bankCode: '014', accountNumber: `9${BigInt(`0x${createHash('sha256').update(runId).digest('hex').slice(0, 15)}`).toString().slice(-9).padStart(9, '0')}`, accountNameTh: 'ผู้ทดสอบ ระบบ',
});

const count = (result: RunResult, status: string) => result.checks.filter((c) => c.status === status).length;

function present(run: StoredRun, result: RunResult) {
  return {
    object: 'certification_run', id: run.id, livemode: false, status: result.status === 'pending' ? 'running' : result.status,
    created_at: iso(run.createdAt), passed_at: run.passedAt === null ? null : iso(run.passedAt),
    // At a glance: how many checks passed, failed or still wait (each check's events say which event and why).
    summary: { passed: count(result, 'passed'), failed: count(result, 'failed'), pending: count(result, 'pending') },
    checks: result.checks,
  };
}

export function certificationRoutes(services: Services, webhooks: Webhooks, certification: CertificationStore): Router {
  const router = new Router({ prefix: '/v1/test/certification', sensitive: true });
  router.use(merchantAuth(services));
  const endpointsOf = (ids: readonly string[]) => ids.flatMap((id) => webhooks.endpoints.get(id) ?? []);
  const sandboxMerchant = (ctx: Router.RouterContext) => {
    const m = merchantOf(ctx);
    if (m.livemode) throw new ApiError('scope_denied', 'Certification runs on a sandbox key (sk_test_…).');
    return m;
  };

  router.post('/', async (ctx) => {
    const m = sandboxMerchant(ctx);
    parseWith(emptyBody, bodyOf(ctx)); // none or {}
    // Not a `satang listen` stream's endpoint: its delivery is done once written to the
    // stream, so it would pass whatever the developer's own server answered.
    const endpoints = webhooks.endpoints.forMerchant(m.merchantId, false).filter((e) => e.status === 'enabled' && !isCliEndpoint(e));
    if (endpoints.length === 0) throw new ApiError('operation_not_allowed', 'Certification delivers to your enabled sandbox webhook endpoints (a URL, not a satang listen stream); add one first.');
    await runIdempotentOwn(ctx, services, merchantScope(m), async (keep) => {
      // The signature check first: two deliveries each endpoint must refuse (400 or 401).
      const key = webhooks.sandboxKeys.current(services.write.clock.now());
      const wallSeconds = Math.floor(webhooks.securityClock.now() / 1000);
      const probes = (await Promise.all(endpoints.map((e) => probeSignatureChecks(e, key, webhooks.poster, wallSeconds, m.merchantId)))).flat();
      const runId = services.write.ids.next('cert', m.merchantId);
      const deposits: { check: CheckName; depositId: string }[] = [];
      for (const c of scenarioChecks) {
        const { outcome, durable } = services.write.submit({
          type: 'CreateDeposit', actor: { kind: 'merchant', merchantId: m.merchantId, livemode: false }, amountMinor: BigInt(c.amountMinor),
          merchantReference: `${runId}-${c.check}`, endUserRef: `${runId}-${c.check}`, sender: certificationSender(runId), hasClientData: false,
        }, { requestId: ctx.state.requestId as string });
        await durable;
        if (!outcome.ok) throw ApiError.from(outcome.rejection);
        deposits.push({ check: c.check, depositId: outcome.objectId! });
      }
      const ops = webhooks.operations;
      return ops.transact(() => {
        const outOfOrder = outOfOrderCases.map((c) => {
          const r = webhooks.outOfOrder({ merchantId: m.merchantId, whiteLabelId: m.whiteLabelId }, c);
          if (!r.ok) throw ApiError.from(r.rejection);
          return { case: c, events: r.value.deliveryOrder.map((id) => ({ id, type: r.value.events.find((e) => e.id === id)!.type })) };
        });
        const now = services.write.clock.now();
        const plan = { deposits, outOfOrder, endpointIds: endpoints.map((e) => e.id), probes };
        certification.record(runId, m.merchantId, now, plan);
        const run: StoredRun = { id: runId, merchantId: m.merchantId, createdAt: now, plan, passedAt: null };
        const response = { status: 202, body: present(run, certification.evaluate(run, endpoints, now)) };
        if (!ops.keepIdempotency(keep(response))) throw new ApiError('idempotency_in_flight', undefined, undefined, 1);
        return response;
      });
    });
  });

  router.get('/', (ctx) => {
    const m = sandboxMerchant(ctx);
    parseWith(emptyQuery, queryOf(ctx));
    const run = certification.latest(m.merchantId);
    if (!run) throw new ApiError('resource_not_found', 'No certification run yet: POST /v1/test/certification starts one.');
    const result = certification.evaluate(run, endpointsOf(run.plan.endpointIds), services.write.clock.now());
    ctx.body = present(certification.latest(m.merchantId)!, result);
  });
  return router;
}
