/**
 * /v1/test_helpers/*: drive conversions, transactions and KYC without real payments, plus
 * the sandbox extensions of DESIGN.md (tenants, clock, the caller tenant's price feed, limits and
 * timings). Absent in production (404).
 * @module
 */
import {
  AdvanceClockBody,
  CreateTenantBody,
  ExpireConversionBody,
  FailAliasBody,
  FailConversionBody,
  ForceKycBody,
  ListEventsParams,
  SimulateDepositBody,
  SetLimitsBody,
  SetPriceBody,
  SetSettingsBody,
  SimulatePaymentBody,
} from '../../../models/index.js';
import type { Scope } from '../../core/world.js';
import { ApiError, invalid } from '../../core/errors.js';
import type { ConversionTrigger } from '../../core/machines.js';
import { apiKeyWithSecretOut, iso } from '../../core/wire.js';
import { type DepositOptions, applyConversion, expireConversion, getConversion, receiveFunds } from '../../core/conversions.js';
import { getTransaction, payTransaction } from '../../core/transactions.js';
import { applyKyc, liveUser } from '../../core/users.js';
import type { FailureReason } from '../../../models/index.js';
import type { ConversionRec, SandboxEvent, TenantState } from '../../core/state.js';
import { type SettingsKind, type TenantSettings, limitsOut, parseSettings, priceOut, settingsError, timingsOut } from '../../core/settings.js';
import { decodeIdCursor, encodeCursor, filterFingerprint } from '../cursor.js';
import { type Fork, MAX_TENANT_DOCUMENT_CHARS, TENANT_DOCUMENT_FORMAT, TENANT_DOCUMENT_VERSION, TenantDocumentError, type TenantTransfer } from '../../core/transfer.js';
import { IdParams } from './shared.js';
import { type RouteContext, type RouteDef, type RoutePlatform, created, define, kycReply, ok, recordReply } from './types.js';
import { CONVERSION, TRANSACTION } from '../../core/versions.js';

const BASE = '/v1/test_helpers';

/** The largest body of `POST /v1/test_helpers/tenants`, in characters: a tenant snapshot and its wrapper. */
export const TENANTS_MAX_BODY = MAX_TENANT_DOCUMENT_CHARS + 65_536;

/** A fork of a snapshot; a refusal (of the document, or of its records) is the envelope's 400 with the issues under `snapshot`. */
function forkOf(transfer: TenantTransfer, snapshot: unknown): Fork {
  try {
    return transfer.fork(snapshot);
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
  return { world: ctx.platform, tenant: ctx.tenant, at };
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
    return recordReply(ctx.platform, 200, CONVERSION, conv);
  };
}

function failWith(trigger: ConversionTrigger, fixed?: FailureReason) {
  return (ctx: RouteContext<{ id: string }, unknown, { reason?: FailureReason | undefined; occurred_at?: string | undefined }>) => {
    const conv = getConversion(ctx.tenant, ctx.params.id);
    const reason = fixed ?? (ctx.body.reason as FailureReason);
    applyConversion(scopeAt(ctx, ctx.body.occurred_at, conv), conv, trigger, { reason });
    return recordReply(ctx.platform, 200, CONVERSION, conv);
  };
}

const helper = { capability: 'sandbox:control', sandboxOnly: true, params: IdParams } as const;
const control = { capability: 'sandbox:control', sandboxOnly: true } as const;

/** Test-helper routes; the tenants helpers make and export tenants through `transfer`. */
export function testHelperRoutes(transfer: TenantTransfer): RouteDef[] {
  return [
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
        return recordReply(ctx.platform, 200, CONVERSION, conv);
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
        return recordReply(ctx.platform, 200, TRANSACTION, tx);
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
        return kycReply(ctx.platform, user);
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
      precheck(body) {
        // A document of another format or version is told so (`details.problem`) as in process,
        // before the schema's plainer "expected pix-usdt-tenant": the fork refuses it before
        // reading further, and creates nothing.
        const snapshot = (body as { snapshot?: unknown } | null)?.snapshot;
        if (typeof snapshot !== 'object' || snapshot === null || Array.isArray(snapshot)) return;
        const head = snapshot as { format?: unknown; version?: unknown };
        if (head.format !== TENANT_DOCUMENT_FORMAT || head.version !== TENANT_DOCUMENT_VERSION) forkOf(transfer, snapshot);
      },
      handler({ platform, tenant: caller, body }) {
        if (body.snapshot !== undefined) {
          if (body.capabilities !== undefined) throw invalid('capabilities', 'A fork takes its keys (and their capabilities) from the snapshot; send one or the other');
          // The caller's tree may make one more (issue 35), checked before anything is made.
          const record = platform.claimTenant(caller);
          const { tenant, keys, key } = forkOf(transfer, body.snapshot);
          record(tenant);
          return created({ tenant_id: tenant.id, api_key: key.secret, api_keys: keys.map(apiKeyWithSecretOut) });
        }
        const unknown = (body.capabilities ?? []).findIndex((c) => !platform.knownCapability(c));
        if (unknown >= 0) throw invalid(`capabilities.${unknown}`, 'Unknown capability');
        const record = platform.claimTenant(caller);
        const { tenant, key } = platform.createTenant(body.capabilities);
        record(tenant);
        return created({ tenant_id: tenant.id, api_key: key.secret, api_keys: [apiKeyWithSecretOut(key)] });
      },
    }),
    define({
      method: 'GET',
      path: `${BASE}/tenant/snapshot`,
      capability: 'sandbox:control',
      sandboxOnly: true,
      handler: ({ tenant }) => ok(transfer.export(tenant)),
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
        // The answer does not wait for receivers (a hanging one held it for 54 s) unless asked to.
        const span = { seconds: body.seconds };
        const now = body.wait_for_deliveries === true ? await tenant.clock.advance(span) : tenant.clock.jump(span);
        return ok({ now: now.toISOString() });
      },
    }),
    define({
      // The tenant's recorded events, as `sandbox.events()` in process: what pix-usdt/testing's
      // scenarios read to answer the events they caused, against any deployment that has it.
      method: 'GET',
      path: `${BASE}/events`,
      capability: 'sandbox:control',
      sandboxOnly: true,
      query: ListEventsParams,
      handler: ({ platform, tenant, query }) => ok(eventsPage(platform, tenant, query)),
    }),
    // The caller tenant's own price feed, limits and timings (core/settings.ts): no other tenant's change.
    define({ ...control, method: 'GET', path: `${BASE}/price`, handler: ({ tenant }) => ok(priceOut(tenant.settings.price)) }),
    define({
      ...control,
      method: 'POST',
      path: `${BASE}/price`,
      idempotency: 'optional',
      body: SetPriceBody,
      handler: ({ platform, tenant, body }) => ok(priceOut(change(platform, tenant, 'price', body).price)),
    }),
    define({ ...control, method: 'GET', path: `${BASE}/limits`, handler: ({ tenant }) => ok(limitsOut(tenant.settings.limits)) }),
    define({
      ...control,
      method: 'POST',
      path: `${BASE}/limits`,
      idempotency: 'optional',
      body: SetLimitsBody,
      handler: ({ platform, tenant, body }) => ok(limitsOut(change(platform, tenant, 'limits', body).limits)),
    }),
    define({ ...control, method: 'GET', path: `${BASE}/settings`, handler: ({ tenant }) => ok(timingsOut(tenant.settings.timings)) }),
    define({
      ...control,
      method: 'POST',
      path: `${BASE}/settings`,
      idempotency: 'optional',
      body: SetSettingsBody,
      handler: ({ platform, tenant, body }) => ok(timingsOut(change(platform, tenant, 'timings', body).timings)),
    }),
  ];
}

/** Applies a tenant's change given in wire names (the body the schema parsed), under the operator's rules; its settings after. */
function change(platform: RoutePlatform, tenant: TenantState, kind: SettingsKind, body: unknown): TenantSettings {
  const parsed = parseSettings(kind, body, { operator: false, scope: platform });
  if (!parsed.ok) throw settingsError(parsed.issues);
  platform.changeSettings(tenant, kind, parsed.patch);
  return tenant.settings;
}

/** A page of the tenant's event log, newest first; the cursor names the last event returned. */
function eventsPage(platform: RoutePlatform, tenant: TenantState, query: ListEventsParams): { data: SandboxEvent[]; next_cursor: string | null } {
  const fingerprint = filterFingerprint('events', { type: query.type, object_id: query.object_id });
  const log = platform.eventsOf(tenant);
  let end = log.length;
  if (query.cursor !== undefined) {
    const after = decodeIdCursor(platform.cursorSecret, query.cursor, fingerprint);
    end = log.findLastIndex((e) => e.id === after);
    // Trimmed off the log's head since (more than eventLogSize events later): expired.
    if (end < 0) throw new ApiError('invalid_cursor', 'The cursor has expired: its event left the log (eventLogSize).');
  }
  const limit = query.limit ?? 50;
  const data: SandboxEvent[] = [];
  let i = end - 1;
  for (; i >= 0 && data.length < limit; i--) {
    const event = log[i] as SandboxEvent;
    if (query.type !== undefined && event.type !== query.type) continue;
    if (query.object_id !== undefined && event.data.object['id'] !== query.object_id) continue;
    data.push(event);
  }
  const more = data.length === limit && log.slice(0, i + 1).some((e) => (query.type === undefined || e.type === query.type) && (query.object_id === undefined || e.data.object['id'] === query.object_id));
  const last = data[data.length - 1];
  return { data, next_cursor: more && last !== undefined ? encodeCursor(platform.cursorSecret, last.id, fingerprint) : null };
}
