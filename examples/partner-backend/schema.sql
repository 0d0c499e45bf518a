-- The partner backend's tables (PostgreSQL; PGlite runs the same). The receiver kit's table
-- (pix_usdt_webhook_events) is created by sqlEventStoreSchema() from pix-usdt/webhooks.
-- Amounts are the platform's decimal strings, copied as they are (text), or numeric: never floats.

-- End users: ours, and the platform's id for each.
CREATE TABLE IF NOT EXISTS users (
  id text PRIMARY KEY,
  external_id text NOT NULL UNIQUE,
  platform_user_id text UNIQUE,
  name text NOT NULL,
  kyc_status text,
  kyc_updated_at text,
  created_at text NOT NULL
);

-- What a user asked for (an onramp or offramp of an amount), before and after the platform
-- created its conversion. The order id is the caller's: asking twice resumes the same order.
CREATE TABLE IF NOT EXISTS orders (
  order_id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id),
  direction text NOT NULL,
  request text NOT NULL,
  conversion_id text UNIQUE,
  created_at text NOT NULL
);

-- The mirror: our copy of each conversion, updated by webhooks, API answers and reconciliation,
-- never to an older state (shouldApplySnapshot from pix-usdt/webhooks).
CREATE TABLE IF NOT EXISTS conversions (
  id text PRIMARY KEY,
  user_id text,
  platform_user_id text NOT NULL,
  transaction_type text NOT NULL,
  status text NOT NULL,
  expected_source_amount text NOT NULL,
  received_amount text NOT NULL,
  source_currency text NOT NULL,
  target_amount text NOT NULL,
  target_currency text NOT NULL,
  standby_reason text,
  failure_reason text,
  liquidation_quote_id text,
  pix_qr_code text,
  deposit_address text,
  completed_at text,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  written_by text NOT NULL
);
CREATE INDEX IF NOT EXISTS conversions_status ON conversions (status);

-- The ledger: one entry per completed conversion (the USDT credited by an onramp, the BRL paid
-- out by an offramp), written in the same transaction as the mirror's move to completed.
CREATE TABLE IF NOT EXISTS ledger_entries (
  conversion_id text PRIMARY KEY,
  user_id text,
  kind text NOT NULL,
  currency text NOT NULL,
  amount numeric NOT NULL,
  written_by text NOT NULL,
  created_at text NOT NULL
);

-- Conversions that entered standby, and what the rule decided: liquidate, or hold for a manual
-- refund (the platform abandons them after 7 days).
CREATE TABLE IF NOT EXISTS standby_actions (
  conversion_id text PRIMARY KEY,
  reason text,
  decision text NOT NULL,
  status text NOT NULL,
  error text,
  created_at text NOT NULL,
  updated_at text NOT NULL
);

-- Every event the webhook handler processed (no unique key on purpose: a double processing
-- would show here as two rows).
CREATE TABLE IF NOT EXISTS event_log (
  event_id text NOT NULL,
  event_type text NOT NULL,
  object_id text,
  outcome text NOT NULL,
  attempt integer NOT NULL,
  processed_at text NOT NULL
);

-- The reconciliation job's cursor: the newest conversion it has seen.
CREATE TABLE IF NOT EXISTS reconcile_state (
  name text PRIMARY KEY,
  cursor_created_at text,
  runs integer NOT NULL,
  repairs integer NOT NULL,
  updated_at text NOT NULL
);
