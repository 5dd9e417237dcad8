// Endpoint health and auto-disable (contract: Delivery rules, "Auto-disable"). Down-time
// starts at the first failed attempt after the last success (any success ends it). An
// endpoint is disabled when it has been down 24 hours — so it had 0 successes in the last
// 24 hours — and has at least 50 failed attempts since its last success ("failed
// deliveries" read as failed delivery attempts: 50 failed final deliveries could not
// exist within 24 h of a 92-hour schedule). Warnings go out when the down-time reaches
// 6 and 12 hours. These milestones are durable timers on the endpoint row
// (next_health_check_at), so they fire on time even if no attempt fails at that moment.
// Disabling cancels the endpoint's queued deliveries and emits webhook.endpoint.disabled
// to the merchant's other endpoints (mailed when there is none). Re-enabling is manual.
// The mails and the event name the endpoint by its id and its URL's scheme and host only:
// both are kept in journal.db (email_outbox, the event tables), where a URL's path and
// query — a provider's secret, a merchant's ?token= — are kept sealed only.
// Invariant: every method runs inside the caller's transaction.

import { iso } from '../../core/present.ts';
import type { DeliveryStore } from './deliveries.ts';
import type { Directory, EmailOutbox, LogLike } from './email.ts';
import type { Endpoint, EndpointStore } from './endpoints.ts';
import type { ServiceEvents } from './events.ts';
import type { FanOut } from './fan-out.ts';
import { webhookLimits } from '../../core/limits.ts';
import { redactWebhookUrl } from '../../server/secret-text.ts';

const hours = (ms: number) => ms / 3_600_000;

export class EndpointHealth {
  constructor(
    private readonly endpoints: EndpointStore,
    private readonly deliveries: DeliveryStore,
    private readonly events: ServiceEvents,
    private readonly fanOut: FanOut,
    private readonly email: EmailOutbox,
    private readonly directory: Directory,
    private readonly log: LogLike,
  ) {}

  onSuccess(endpointId: string, now: number): void {
    this.endpoints.recordSuccess(endpointId, now);
  }

  onFailure(endpointId: string, now: number): void {
    const endpoint = this.endpoints.recordFailure(endpointId, now, webhookLimits.downtimeWarningsMs[0]!);
    if (shouldDisable(endpoint, now)) this.disable(endpoint, now);
  }

  /** A down-time milestone fell due: send the warnings it reached, disable if the rule holds, set the next one. */
  checkMilestone(endpoint: Endpoint, now: number): void {
    if (endpoint.status !== 'enabled' || endpoint.failingSince === null) return this.endpoints.setHealth(endpoint.id, endpoint.warningsSent, null);
    const downtimeMs = now - endpoint.failingSince;
    const warnings = webhookLimits.downtimeWarningsMs;
    let sent = endpoint.warningsSent;
    while (sent < warnings.length && downtimeMs >= warnings[sent]!) this.warn(endpoint, warnings[sent++]!, now);
    if (shouldDisable(endpoint, now)) return this.disable(endpoint, now);
    const next = sent < warnings.length ? endpoint.failingSince + warnings[sent]!
      : downtimeMs < webhookLimits.autoDisableDowntimeMs ? endpoint.failingSince + webhookLimits.autoDisableDowntimeMs
        : null; // past 24 h with too few failures: the next failure decides (onFailure)
    this.endpoints.setHealth(endpoint.id, sent, next);
  }

  private warn(endpoint: Endpoint, reachedMs: number, now: number): void {
    const url = redactWebhookUrl(endpoint.url);
    const fields = { endpoint_id: endpoint.id, merchant_id: endpoint.merchantId, down_hours: hours(reachedMs), failed_attempts: endpoint.failuresSince };
    this.log.warn(fields, 'webhook endpoint failing: down-time warning');
    this.email.queue(endpoint.merchantId, 'endpoint_downtime_warning', `[satang] webhook endpoint failing for ${hours(reachedMs)} hours`,
      `การส่ง webhook ไปยัง ${url} (${endpoint.id}, ${endpoint.livemode ? 'ใช้งานจริง' : 'ทดสอบ'}) ล้มเหลวตั้งแต่ ${iso(endpoint.failingSince!)} ` +
      `(${endpoint.failuresSince} ครั้ง) ปลายทางจะถูกปิดใช้งานอัตโนมัติเมื่อไม่สำเร็จเลยครบ ${hours(webhookLimits.autoDisableDowntimeMs)} ชั่วโมง ` +
      `และล้มเหลวอย่างน้อย ${webhookLimits.autoDisableFailuresMin} ครั้ง\n\n` +
      `Deliveries to ${url} (${endpoint.id}, ${endpoint.livemode ? 'live' : 'sandbox'}) have failed since ${iso(endpoint.failingSince!)} ` +
      `(${endpoint.failuresSince} failed attempts). The endpoint is disabled automatically after ${hours(webhookLimits.autoDisableDowntimeMs)} hours ` +
      `without a success and at least ${webhookLimits.autoDisableFailuresMin} failures.`, now);
  }

  /** Disables the endpoint, cancels what it has queued and tells the merchant. */
  disable(endpoint: Endpoint, now: number): void {
    if (!this.endpoints.disable(endpoint.id, 'auto_disabled', now)) return;
    const canceled = this.deliveries.cancelQueued(endpoint.id, 'canceled: the endpoint was disabled automatically');
    const merchant = this.directory(endpoint.merchantId);
    const url = redactWebhookUrl(endpoint.url);
    this.log.warn({ endpoint_id: endpoint.id, merchant_id: endpoint.merchantId, canceled_deliveries: canceled, failed_attempts: endpoint.failuresSince }, 'webhook endpoint disabled automatically');
    this.email.queue(endpoint.merchantId, 'endpoint_disabled', '[satang] webhook endpoint disabled',
      `การส่ง webhook ไปยัง ${url} (${endpoint.id}) ล้มเหลวมา ${hours(now - endpoint.failingSince!)} ชั่วโมง (${endpoint.failuresSince} ครั้ง) ` +
      `ปลายทางถูกปิดใช้งานแล้ว และยกเลิกการส่งที่รออยู่ ${canceled} รายการ การเปิดใช้งานอีกครั้งต้องติดต่อฝ่ายสนับสนุน\n\n` +
      `Deliveries to ${url} (${endpoint.id}) failed for ${hours(now - endpoint.failingSince!)} hours (${endpoint.failuresSince} failed attempts); ` +
      `the endpoint is disabled and ${canceled} queued deliveries were canceled. Re-enabling is manual.`, now);
    if (!merchant) return;
    const version = this.endpoints.get(endpoint.id)?.version ?? endpoint.version + 1; // as GET shows it now
    const event = this.events.emit({
      merchantId: endpoint.merchantId, whiteLabelId: merchant.whiteLabelId, livemode: endpoint.livemode, type: 'webhook.endpoint.disabled', createdAt: now,
      object: {
        id: endpoint.id, object: 'webhook_endpoint', url, livemode: endpoint.livemode, version, status: 'disabled', disabled_at: iso(now),
        disabled_reason: 'auto_disabled', failing_since: iso(endpoint.failingSince!), failed_attempts: endpoint.failuresSince, canceled_deliveries: canceled,
      },
      // Only changed keys, then the version before (the contract's previous_attributes; GET shows the same version).
      previousAttributes: { status: 'enabled', disabled_at: null, disabled_reason: null, version: version - 1 },
    });
    this.fanOut.deliver({ ...event, merchantId: endpoint.merchantId, livemode: endpoint.livemode, table: 'service' }, now);
  }
}

function shouldDisable(e: Endpoint, now: number): boolean {
  return e.status === 'enabled' && e.failingSince !== null && now - e.failingSince >= webhookLimits.autoDisableDowntimeMs
    && e.failuresSince >= webhookLimits.autoDisableFailuresMin;
}
