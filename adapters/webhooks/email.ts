// Mail to a merchant's technical contact, queued in email_outbox for a mailer outside
// this service (which sends rows and sets sent_at), with a log line for operators. Used
// for the down-time warnings at 6 h and 12 h, for the disablement itself, and for the
// mandatory events of a merchant whose only endpoint is disabled (contract: Events).
// Invariant: a row is written in the same transaction as the change it reports.

import type { Ids } from '../../core/ports.ts';
import type { Db } from '../sqlite/schema.ts';

/** The part of a logger this module needs (pino's Logger fits). */
export interface LogLike {
  debug?(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** What the webhook service needs to know about a merchant (from the core's directory). */
export interface MerchantInfo {
  readonly whiteLabelId: string;
  readonly name: string;
  readonly technicalContactEmail?: string;
}
export type Directory = (merchantId: string) => MerchantInfo | undefined;

export type EmailKind = 'endpoint_downtime_warning' | 'endpoint_disabled' | 'mandatory_event';

export class EmailOutbox {
  private readonly insert;

  constructor(db: Db, private readonly ids: Ids, private readonly directory: Directory, private readonly log: LogLike) {
    this.insert = db.prepare('INSERT INTO email_outbox (id, merchant_id, to_address, kind, subject, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  }

  /** Queues one mail to the merchant's technical contact (inside the caller's transaction). */
  queue(merchantId: string, kind: EmailKind, subject: string, body: string, at: number): string {
    const id = this.ids.next('eml', merchantId);
    const to = this.directory(merchantId)?.technicalContactEmail ?? null;
    this.insert.run(id, merchantId, to, kind, subject, body, at);
    const fields = { email_id: id, merchant_id: merchantId, kind, to: to ?? null };
    if (to === null) this.log.warn(fields, 'email queued, but the merchant has no technical contact on file');
    else this.log.info(fields, 'email queued for the technical contact');
    return id;
  }
}
