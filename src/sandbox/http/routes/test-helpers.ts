/**
 * /v1/test_helpers/*: drive conversions, transactions and KYC without real payments, plus
 * the sandbox extensions of DESIGN.md (tenants, clock). Absent in production (404).
 * @module
 */
import {
  AdvanceClockBody,
  CreateTenantBody,
  ExpireConversionBody,
  FailAliasBody,
  FailConversionBody,
  ForceKycBody,
  SimulateDepositBody,
  SetLimitsBody,
  SetPriceBody,
  SetSettingsBody,
  SimulatePaymentBody,
} from '../../../models/index.js';
import type { Platform } from '../../core/platform.js';
import type { Scope } from '../../core/world.js';
import { ApiError, invalid } from '../../core/errors.js';
import type { ConversionTrigger } from '../../core/machines.js';
import { apiKeyOut, conversionOut, iso, kycViewOut, transactionOut } from '../../core/wire.js';
import { type DepositOptions, applyConversion, expireConversion, getConversion, receiveFunds } from '../../core/conversions.js';
import { getTransaction, payTransaction } from '../../core/transactions.js';
import { applyKyc, liveUser } from '../../core/users.js';
import type { FailureReason } from '../../../models/index.js';
import type { ConversionRec, KeyRec } from '../../core/state.js';
import { type TenantSnapshot, snapshotParts } from '../../core/snapshot.js';
import { MAX_TENANT_DOCUMENT_CHARS, type TenantDocument, TenantDocumentError, forkTenant, readTenantDocument, tenantDocument } from '../../core/transfer.js';
import { IdParams } from './shared.js';
import { type RouteContext, type RouteDef, created, define, ok } from './types.js';

const BASE = '/v1/test_helpers';

/** The largest body of `POST /v1/test_helpers/tenants`, in characters: a tenant snapshot and its wrapper. */
export const TENANTS_MAX_BODY = MAX_TENANT_DOCUMENT_CHARS + 65_536;

/** A fork's snapshot, checked; a refusal is the envelope's 400 with the issues under `snapshot`. */
function readSnapshotBody(world: Platform, snapshot: unknown): TenantDocument {
  try {
    return readTenantDocument(world, snapshot);
  } catch (error) {
    if (!(error instanceof TenantDocumentError)) throw error;
    throw new ApiError('validation_error', `The snapshot is refused (${error.problem.replace('_', ' ')}); nothing was created.`, {
      problem: error.problem,
      issues: error.issues.map((i) => ({ path: i.path === '' ? 'snapshot' : `snapshot.${i.path}`, message: i.message })),
    });
  }
}

function scopeAt(ctx: RouteContext<unknown, unknown, unknown>, occurredAt: string | undefined, conv?: ConversionRec): Scope {
  let at = ctx.at;
  if (occurredAt !== undefined) {
    at = Date.parse(occurredAt);
    if (at > ctx.at) throw invalid('occurred_at', 'Must not be in the future');
    if (conv && at < conv.updatedAt) throw invalid('occurred_at', 'Must not be before the last change of the conversion');
  }
  return { world: ctx.world, tenant: ctx.tenant, at };
}

function fund(direction: 'onramp' | 'offramp' | 'any') {
  return (
    ctx: RouteContext<
      { id: string },
      unknown,
      { amount?: string | undefined; settle?: boolean | undefined; confirmed?: boolean | undefined; deposit_address?: string | undefined; late?: boolean | undefined }
    >,
  ) => {
    const conv = getConversion(ctx.tenant, ctx.params.id);
    if (direction !== 'any' && conv.direction !== direction) {
      throw new ApiError('invalid_transaction_state', `This conversion is an ${conv.direction}; use the ${conv.direction} helper.`);
    }
    const options: DepositOptions = {
      amount: ctx.body.amount,
      settle: ctx.body.settle,
      confirmed: ctx.body.confirmed,
      depositAddress: ctx.body.deposit_address,
      late: ctx.body.late,
    };
    receiveFunds(scopeAt(ctx, undefined), conv, options);
    return ok(conversionOut(conv));
  };
}

function failWith(trigger: ConversionTrigger, fixed?: FailureReason) {
  return (ctx: RouteContext<{ id: string }, unknown, { reason?: FailureReason | undefined; occurred_at?: string | undefined }>) => {
    const conv = getConversion(ctx.tenant, ctx.params.id);
    const reason = fixed ?? (ctx.body.reason as FailureReason);
    applyConversion(scopeAt(ctx, ctx.body.occurred_at, conv), conv, trigger, { reason });
    return ok(conversionOut(conv));
  };
}

const helper = { capability: 'sandbox:control', sandboxOnly: true, params: IdParams } as const;
const control = { capability: 'sandbox:control', sandboxOnly: true } as const;

/** Test-helper routes. */
export const TEST_HELPER_ROUTES: RouteDef[] = [
  define({ ...helper, method: 'POST', path: `${BASE}/conversions/:id/simulate-onramp-pix-paid`, body: SimulatePaymentBody, handler: fund('onramp') }),
  define({ ...helper, method: 'POST', path: `${BASE}/conversions/:id/simulate-offramp-deposit`, body: SimulatePaymentBody, handler: fund('offramp') }),
  define({ ...helper, method: 'POST', path: `${BASE}/conversions/:id/deposit`, body: SimulateDepositBody, handler: fund('any') }),
  define({
    ...helper,
    method: 'POST',
    path: `${BASE}/conversions/:id/expire`,
    body: ExpireConversionBody,
    handler(ctx) {
      const conv = getConversion(ctx.tenant, ctx.params.id);
      expireConversion(scopeAt(ctx, ctx.body.occurred_at, conv), conv);
      return ok(conversionOut(conv));
    },
  }),
  define({ ...helper, method: 'POST', path: `${BASE}/conversions/:id/fail`, body: FailConversionBody, handler: failWith('fail') }),
  define({ ...helper, method: 'POST', path: `${BASE}/conversions/:id/fail-crypto`, body: FailAliasBody, handler: failWith('fail', 'crypto_deposit_rejected') }),
  define({ ...helper, method: 'POST', path: `${BASE}/conversions/:id/fail-pix`, body: FailAliasBody, handler: failWith('settlement_error', 'pix_send_failed') }),
  define({
    ...helper,
    method: 'POST',
    path: `${BASE}/transactions/:id/pay`,
    body: SimulatePaymentBody,
    handler(ctx) {
      const tx = getTransaction(ctx.tenant, ctx.params.id);
      payTransaction(scopeAt(ctx, undefined), tx, ctx.body.amount, ctx.body.settle === true);
      return ok(transactionOut(tx));
    },
  }),
  define({
    ...helper,
    method: 'POST',
    path: `${BASE}/users/:id/kyc`,
    idempotency: 'optional',
    body: ForceKycBody,
    handler(ctx) {
      const user = liveUser(ctx.tenant, ctx.params.id);
      const trigger = `force_${ctx.body.status}` as const;
      applyKyc(scopeAt(ctx, undefined), user, trigger, ctx.body.rejection_reason);
      return ok(kycViewOut(user));
    },
  }),
  define({
    method: 'POST',
    path: `${BASE}/tenants`,
    capability: 'sandbox:control',
    sandboxOnly: true,
    idempotency: 'optional',
    body: CreateTenantBody,
    maxBody: TENANTS_MAX_BODY,
    handler({ world, body }) {
      if (body.snapshot !== undefined) {
        if (body.capabilities !== undefined) throw invalid('capabilities', 'A fork takes its keys (and their capabilities) from the snapshot; send one or the other');
        const { tenant, keys } = forkTenant(world, readSnapshotBody(world, body.snapshot));
        const withSecret = (k: KeyRec) => ({ ...apiKeyOut(k), api_key: k.secret });
        const first = keys.find((k) => k.revokedAt === null) ?? (keys[0] as KeyRec);
        return created({ tenant_id: tenant.id, api_key: withSecret(first), api_keys: keys.map(withSecret) });
      }
      const unknown = (body.capabilities ?? []).findIndex((c) => !world.knownCapability(c));
      if (unknown >= 0) throw invalid(`capabilities.${unknown}`, 'Unknown capability');
      const { tenant, key } = world.createTenant(body.capabilities);
      return created({ tenant_id: tenant.id, api_key: { ...apiKeyOut(key), api_key: key.secret } });
    },
  }),
  define({
    method: 'GET',
    path: `${BASE}/tenant/snapshot`,
    capability: 'sandbox:control',
    sandboxOnly: true,
    handler: ({ world, tenant }) => ok(tenantDocument(world, snapshotParts(world, [tenant.id]).tenants[0] as TenantSnapshot)),
  }),
  define({
    method: 'GET',
    path: `${BASE}/clock`,
    capability: 'sandbox:control',
    sandboxOnly: true,
    handler: ({ at }) => ok({ now: iso(at) }),
  }),
  define({
    method: 'POST',
    path: `${BASE}/clock/advance`,
    capability: 'sandbox:control',
    sandboxOnly: true,
    idempotency: 'optional',
    body: AdvanceClockBody,
    async handler({ tenant, body }) {
      const now = await tenant.clock.advance({ seconds: body.seconds });
      return ok({ now: now.toISOString() });
    },
  }),
  // Sandbox-wide controls (decisions.md, "The sandbox as a service"): the price feed, limits and timings.
  define({ ...control, method: 'GET', path: `${BASE}/price`, handler: ({ world }) => ok(priceOut(world)) }),
  define({
    ...control,
    method: 'POST',
    path: `${BASE}/price`,
    idempotency: 'optional',
    body: SetPriceBody,
    handler({ world, body }) {
      if (body.mid_rate !== undefined && Number(body.mid_rate) <= 0) throw invalid('mid_rate', 'Must be greater than 0');
      world.pricing = {
        midRate: body.mid_rate ?? world.pricing.midRate,
        spreadBps: body.spread_bps ?? world.pricing.spreadBps,
        withdrawalFeeUsdt: body.withdrawal_fee_usdt ?? world.pricing.withdrawalFeeUsdt,
        available: body.available ?? world.pricing.available,
      };
      return ok(priceOut(world));
    },
  }),
  define({ ...control, method: 'GET', path: `${BASE}/limits`, handler: ({ world }) => ok(limitsOut(world)) }),
  define({
    ...control,
    method: 'POST',
    path: `${BASE}/limits`,
    idempotency: 'optional',
    body: SetLimitsBody,
    handler({ world, body }) {
      const now = world.limits;
      world.limits = {
        platform: { ...now.platform, ...definedOnly(body.platform) },
        platformScope: body.platform_scope ?? now.platformScope ?? 'tenant',
        partner: { ...now.partner, ...definedOnly(body.partner) },
        user: { ...now.user, ...definedOnly(body.user) },
      };
      return ok(limitsOut(world));
    },
  }),
  define({ ...control, method: 'GET', path: `${BASE}/settings`, handler: ({ world }) => ok(settingsOut(world)) }),
  define({
    ...control,
    method: 'POST',
    path: `${BASE}/settings`,
    idempotency: 'optional',
    body: SetSettingsBody,
    handler({ world, body }) {
      const settings = world.settings;
      if (body.quote_ttl_seconds !== undefined) settings.quoteTtlMs = body.quote_ttl_seconds * 1000;
      if (body.deposit_window_seconds !== undefined) {
        settings.depositWindowMs = body.deposit_window_seconds * 1000;
        settings.transactionWindowMs = body.deposit_window_seconds * 1000;
      }
      if (body.settlement_delay_seconds !== undefined) settings.settlementDelayMs = body.settlement_delay_seconds * 1000;
      return ok(settingsOut(world));
    },
  }),
];

function priceOut(world: Platform): Record<string, unknown> {
  const p = world.pricing;
  return { mid_rate: p.midRate, spread_bps: p.spreadBps, withdrawal_fee_usdt: p.withdrawalFeeUsdt, available: p.available };
}

function limitsOut(world: Platform): Record<string, unknown> {
  const l = world.limits;
  return { platform: { ...l.platform }, platform_scope: l.platformScope ?? 'tenant', partner: { ...l.partner }, user: { ...l.user } };
}

function settingsOut(world: Platform): Record<string, unknown> {
  const s = world.settings;
  return { quote_ttl_seconds: s.quoteTtlMs / 1000, deposit_window_seconds: s.depositWindowMs / 1000, settlement_delay_seconds: s.settlementDelayMs / 1000 };
}

/** The fields of a partial body that were given (zod leaves absent optional keys out; be sure). */
function definedOnly<T extends object>(value: T | undefined): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
