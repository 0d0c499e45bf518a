/**
 * `client.testHelpers`: the sandbox-only `/v1/test_helpers/*` endpoints (capability
 * `sandbox:control`; a production key gets 404). They drive conversions, transactions, KYC,
 * tenants and the tenant's clock without real payments.
 * @module
 */
import type {
  ClockState,
  Conversion,
  EventEnvelope,
  KycStatusView,
  Tenant,
  TenantSnapshotDocument,
  Transaction,
  AdvanceClockBody,
  CreateTenantBody,
  ExpireConversionBody,
  FailAliasBody,
  FailConversionBody,
  ForceKycBody,
  ListEventsParams,
  SimulateDepositBody,
  SimulatePaymentBody,
} from '../models/index.js';
import type { Transport } from '../client/transport.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { RequestOptions } from '../client/types.js';
import { path } from '../internal/path.js';
import { APIResource } from './resource.js';
import * as A from '../models/answers-shapes.js';
import type { PagePromise } from '../client/pagination.js';

/** Conversion helpers. Each answers the updated conversion. */
export class ConversionTestHelpers extends APIResource {
  /** Onramp: the Pix payment arrives (`amount` defaults to the quoted one); `settle: true` also completes it. */
  simulateOnrampPixPaid(id: string, body: SimulatePaymentBody = {}, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/test_helpers/conversions/${id}/simulate-onramp-pix-paid`, { model: A.Conversion }, body, options);
  }

  /** Offramp: the USDT deposit is confirmed (full: funded; under or over: standby); `settle: true` also completes it. */
  simulateOfframpDeposit(id: string, body: SimulatePaymentBody = {}, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/test_helpers/conversions/${id}/simulate-offramp-deposit`, { model: A.Conversion }, body, options);
  }

  /** Expires an `awaiting_deposit` conversion. */
  expire(id: string, body: ExpireConversionBody = {}, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/test_helpers/conversions/${id}/expire`, { model: A.Conversion }, body, options);
  }

  /** Fails the conversion with `reason`. */
  fail(id: string, body: FailConversionBody, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/test_helpers/conversions/${id}/fail`, { model: A.Conversion }, body, options);
  }

  /** Alias path of the webhook testing guide: `/deposit` with a required `amount`. */
  deposit(id: string, body: SimulateDepositBody, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/test_helpers/conversions/${id}/deposit`, { model: A.Conversion }, body, options);
  }

  /** Alias path of the webhook testing guide: `/fail-crypto`. */
  failCrypto(id: string, body: FailAliasBody = {}, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/test_helpers/conversions/${id}/fail-crypto`, { model: A.Conversion }, body, options);
  }

  /** Alias path of the webhook testing guide: `/fail-pix`. */
  failPix(id: string, body: FailAliasBody = {}, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/test_helpers/conversions/${id}/fail-pix`, { model: A.Conversion }, body, options);
  }
}

/** Transaction helpers. */
export class TransactionTestHelpers extends APIResource {
  /** `POST /v1/test_helpers/transactions/{id}/pay`: the Pix payment of a transaction arrives. */
  pay(id: string, body: SimulatePaymentBody = {}, options?: RequestOptions): ApiPromise<Transaction> {
    return this._post(path`/v1/test_helpers/transactions/${id}/pay`, { model: A.Transaction }, body, options);
  }
}

/** User helpers. */
export class UserTestHelpers extends APIResource {
  /** Forces the KYC outcome (`approved`, `rejected`, `in_review`, `expired`); answers the KYC status view. */
  kyc(id: string, body: ForceKycBody, options?: RequestOptions): ApiPromise<KycStatusView> {
    return this._post(path`/v1/test_helpers/users/${id}/kyc`, { model: A.KycStatusView }, body, options);
  }
}

/** Sandbox extension: tenants. */
export class TenantTestHelpers extends APIResource {
  /**
   * `POST /v1/test_helpers/tenants`: a new isolated tenant (or, with `{ snapshot }`, a fork of
   * one). Its `api_key` is the secret to use, as `serve` prints it; `api_keys` its keys as API key
   * objects with their secrets.
   *
   * @example
   * ```ts
   * const { api_key } = await client.testHelpers.tenants.create({ capabilities: ['users:read'] });
   * const reader = new PixUsdt({ apiKey: api_key, baseUrl });
   * ```
   */
  create(body: CreateTenantBody = {}, options?: RequestOptions): ApiPromise<Tenant> {
    return this._post('/v1/test_helpers/tenants', { model: A.Tenant }, body, options);
  }

  /**
   * `GET /v1/test_helpers/tenant/snapshot`: the caller's tenant as one versioned document, which
   * `create({ snapshot })` forks (same data, new tenant id and keys, timers on its own clock).
   */
  snapshot(options?: RequestOptions): ApiPromise<TenantSnapshotDocument> {
    return this._get('/v1/test_helpers/tenant/snapshot', { model: A.TenantSnapshotDocument }, options);
  }
}

/** Sandbox extension: the caller's tenant clock. */
export class ClockTestHelpers extends APIResource {
  /** `GET /v1/test_helpers/clock`. */
  retrieve(options?: RequestOptions): ApiPromise<ClockState> {
    return this._get('/v1/test_helpers/clock', { model: A.ClockState }, options);
  }

  /** `POST /v1/test_helpers/clock/advance` `{ seconds }`: timers due in that span fire, in order. */
  advance(body: AdvanceClockBody, options?: RequestOptions): ApiPromise<ClockState> {
    return this._post('/v1/test_helpers/clock/advance', { model: A.ClockState }, body, options);
  }
}

/** Sandbox extension: the caller's tenant's recorded events. */
export class EventTestHelpers extends APIResource {
  /**
   * `GET /v1/test_helpers/events`: the events the tenant recorded, newest first (the same
   * envelopes its webhook endpoints receive), filtered by `type` and `object_id`.
   */
  list(params?: ListEventsParams, options?: RequestOptions): PagePromise<EventEnvelope> {
    return this._list('/v1/test_helpers/events', { model: A.EventEnvelopeList }, params, options);
  }
}

/** `client.testHelpers`: sandbox only. */
export class TestHelpers {
  /** `/v1/test_helpers/conversions/*`: payments, deposits, expiry and failures of conversions. */
  readonly conversions: ConversionTestHelpers;
  /** `/v1/test_helpers/transactions/*`: the Pix payment of a transaction. */
  readonly transactions: TransactionTestHelpers;
  /** `/v1/test_helpers/users/*`: forced KYC outcomes. */
  readonly users: UserTestHelpers;
  /** `/v1/test_helpers/tenants`: new isolated tenants (sandbox extension). */
  readonly tenants: TenantTestHelpers;
  /** `/v1/test_helpers/clock`: the caller's tenant clock (sandbox extension). */
  readonly clock: ClockTestHelpers;
  /** `/v1/test_helpers/events`: the caller's tenant's recorded events (sandbox extension). */
  readonly events: EventTestHelpers;

  constructor(transport: Transport) {
    this.conversions = new ConversionTestHelpers(transport);
    this.transactions = new TransactionTestHelpers(transport);
    this.users = new UserTestHelpers(transport);
    this.tenants = new TenantTestHelpers(transport);
    this.clock = new ClockTestHelpers(transport);
    this.events = new EventTestHelpers(transport);
  }
}
