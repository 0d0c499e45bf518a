/**
 * API keys, webhook endpoints and deliveries, event envelopes, and the sandbox extensions.
 * @module
 */
import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { ListParams, NullableString, OptionalTimestamp, Timestamp, distinctList, openEnum } from './common.js';

export { API_KEY_FORMAT } from './api-key.js';

/** An API key. `api_key` (the secret) is present only where it is issued: a rotation, or a new tenant (sandbox). */
export const ApiKey = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    key_prefix: z.string(),
    api_key: z.optional(z.string()),
    capabilities: z.array(z.string()),
    name: z.string(),
    created_at: Timestamp,
  }));
/** An API key. */
export type ApiKey = z.infer<typeof ApiKey>;

/** An API key as the rotation returns it: with its secret, shown this once. */
export const ApiKeyWithSecret = /* @__PURE__ */ lazy(() =>
  z.looseObject({ ...ApiKey.shape, api_key: z.string() }));
/** An API key with its secret. */
export type ApiKeyWithSecret = z.infer<typeof ApiKeyWithSecret>;

/** Event kinds of the reference's catalog (new kinds are added additively). */
export const EVENT_TYPES = [
  'conversion.created',
  'conversion.standby',
  'conversion.completed',
  'conversion.failed',
  'conversion.expired',
  'conversion.canceled',
  'conversion.abandoned',
  'transaction.sending_pix',
  'transaction.completed',
  'transaction.failed',
  'user.kyc_pending',
  'user.kyc_approved',
  'user.kyc_rejected',
  'user.kyc_expired',
] as const;
/** An event kind of the catalog. */
export type EventType = (typeof EVENT_TYPES)[number];

/** Webhook endpoint states. */
export const WEBHOOK_ENDPOINT_STATUSES = ['active', 'disabled'] as const;

/** A webhook endpoint. The full secret is only in the creation and rotation answers. */
export const WebhookEndpoint = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    url: z.string(),
    status: openEnum(WEBHOOK_ENDPOINT_STATUSES),
    event_types: z.array(z.string()),
    description: NullableString,
    secret_prefix: z.string(),
    secret_last_four: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }));
/** A webhook endpoint. */
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** A webhook endpoint with its signing secret (`whsec_...`), shown once. */
export const WebhookEndpointWithSecret = /* @__PURE__ */ lazy(() =>
  z.looseObject({ ...WebhookEndpoint.shape, secret: z.string() }));
/** A webhook endpoint with its signing secret. */
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

/** The answer to a secret rotation: the new secret, and until when the old one still signs. */
export const RotatedWebhookSecret = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    ...WebhookEndpoint.shape,
    secret: z.string(),
    previous_secret_expires_at: OptionalTimestamp,
  }));
/** The answer to a secret rotation. */
export type RotatedWebhookSecret = z.infer<typeof RotatedWebhookSecret>;

// https://, or http:// to a loopback receiver (sandbox environment only: production answers 400).
const WebhookUrl = /* @__PURE__ */ lazy(() =>
  z.string().check(
    z.maxLength(2048),
    z.regex(
      /^(https:\/\/[^\s/?#]+[^\s]*|http:\/\/(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?([/?#][^\s]*)?)$/i,
      'Expected an https:// URL (or http:// to localhost, 127.0.0.0/8 or [::1])',
    ),
  ));
const EventTypes = /* @__PURE__ */ lazy(() =>
  z.array(z.string().check(z.regex(/^([a-z_]+\.[a-z_]+|\*)$/, 'Expected an event kind such as conversion.completed'))).check(z.minLength(1)));

/** Body of `POST /v1/webhook_endpoints`. `event_types` may be `["*"]` for every kind. */
export const CreateWebhookEndpointBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    url: WebhookUrl,
    event_types: EventTypes,
    description: z.optional(z.string().check(z.maxLength(500))),
  }));
/** Body of `POST /v1/webhook_endpoints`. */
export type CreateWebhookEndpointBody = z.infer<typeof CreateWebhookEndpointBody>;

/** Body of `PATCH /v1/webhook_endpoints/{id}`. */
export const UpdateWebhookEndpointBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    url: z.optional(WebhookUrl),
    event_types: z.optional(EventTypes),
    description: z.optional(z.nullable(z.string().check(z.maxLength(500)))),
    status: z.optional(z.enum(WEBHOOK_ENDPOINT_STATUSES)),
  }));
/** Body of `PATCH /v1/webhook_endpoints/{id}`. */
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBody>;

/** Body of `POST /v1/webhook_endpoints/{id}/rotate_secret`. */
export const RotateWebhookSecretBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    /** How long the old secret keeps signing beside the new one (0 to 7 days; default 24 hours). */
    grace_period_seconds: z.optional(z.int().check(z.gte(0), z.lte(604_800))),
  }));
/** Body of `POST /v1/webhook_endpoints/{id}/rotate_secret`. */
export type RotateWebhookSecretBody = z.infer<typeof RotateWebhookSecretBody>;

/** The answer to deleting a webhook endpoint. */
export const DeletedWebhookEndpoint = /* @__PURE__ */ lazy(() =>
  z.looseObject({ id: z.string(), deleted: z.boolean() }));
/** The answer to deleting a webhook endpoint. */
export type DeletedWebhookEndpoint = z.infer<typeof DeletedWebhookEndpoint>;

/** Delivery states: waiting for an attempt, acknowledged with a 2xx, or given up (dead letter). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** One attempt to deliver an event. */
export const WebhookDeliveryAttempt = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    attempted_at: Timestamp,
    response_status: z.nullable(z.number()),
    latency_ms: z.number(),
    error: NullableString,
  }));
/** One attempt to deliver an event. */
export type WebhookDeliveryAttempt = z.infer<typeof WebhookDeliveryAttempt>;

/** Why a pending delivery's next attempt was moved past its retry schedule: its endpoint's circuit is open (a sandbox field). */
export const WEBHOOK_DEFERRAL_REASONS = ['circuit_open'] as const;

/**
 * A pending delivery whose attempt the endpoint's circuit delays (attempts to the endpoint keep
 * ending without an answer): the instant its retry schedule made it due, and why it did not go
 * then. It goes at `next_attempt_at`, or after the circuit's trial; the delay adds no attempt.
 */
export const WebhookDeliveryDeferral = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    reason: openEnum(WEBHOOK_DEFERRAL_REASONS),
    scheduled_at: Timestamp,
  }));
/** A pending delivery's delay by its endpoint's circuit. */
export type WebhookDeliveryDeferral = z.infer<typeof WebhookDeliveryDeferral>;

/** The delivery of one event to one endpoint, with every attempt. */
export const WebhookDelivery = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    webhook_endpoint_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    status: openEnum(WEBHOOK_DELIVERY_STATUSES),
    attempt_count: z.number(),
    response_status: z.nullable(z.number()),
    latency_ms: z.nullable(z.number()),
    last_error: NullableString,
    next_attempt_at: OptionalTimestamp,
    /** Set while the endpoint's circuit delays the next attempt (sandbox); `null` otherwise. Absent from servers without circuits. */
    deferred: z.optional(z.nullable(WebhookDeliveryDeferral)),
    attempts: z.array(WebhookDeliveryAttempt),
    created_at: Timestamp,
    updated_at: Timestamp,
  }));
/** The delivery of one event to one endpoint. */
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** Query of `GET /v1/webhook_endpoints/{id}/deliveries`. */
export const ListWebhookDeliveriesParams = /* @__PURE__ */ lazy(() =>
  z.extend(ListParams, {
    status: z.optional(z.enum(WEBHOOK_DELIVERY_STATUSES)),
    event_id: z.optional(z.string()),
  }));
/** Query of `GET /v1/webhook_endpoints/{id}/deliveries`. */
export type ListWebhookDeliveriesParams = z.infer<typeof ListWebhookDeliveriesParams>;

/** The envelope of a webhook event: `data.object` is the resource as it was at the change. */
export const EventEnvelope = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    type: z.string(),
    created_at: Timestamp,
    // A loose object rather than z.record: the same values, without record's code in a browser app's client.
    data: z.looseObject({ object: z.looseObject({}) }),
  }));
/** The envelope of a webhook event. */
export type EventEnvelope = z.infer<typeof EventEnvelope>;

/** Sandbox extension: query of `GET /v1/test_helpers/events` (the caller's tenant's recorded events, newest first). */
export const ListEventsParams = /* @__PURE__ */ lazy(() =>
  z.extend(ListParams, {
    /** Only events of this kind, e.g. `conversion.completed`. */
    type: z.optional(z.string().check(z.regex(/^[a-z_]+\.[a-z_]+$/, 'Expected an event kind such as conversion.completed'))),
    /** Only events whose `data.object.id` is this id. */
    object_id: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  }));
/** Sandbox extension: query of `GET /v1/test_helpers/events`. */
export type ListEventsParams = z.infer<typeof ListEventsParams>;

/** Sandbox extension: body of `POST /v1/test_helpers/tenants`. */
export const CreateTenantBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    /** The new key's capabilities: one or more, each once (default: all of them). */
    capabilities: z.optional(distinctList(z.string(), 'capability')),
    /** A tenant snapshot (`GET /v1/test_helpers/tenant/snapshot`): the new tenant is a fork of it. */
    snapshot: z.optional(TenantSnapshotDocument),
  }));
/** Sandbox extension: body of `POST /v1/test_helpers/tenants`. */
export type CreateTenantBody = z.infer<typeof CreateTenantBody>;

/**
 * Sandbox extension: answer of `POST /v1/test_helpers/tenants`. `api_key` is the secret a caller
 * uses, as `serve` prints it (`sk_test_...`, ready for `Authorization: Bearer`); `api_keys` are
 * the tenant's keys as the reference's API key objects with their secrets (one for a new tenant;
 * a fork's, one for each key of the snapshot in its order, revoked ones included).
 */
export const Tenant = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    tenant_id: z.string(),
    /** The secret of the key a caller is handed (a fork's: its first key not revoked). */
    api_key: z.string(),
    /** Every key of the tenant, with its secret, as `POST /v1/api-keys/{id}/rotate` answers one. */
    api_keys: z.array(ApiKeyWithSecret),
  }));
/** Sandbox extension: a new tenant, the secret of its API key, and its keys. */
export type Tenant = z.infer<typeof Tenant>;

/**
 * Sandbox extension: one tenant as a versioned document (`GET /v1/test_helpers/tenant/snapshot`),
 * which `POST /v1/test_helpers/tenants` `{ snapshot }` forks. `tenant` is the sandbox's own record
 * format (data, clock time, keys with secrets, settings, webhook endpoints with secrets,
 * idempotency records, events): treat it as a test fixture, never as an API shape.
 */
export const TenantSnapshotDocument = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    format: z.literal('pix-usdt-tenant'),
    version: z.number(),
    environment: z.enum(['sandbox', 'production']),
    exported_at: Timestamp,
    tenant: z.record(z.string(), z.unknown()),
  }));
/** Sandbox extension: one tenant as a versioned document. */
export type TenantSnapshotDocument = z.infer<typeof TenantSnapshotDocument>;

/** Sandbox extension: the tenant's virtual clock. */
export const ClockState = /* @__PURE__ */ lazy(() =>
  z.looseObject({ now: Timestamp }));
/** Sandbox extension: the tenant's virtual clock. */
export type ClockState = z.infer<typeof ClockState>;

/** Sandbox extension: body of `POST /v1/test_helpers/clock/advance`. */
export const AdvanceClockBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    seconds: z.number().check(z.gte(0), z.lte(31_536_000)),
    /**
     * `true`: step through the span as the in-process `sandbox.clock.advance` does, sending each
     * webhook attempt that falls due at its instant, and answer once this tenant's deliveries have
     * ended. Default `false`: answer at once; the deliveries made due are sent after, at the new time.
     */
    wait_for_deliveries: z.optional(z.boolean()),
  }));
/** Sandbox extension: body of `POST /v1/test_helpers/clock/advance`. */
export type AdvanceClockBody = z.infer<typeof AdvanceClockBody>;

/** Sandbox extension: the price feed (`GET` and `POST /v1/test_helpers/price`). */
export const PriceFeed = /* @__PURE__ */ lazy(() =>
  z.looseObject({ mid_rate: z.string(), spread_bps: z.number(), withdrawal_fee_usdt: z.string(), available: z.boolean() }));
/** Sandbox extension: the price feed every quote and liquidation reads. */
export type PriceFeed = z.infer<typeof PriceFeed>;

// The settings' rules, once: the sandbox validates the routes' bodies, `createSandbox` options, the
// in-process setters and the `serve` flags with these schemas (src/sandbox/core/settings.ts), and
// docs/openapi.json is generated from them, so the document states exactly what is accepted.
const RATE_MESSAGE = 'Expected a decimal string from 0.01 with at most 6 decimals, such as "5.40"';
const USDT_MESSAGE = 'Expected a non-negative decimal string with at most 6 decimals, such as "1.00"';
const BRL_MESSAGE = 'Expected a non-negative decimal string with at most 2 decimals, such as "1000.00"';

/** A mid rate: BRL per USDT, at least 0.01 (so that a 9,999 bps spread still leaves a rate), 6 decimals at most (rates are priced to 6). */
const MidRate = /* @__PURE__ */ lazy(() =>
  z.string(RATE_MESSAGE).check(z.regex(/^(?:[1-9]\d{0,17}(?:\.\d{1,6})?|0\.(?:0[1-9]\d{0,4}|[1-9]\d{0,5}))$/, RATE_MESSAGE)));
/** A USDT amount of a setting (the withdrawal fee): USDT has 6 decimals. */
const UsdtSetting = /* @__PURE__ */ lazy(() =>
  z.string(USDT_MESSAGE).check(z.regex(/^(0|[1-9]\d{0,17})(\.\d{1,6})?$/, USDT_MESSAGE)));
/** A BRL amount of a setting (a limit): BRL has 2 decimals. */
const BrlSetting = /* @__PURE__ */ lazy(() =>
  z.string(BRL_MESSAGE).check(z.regex(/^(0|[1-9]\d{0,17})(\.\d{1,2})?$/, BRL_MESSAGE)));

/** Sandbox extension: body of `POST /v1/test_helpers/price` (the fields given change; the rest stay). */
export const SetPriceBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    /** BRL per USDT: from 0.01, at most 6 decimals. */
    mid_rate: z.optional(MidRate),
    spread_bps: z.optional(z.int().check(z.gte(0), z.lte(9_999))),
    withdrawal_fee_usdt: z.optional(UsdtSetting),
    /** `false`: quotes and liquidations answer 503 `price_feed_unavailable`. */
    available: z.optional(z.boolean()),
  }));
/** Sandbox extension: body of `POST /v1/test_helpers/price`. */
export type SetPriceBody = z.infer<typeof SetPriceBody>;

/** A daily and a monthly BRL limit, as decimal strings. */
const LimitPairOut = /* @__PURE__ */ lazy(() =>
  z.looseObject({ daily: z.string(), monthly: z.string() }));
const LimitPairIn = /* @__PURE__ */ lazy(() =>
  z.strictObject({ daily: z.optional(BrlSetting), monthly: z.optional(BrlSetting) }));

/** Sandbox extension: the caller tenant's volume limits in BRL (`GET` and `POST /v1/test_helpers/limits`). */
export const SandboxLimits = /* @__PURE__ */ lazy(() =>
  z.looseObject({ platform: LimitPairOut, platform_scope: z.string(), partner: LimitPairOut, user: LimitPairOut }));
/** Sandbox extension: the volume limits in BRL. */
export type SandboxLimits = z.infer<typeof SandboxLimits>;

/**
 * Sandbox extension: body of `POST /v1/test_helpers/limits` (the fields given change; the rest
 * stay). `platform_scope` is the operator's (read-only: accepted unchanged, refused otherwise);
 * so is the `platform` level under shared platform limits.
 */
export const SetLimitsBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    platform: z.optional(LimitPairIn),
    /** Read-only: accepted when it is the scope in force (a GET body posts back), refused otherwise. */
    platform_scope: z.optional(z.enum(['tenant', 'shared'])),
    partner: z.optional(LimitPairIn),
    user: z.optional(LimitPairIn),
  }));
/** Sandbox extension: body of `POST /v1/test_helpers/limits`. */
export type SetLimitsBody = z.infer<typeof SetLimitsBody>;

/** Sandbox extension: the caller tenant's timing settings (`GET` and `POST /v1/test_helpers/settings`), in seconds. */
export const SandboxSettings = /* @__PURE__ */ lazy(() =>
  z.looseObject({ quote_ttl_seconds: z.number(), deposit_window_seconds: z.number(), settlement_delay_seconds: z.number() }));
/** Sandbox extension: timing settings, in seconds. */
export type SandboxSettings = z.infer<typeof SandboxSettings>;

/** A duration setting in seconds: from 1 ms to a year, kept to the millisecond. */
const Seconds = /* @__PURE__ */ lazy(() =>
  z.number().check(z.gte(0.001), z.lte(31_536_000)));

/** Sandbox extension: body of `POST /v1/test_helpers/settings` (applies to quotes and conversions created afterwards). */
export const SetSettingsBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({ quote_ttl_seconds: z.optional(Seconds), deposit_window_seconds: z.optional(Seconds), settlement_delay_seconds: z.optional(Seconds) }));
/** Sandbox extension: body of `POST /v1/test_helpers/settings`. */
export type SetSettingsBody = z.infer<typeof SetSettingsBody>;

/** Query of `GET /v1/api-keys` and `GET /v1/webhook_endpoints`. */
export const PlainListParams = ListParams;
/** Query of plain listings. */
export type PlainListParams = z.infer<typeof PlainListParams>;
