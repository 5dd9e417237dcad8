// Webhook state in journal.db, in tables of its own beside the journal (never in it: the
// journal holds money facts; delivery bookkeeping changes on every attempt). Invariants:
// a delivery row is created once per (endpoint, event) by fan-out (resends and replays
// add rows of their own, marked resend); a delivery is `inflight` exactly between the
// durable claim of an attempt and the durable record of its outcome; the outbox read
// position only moves in the transaction that creates the deliveries it covers; the
// signing keys' private halves never leave this file's tables except to sign.

import type { Db } from '../sqlite/schema.ts';

const schema = `
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id                   TEXT    PRIMARY KEY,  -- whep_<ULID>
  merchant_id          TEXT    NOT NULL,
  livemode             INTEGER NOT NULL,
  url                  TEXT    NOT NULL,
  event_types          TEXT,                 -- JSON array; NULL = every event type
  status               TEXT    NOT NULL,     -- enabled | disabled
  version              INTEGER NOT NULL DEFAULT 0,  -- the endpoint object's version (endpoints.ts)
  created_at           INTEGER NOT NULL,
  disabled_at          INTEGER,
  disabled_reason      TEXT,                 -- auto_disabled | operator
  flagged_at           INTEGER,              -- a 410 Gone was answered
  flag_reason          TEXT,
  failing_since        INTEGER,              -- first failure after the last success
  failures_since       INTEGER NOT NULL DEFAULT 0,
  last_success_at      INTEGER,
  warnings_sent        INTEGER NOT NULL DEFAULT 0,  -- down-time warnings already sent (6 h, 12 h)
  next_health_check_at INTEGER               -- next down-time milestone to look at
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_by_merchant ON webhook_endpoints (merchant_id, livemode);
CREATE INDEX IF NOT EXISTS webhook_endpoints_by_health_check ON webhook_endpoints (next_health_check_at) WHERE next_health_check_at IS NOT NULL;

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id                    TEXT    PRIMARY KEY,  -- whd_<ULID>
  endpoint_id           TEXT    NOT NULL,
  event_id              TEXT    NOT NULL,
  event_type            TEXT    NOT NULL,
  event_source          TEXT    NOT NULL,     -- outbox | service (which table holds the body)
  event_created_at      INTEGER NOT NULL,
  status                TEXT    NOT NULL,     -- pending | delivered | failed | canceled
  attempt               INTEGER NOT NULL DEFAULT 0,  -- attempts claimed so far
  inflight              INTEGER NOT NULL DEFAULT 0,  -- 1 between a claim and its recorded outcome
  resend                INTEGER NOT NULL DEFAULT 0,
  replay_id             TEXT,
  created_at            INTEGER NOT NULL,
  last_attempt_at       INTEGER,
  next_attempt_at       INTEGER,              -- due time of the next attempt; NULL once final
  response_status       INTEGER,
  response_body_excerpt TEXT,
  duration_ms           INTEGER,
  error                 TEXT
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_event ON webhook_deliveries (endpoint_id, event_id);
CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_once ON webhook_deliveries (endpoint_id, event_id) WHERE resend = 0;

CREATE TABLE IF NOT EXISTS webhook_attempts (
  delivery_id     TEXT    NOT NULL,
  attempt         INTEGER NOT NULL,
  started_at      INTEGER NOT NULL,  -- the service clock, ms
  kid             TEXT    NOT NULL,
  outcome         TEXT    NOT NULL,  -- delivered | retry | permanent | interrupted
  response_status INTEGER,
  duration_ms     INTEGER,
  error           TEXT,
  PRIMARY KEY (delivery_id, attempt)
) WITHOUT ROWID;

-- Events the webhook service itself emits (webhook.key.rotating, webhook.endpoint.disabled,
-- the sandbox's out-of-order test events): envelopes like the outbox's, with sequences
-- from the same per-merchant counter (outbox_sequences), so a merchant sees one sequence.
CREATE TABLE IF NOT EXISTS webhook_events (
  id          TEXT    PRIMARY KEY,  -- evt_<ULID>
  merchant_id TEXT    NOT NULL,
  livemode    INTEGER NOT NULL,
  sequence    INTEGER NOT NULL,
  type        TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  body        TEXT    NOT NULL,
  UNIQUE (merchant_id, livemode, sequence)
);
CREATE INDEX IF NOT EXISTS webhook_events_by_time ON webhook_events (merchant_id, livemode, created_at);

CREATE TABLE IF NOT EXISTS webhook_positions (
  source   TEXT    PRIMARY KEY,  -- e.g. outbox
  position INTEGER NOT NULL      -- the last journal seq fanned out
) WITHOUT ROWID;
-- The outbox is read by journal seq (the position a bus would carry too).
CREATE INDEX IF NOT EXISTS outbox_by_journal_seq ON outbox (journal_seq);

CREATE TABLE IF NOT EXISTS webhook_signing_keys (
  kid           TEXT    PRIMARY KEY,
  private_pkcs8 BLOB    NOT NULL,
  public_spki   BLOB    NOT NULL,
  not_before    INTEGER NOT NULL,
  created_at    INTEGER NOT NULL
) WITHOUT ROWID;
-- The sandbox's own signing keys (sandbox deliveries; scenario 11400 rotates them).
CREATE TABLE IF NOT EXISTS webhook_signing_keys_sandbox (
  kid           TEXT    PRIMARY KEY,
  private_pkcs8 BLOB    NOT NULL,
  public_spki   BLOB    NOT NULL,
  not_before    INTEGER NOT NULL,
  created_at    INTEGER NOT NULL
) WITHOUT ROWID;

-- Event retention (adapters/webhooks/retention.ts): per merchant and mode, the highest
-- sequence whose envelope has been deleted (the events feed's coverage.min_since_sequence).
CREATE TABLE IF NOT EXISTS event_floors (
  merchant_id TEXT    NOT NULL,
  livemode    INTEGER NOT NULL,
  sequence    INTEGER NOT NULL,
  PRIMARY KEY (merchant_id, livemode)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS webhook_replays (
  id            TEXT    PRIMARY KEY,  -- whrp_<ULID>
  endpoint_id   TEXT    NOT NULL,
  operator      TEXT    NOT NULL,
  filter        TEXT    NOT NULL,     -- the command's body, as JSON
  event_count   INTEGER NOT NULL,
  created_at    INTEGER NOT NULL
) WITHOUT ROWID;

-- Mail to merchants' technical contacts; a mailer (outside this service) sends and marks rows.
CREATE TABLE IF NOT EXISTS email_outbox (
  id          TEXT    PRIMARY KEY,
  merchant_id TEXT    NOT NULL,
  to_address  TEXT,                  -- NULL when the merchant has no technical contact on file
  kind        TEXT    NOT NULL,
  subject     TEXT    NOT NULL,
  body        TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  sent_at     INTEGER
) WITHOUT ROWID;
`;

/** Creates the webhook tables if they are missing (idempotent; runs at every start). */
export function migrateWebhooks(db: Db): void {
  db.exec(schema);
}
