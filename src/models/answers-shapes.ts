// Generated from src/models/answers.ts by scripts/answer-shapes.ts. Do not edit: run
// `node --import tsx scripts/answer-shapes.ts` (npm test fails when this file is stale).
/**
 * The shape of every answer the client reads, by model name (pages of a listing: `<Model>List`),
 * checked by ./answers-check.ts. Generated from the zod answer models (./answers.ts).
 * @module
 */
import type * as M from './index.js';
import type { ListEnvelope } from './common.js';
import { ARRAY, NULLABLE, ONE_OF, OPEN, OPTIONAL, type AnswerShape } from './answers-check.js';

const V0 = ["pix_onramp", "pix_offramp"] as const;
const V1 = ["awaiting_deposit", "funded", "standby", "liquidated", "completed", "failed", "expired", "canceled", "abandoned"] as const;
const V2 = ["under_funded", "over_funded", "window_expired", "duplicate_deposit", "wrong_address", "late_post_window"] as const;
const V3 = ["polygon"] as const;
const V4 = ["pix_expired", "pix_rejected", "crypto_deposit_expired", "crypto_deposit_rejected", "settlement_failed", "compliance_rejected", "pix_send_failed"] as const;
const V5 = ["not_started", "pending", "approved", "rejected", "expired", "blocked"] as const;
const V6 = ["initiated", "in_review", "approved", "rejected", "expired"] as const;
const V7 = ["pending", "approved", "rejected"] as const;
const V8 = ["BRL", "USDT"] as const;
const V9 = ["cpf", "cnpj", "email", "phone", "evp"] as const;
const V10 = ["active", "expired", "consumed", "cancelled"] as const;
const V11 = ["active", "disabled"] as const;
const V12 = ["pix-usdt-tenant"] as const;
const V13 = ["sandbox", "production"] as const;
const V14 = ["pending_payment", "payment_received", "buying_crypto", "sending_crypto", "completed", "failed", "refunded", "cancelled", "expired"] as const;
const V15 = ["individual"] as const;
const V16 = ["cpf"] as const;
const V17 = ["USDT"] as const;
const V18 = ["pending", "succeeded", "failed"] as const;
const V19 = ["circuit_open"] as const;

export const ApiKey: AnswerShape<M.ApiKey> = {
  id: 's',
  key_prefix: 's',
  api_key: [OPTIONAL, 's'],
  capabilities: [ARRAY, 's'],
  name: 's',
  created_at: 's',
};

export const ApiKeyList: AnswerShape<ListEnvelope<M.ApiKey>> = {
  data: [ARRAY, ApiKey],
  next_cursor: 'S',
};

export const ApiKeyWithSecret: AnswerShape<M.ApiKeyWithSecret> = {
  id: 's',
  key_prefix: 's',
  api_key: 's',
  capabilities: [ARRAY, 's'],
  name: 's',
  created_at: 's',
};

export const ClockState: AnswerShape<M.ClockState> = {
  now: 's',
};

export const Conversion: AnswerShape<M.Conversion> = {
  id: 's',
  user_id: 's',
  quote_id: 's',
  liquidation_quote_id: 'S',
  transaction_type: [OPEN, V0],
  status: [OPEN, V1],
  expected_source_amount: 's',
  received_amount: 's',
  source_currency: 's',
  target_amount: 's',
  target_currency: 's',
  deposit_window_expires_at: 'S',
  standby_at: 'S',
  standby_expires_at: 'S',
  standby_reason: [NULLABLE, [OPEN, V2]],
  deposit_address: 'S',
  deposit_address_network: [NULLABLE, [OPEN, V3]],
  pix_qr_code: 'S',
  pix_tx_id: 'S',
  pix_e2e_id: 'S',
  usdt_tx_hash: 'S',
  completed_at: 'S',
  failure_reason: [NULLABLE, [OPEN, V4]],
  created_at: 's',
  updated_at: 's',
};

export const ConversionList: AnswerShape<ListEnvelope<M.Conversion>> = {
  data: [ARRAY, Conversion],
  next_cursor: 'S',
};

export const DeletedWebhookEndpoint: AnswerShape<M.DeletedWebhookEndpoint> = {
  id: 's',
  deleted: 'b',
};

export const EventEnvelopeList: AnswerShape<ListEnvelope<M.EventEnvelope>> = {
  data: [ARRAY, {
    id: 's',
    type: 's',
    created_at: 's',
    data: {
      object: 'o',
    },
  }],
  next_cursor: 'S',
};

export const KycStatusView: AnswerShape<M.KycStatusView> = {
  user_id: 's',
  kyc_status: [OPEN, V5],
  kyc_approved_at: 'S',
  kyc_expires_at: 'S',
  latest_submission: [NULLABLE, {
    id: 's',
    user_id: 's',
    provider: 's',
    external_id: 'S',
    status: [OPEN, V6],
    submitted_at: 'S',
    result_at: 'S',
    rejection_reason: 'S',
    created_at: 's',
  }],
};

export const LimitUpgradeRequest: AnswerShape<M.LimitUpgradeRequest> = {
  id: 's',
  user_id: 's',
  status: [OPEN, V7],
  requested_daily_limit_brl: 'S',
  requested_monthly_limit_brl: 'S',
  reason: 'S',
  created_at: 's',
};

export const Quote: AnswerShape<M.Quote> = {
  id: 's',
  user_id: 's',
  source_amount: 's',
  source_currency: [OPEN, V8],
  target_amount: 's',
  target_currency: [OPEN, V8],
  exchange_rate: 's',
  spread_bps: 'n',
  withdrawal_fee_usdt: 's',
  net_target_amount: 's',
  destination_wallet_address: 'S',
  destination_wallet_network: [NULLABLE, [OPEN, V3]],
  pix_key: 'S',
  pix_key_type: [NULLABLE, [OPEN, V9]],
  deposit_network: [NULLABLE, [OPEN, V3]],
  pix_holder_name: 'S',
  pix_holder_document_masked: 'S',
  pix_key_verified_at: 'S',
  status: [OPEN, V10],
  expires_at: 's',
  consumed_at: 'S',
  consumed_by_conversion_id: 'S',
  created_at: 's',
};

export const QuoteList: AnswerShape<ListEnvelope<M.Quote>> = {
  data: [ARRAY, Quote],
  next_cursor: 'S',
};

export const RotatedWebhookSecret: AnswerShape<M.RotatedWebhookSecret> = {
  id: 's',
  url: 's',
  status: [OPEN, V11],
  event_types: [ARRAY, 's'],
  description: 'S',
  secret_prefix: 's',
  secret_last_four: 's',
  created_at: 's',
  updated_at: 's',
  secret: 's',
  previous_secret_expires_at: 'S',
};

export const Tenant: AnswerShape<M.Tenant> = {
  tenant_id: 's',
  api_key: 's',
  api_keys: [ARRAY, ApiKeyWithSecret],
};

export const TenantSnapshotDocument: AnswerShape<M.TenantSnapshotDocument> = {
  format: [ONE_OF, V12],
  version: 'n',
  environment: [ONE_OF, V13],
  exported_at: 's',
  tenant: 'o',
};

export const Transaction: AnswerShape<M.Transaction> = {
  id: 's',
  user_id: 's',
  quote_id: 's',
  type: [OPEN, V0],
  status: [OPEN, V14],
  source_amount: 's',
  source_currency: 's',
  target_amount: 's',
  target_currency: 's',
  exchange_rate: 's',
  pix_qr_code: 'S',
  pix_tx_id: 'S',
  pix_paid_at: 'S',
  destination_wallet_address: 'S',
  destination_wallet_network: [NULLABLE, [OPEN, V3]],
  usdt_tx_hash: 'S',
  usdt_sent_at: 'S',
  failure_reason: 'S',
  created_at: 's',
  updated_at: 's',
  completed_at: 'S',
};

export const TransactionList: AnswerShape<ListEnvelope<M.Transaction>> = {
  data: [ARRAY, Transaction],
  next_cursor: 'S',
};

export const User: AnswerShape<M.User> = {
  id: 's',
  external_id: 's',
  name: 's',
  email: 'S',
  date_of_birth: 'S',
  user_type: [OPEN, V15],
  document_type: [OPEN, V16],
  document_masked: 's',
  risk_profile: 'S',
  kyc_status: [OPEN, V5],
  kyc_approved_at: 'S',
  kyc_expires_at: 'S',
  custody_status: 'S',
  custody_status_updated_at: 'S',
  metadata: 'o',
  created_at: 's',
  updated_at: 's',
};

export const UserList: AnswerShape<ListEnvelope<M.User>> = {
  data: [ARRAY, User],
  next_cursor: 'S',
};

export const WalletBalance: AnswerShape<M.WalletBalance> = {
  asset: [OPEN, V17],
  balance: 's',
  available_balance: 's',
  network: [OPEN, V3],
  wallet_id: 's',
  updated_at: 's',
  stale: 'b',
};

export const WebhookDelivery: AnswerShape<M.WebhookDelivery> = {
  id: 's',
  webhook_endpoint_id: 's',
  event_id: 's',
  event_type: 's',
  status: [OPEN, V18],
  attempt_count: 'n',
  response_status: 'N',
  latency_ms: 'N',
  last_error: 'S',
  next_attempt_at: 'S',
  deferred: [OPTIONAL, [NULLABLE, {
    reason: [OPEN, V19],
    scheduled_at: 's',
  }]],
  attempts: [ARRAY, {
    attempted_at: 's',
    response_status: 'N',
    latency_ms: 'n',
    error: 'S',
  }],
  created_at: 's',
  updated_at: 's',
};

export const WebhookDeliveryList: AnswerShape<ListEnvelope<M.WebhookDelivery>> = {
  data: [ARRAY, WebhookDelivery],
  next_cursor: 'S',
};

export const WebhookEndpoint: AnswerShape<M.WebhookEndpoint> = {
  id: 's',
  url: 's',
  status: [OPEN, V11],
  event_types: [ARRAY, 's'],
  description: 'S',
  secret_prefix: 's',
  secret_last_four: 's',
  created_at: 's',
  updated_at: 's',
};

export const WebhookEndpointList: AnswerShape<ListEnvelope<M.WebhookEndpoint>> = {
  data: [ARRAY, WebhookEndpoint],
  next_cursor: 'S',
};

export const WebhookEndpointWithSecret: AnswerShape<M.WebhookEndpointWithSecret> = {
  id: 's',
  url: 's',
  status: [OPEN, V11],
  event_types: [ARRAY, 's'],
  description: 'S',
  secret_prefix: 's',
  secret_last_four: 's',
  created_at: 's',
  updated_at: 's',
  secret: 's',
};
