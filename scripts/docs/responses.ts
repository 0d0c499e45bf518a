/**
 * What the route definitions cannot say: each route's success status, response model and
 * operation id (the client method that calls it). Keyed by `METHOD /path` as the sandbox
 * declares it. Statuses follow docs/decisions.md: 201 for creations, 204 for the user
 * delete, 200 otherwise.
 * @module
 */
import type * as models from '../../src/models/index.js';
import type { EXTENSION_SCHEMAS } from './extensions.js';

/** The name of a schema exported by src/models. */
export type ModelName = {
  [K in keyof typeof models]: (typeof models)[K] extends { _zod: unknown } ? K : never;
}[keyof typeof models] | keyof typeof EXTENSION_SCHEMAS;

/** A route's success answer. */
export interface SuccessResponse {
  operationId: string;
  summary: string;
  status: 200 | 201 | 204;
  /** The model of the body; `null` for an empty body. */
  model: ModelName | null;
  /** A page of `model` (`{ data, next_cursor }`). */
  list?: boolean;
  /** No client method calls this route (a sandbox extension reached over HTTP or from `createSandbox()`). */
  noClientMethod?: boolean;
}

const ok = (operationId: string, model: ModelName, summary: string): SuccessResponse => ({ operationId, summary, status: 200, model });
const created = (operationId: string, model: ModelName, summary: string): SuccessResponse => ({ operationId, summary, status: 201, model });
const page = (operationId: string, model: ModelName, summary: string): SuccessResponse => ({ operationId, summary, status: 200, model, list: true });

/** Every route's success answer. A route of the sandbox missing here fails the generator. */
export const RESPONSES: Readonly<Record<string, SuccessResponse>> = {
  'GET /v1/api-keys': page('apiKeys.list', 'ApiKey', 'List the API keys of the tenant (never their secrets)'),
  'POST /v1/api-keys/:id/rotate': ok('apiKeys.rotate', 'ApiKeyWithSecret', 'Rotate an API key: a new secret, shown once; the old key is revoked at once'),

  'POST /v1/users': created('users.create', 'User', 'Create a user'),
  'GET /v1/users': page('users.list', 'User', 'List users'),
  'GET /v1/users/:id': ok('users.retrieve', 'User', 'Retrieve a user'),
  'PATCH /v1/users/:id': ok('users.update', 'User', 'Update a user (the document is immutable)'),
  'DELETE /v1/users/:id': { operationId: 'users.delete', summary: 'Delete a user (soft delete); answers 204 with no body', status: 204, model: null },
  'GET /v1/users/:id/wallet': ok('users.wallet', 'WalletBalance', "Retrieve a user's USDT wallet balance"),
  'POST /v1/users/:id/limit-upgrade-requests': created(
    'users.requestLimitUpgrade',
    'LimitUpgradeRequest',
    'Request a limit upgrade (answers 422 limit_upgrade_not_available for now)',
  ),

  'POST /v1/quotes': created('quotes.create', 'Quote', 'Create a quote (onramp or offramp); rate limited'),
  'GET /v1/quotes': page('quotes.list', 'Quote', 'List quotes'),
  'GET /v1/quotes/:id': ok('quotes.retrieve', 'Quote', 'Retrieve a quote'),
  'POST /v1/quotes/:id/accept': created('quotes.accept', 'Conversion', 'Accept a quote: consumes it and answers the new conversion'),

  'GET /v1/conversions': page('conversions.list', 'Conversion', 'List conversions'),
  'GET /v1/conversions/:id': ok('conversions.retrieve', 'Conversion', 'Retrieve a conversion'),
  'POST /v1/conversions/:id/cancel': ok('conversions.cancel', 'Conversion', 'Cancel a conversion awaiting its deposit'),
  'POST /v1/conversions/:id/liquidate': ok('conversions.liquidate', 'Conversion', 'Liquidate a conversion in standby at a rate quoted now'),

  'POST /v1/transactions': created('transactions.create', 'Transaction', 'Create a transaction from a quote'),
  'GET /v1/transactions': page('transactions.list', 'Transaction', 'List transactions'),
  'GET /v1/transactions/:id': ok('transactions.retrieve', 'Transaction', 'Retrieve a transaction'),

  'POST /v1/webhook_endpoints': created('webhookEndpoints.create', 'WebhookEndpointWithSecret', 'Create a webhook endpoint; the answer carries its secret, shown once'),
  'GET /v1/webhook_endpoints': page('webhookEndpoints.list', 'WebhookEndpoint', 'List webhook endpoints'),
  'GET /v1/webhook_endpoints/:id': ok('webhookEndpoints.retrieve', 'WebhookEndpoint', 'Retrieve a webhook endpoint'),
  'PATCH /v1/webhook_endpoints/:id': ok('webhookEndpoints.update', 'WebhookEndpoint', 'Update a webhook endpoint'),
  'DELETE /v1/webhook_endpoints/:id': ok('webhookEndpoints.delete', 'DeletedWebhookEndpoint', 'Delete a webhook endpoint'),
  'POST /v1/webhook_endpoints/:id/rotate_secret': ok(
    'webhookEndpoints.rotateSecret',
    'RotatedWebhookSecret',
    'Rotate the signing secret; the old one keeps signing during the grace period',
  ),
  'GET /v1/webhook_endpoints/:id/deliveries': page('webhookEndpoints.listDeliveries', 'WebhookDelivery', 'List the deliveries of an endpoint'),
  'GET /v1/webhook_deliveries/:id': ok('webhookDeliveries.retrieve', 'WebhookDelivery', 'Retrieve a delivery with every attempt'),
  'POST /v1/webhook_deliveries/:id/redeliver': ok('webhookDeliveries.redeliver', 'WebhookDelivery', 'Queue a new attempt of the same delivery (same event id)'),

  'POST /v1/test_helpers/conversions/:id/simulate-onramp-pix-paid': ok(
    'testHelpers.conversions.simulateOnrampPixPaid',
    'Conversion',
    'Onramp: the Pix payment arrives (amount defaults to the quoted one)',
  ),
  'POST /v1/test_helpers/conversions/:id/simulate-offramp-deposit': ok(
    'testHelpers.conversions.simulateOfframpDeposit',
    'Conversion',
    'Offramp: the USDT deposit arrives (exact: funded; under or over: standby)',
  ),
  'POST /v1/test_helpers/conversions/:id/deposit': ok('testHelpers.conversions.deposit', 'Conversion', 'Alias of the webhook testing guide: a deposit of `amount`'),
  'POST /v1/test_helpers/conversions/:id/expire': ok('testHelpers.conversions.expire', 'Conversion', 'Expire a conversion awaiting its deposit'),
  'POST /v1/test_helpers/conversions/:id/fail': ok('testHelpers.conversions.fail', 'Conversion', 'Fail a conversion with a reason'),
  'POST /v1/test_helpers/conversions/:id/fail-crypto': ok('testHelpers.conversions.failCrypto', 'Conversion', 'Alias: fail with crypto_deposit_rejected'),
  'POST /v1/test_helpers/conversions/:id/fail-pix': ok('testHelpers.conversions.failPix', 'Conversion', 'Alias: the Pix payout fails (pix_send_failed)'),
  'POST /v1/test_helpers/transactions/:id/pay': ok('testHelpers.transactions.pay', 'Transaction', 'The Pix payment of a transaction arrives'),
  'POST /v1/test_helpers/users/:id/kyc': ok('testHelpers.users.kyc', 'KycStatusView', 'Force the KYC outcome of a user'),
  'POST /v1/test_helpers/tenants': created(
    'testHelpers.tenants.create',
    'Tenant',
    'Create an isolated tenant: `api_key` is its secret key, used as printed (as `serve` prints its own), `api_keys` its keys as API key objects with their secrets; with `snapshot`, a fork of a tenant snapshot (same data, new tenant id and keys, timers on its own clock)',
  ),
  'GET /v1/test_helpers/tenant/snapshot': ok('testHelpers.tenants.snapshot', 'TenantSnapshotDocument', "The caller's tenant as one versioned document (holds secrets: fixtures only)"),
  // Fault plans: over HTTP here, or `sandbox.faults` in process (docs/sandbox.md); the client has no method for them.
  'POST /v1/test_helpers/faults': {
    ...created('testHelpers.faults.create', 'FaultPlan', "Add a fault plan for the caller's tenant (errors, latency, network failures)"),
    noClientMethod: true,
  },
  'GET /v1/test_helpers/faults': { ...page('testHelpers.faults.list', 'FaultPlan', "List the fault plans of the caller's tenant (one page)"), noClientMethod: true },
  'DELETE /v1/test_helpers/faults': { ...ok('testHelpers.faults.clear', 'ClearedFaultPlans', "Remove every fault plan of the caller's tenant"), noClientMethod: true },
  'DELETE /v1/test_helpers/faults/:id': { ...ok('testHelpers.faults.delete', 'DeletedFaultPlan', 'Remove one fault plan'), noClientMethod: true },
  'GET /v1/test_helpers/clock': ok('testHelpers.clock.retrieve', 'ClockState', "The caller's tenant clock"),
  'POST /v1/test_helpers/clock/advance': ok('testHelpers.clock.advance', 'ClockState', "Advance the caller's tenant clock; timers due in that span fire, in order"),
  'GET /v1/test_helpers/events': page('testHelpers.events.list', 'EventEnvelope', "List the caller's tenant's recorded events, newest first (the envelopes its webhook endpoints receive)"),
  // The caller tenant's own settings (docs/sandbox.md); in process: sandbox.settingsOf(id), and the createSandbox options for every tenant's start.
  'GET /v1/test_helpers/price': { ...ok('testHelpers.price.retrieve', 'PriceFeed', "The caller tenant's price feed"), noClientMethod: true },
  'POST /v1/test_helpers/price': { ...ok('testHelpers.price.update', 'PriceFeed', "Move the caller tenant's price feed (rate, spread, fee) or take it down; no other tenant's changes"), noClientMethod: true },
  'GET /v1/test_helpers/limits': { ...ok('testHelpers.limits.retrieve', 'SandboxLimits', "The caller tenant's volume limits, in BRL"), noClientMethod: true },
  'POST /v1/test_helpers/limits': { ...ok('testHelpers.limits.update', 'SandboxLimits', "Change the caller tenant's volume limits"), noClientMethod: true },
  'GET /v1/test_helpers/settings': { ...ok('testHelpers.settings.retrieve', 'SandboxSettings', "The caller tenant's quote TTL, deposit window and settlement delay"), noClientMethod: true },
  'POST /v1/test_helpers/settings': {
    ...ok('testHelpers.settings.update', 'SandboxSettings', "Change the caller tenant's quote TTL, deposit window or settlement delay, for what it creates next"),
    noClientMethod: true,
  },
};
