/**
 * Users, their KYC machine and wallets.
 * @module
 */
import Big from 'big.js';
import type { KycStatus } from '../../models/index.js';
import type { Scope } from './world.js';
import { ApiError } from './errors.js';
import type { LimitScope } from './limits.js';
import { KYC_VALIDITY_MS } from './settings.js';
import { KYC_MACHINE, type KycTrigger, step } from './machines.js';
import type { TenantState, UserRec } from './state.js';
import { USER } from './versions.js';

/** A live (not deleted) user of the tenant, or user_not_found. */
export function liveUser(tenant: TenantState, id: string): UserRec {
  const user = tenant.users.get(id);
  if (!user || user.deletedAt !== null) throw new ApiError('user_not_found', 'No such user.');
  return user;
}

/** Applies a KYC transition; emits the row's event when kyc_status changes. */
export function applyKyc(scope: Scope, user: UserRec, trigger: KycTrigger, rejectionReason?: string): void {
  const { world, tenant, at } = scope;
  const row = step(KYC_MACHINE, user.kycStatus, trigger);
  const s = user.submission;
  tenant.users.update(user, (u) => kycMove(scope, u, row.to as KycStatus, trigger, s, rejectionReason));
  if (row.event) world.record(tenant, row.event, USER, user, at);
}

/**
 * Stores a new user, its KYC started first unless `startKyc` is false (the `start` transition
 * applied to the record before it is stored, then its event: the same ids in the same order, the
 * same record, event and indexes as {@link applyKyc} after the insert, without moving the record
 * between index keys), with its CPF and external id indexed.
 */
export function insertUser(scope: Scope, user: UserRec, startKyc: boolean): void {
  const { world, tenant, at } = scope;
  const row = startKyc ? step(KYC_MACHINE, user.kycStatus, 'start') : null;
  if (row !== null) kycMove(scope, user, row.to as KycStatus, 'start', user.submission);
  tenant.users.insert(user);
  tenant.cpfIndex.set(user.cpf, user.id);
  tenant.externalIdIndex.set(user.externalId, user.id);
  if (row?.event) world.record(tenant, row.event, USER, user, at);
}

// A KYC transition's changes to the user (`s`: its submission before the change).
function kycMove(scope: Scope, u: UserRec, to: KycStatus, trigger: KycTrigger, s: UserRec['submission'], rejectionReason?: string): void {
  const { world, tenant, at } = scope;
  u.kycStatus = to;
  u.updatedAt = at;
  switch (trigger) {
    case 'start':
      u.submission = { id: world.random.uuid(), status: 'initiated', createdAt: at, submittedAt: null, resultAt: null, rejectionReason: null };
      break;
    case 'force_approved':
      u.kycApprovedAt = at;
      u.kycExpiresAt = at + KYC_VALIDITY_MS;
      if (s) Object.assign(s, { status: 'approved', submittedAt: s.submittedAt ?? at, resultAt: at, rejectionReason: null });
      world.schedule(tenant, u.kycExpiresAt, 'user.kyc_expiry', u.id);
      break;
    case 'force_rejected':
      u.kycApprovedAt = null;
      u.kycExpiresAt = null;
      if (s) Object.assign(s, { status: 'rejected', submittedAt: s.submittedAt ?? at, resultAt: at, rejectionReason: rejectionReason ?? 'sandbox_forced' });
      break;
    case 'force_in_review':
      if (s) Object.assign(s, { status: 'in_review', submittedAt: at, resultAt: null, rejectionReason: null });
      break;
    case 'force_expired':
      u.kycExpiresAt = at;
      if (s) Object.assign(s, { status: 'expired', resultAt: at });
      break;
    case 'approval_lapses':
      break;
  }
}

/** Adds (or, negative, removes) USDT to a user's wallet, floored at zero. */
export function moveWallet(user: UserRec, amount: Big, at: number): void {
  const next = new Big(user.balance).plus(amount);
  user.balance = (next.lt(0) ? new Big(0) : next).toFixed(6);
  user.walletUpdatedAt = at;
}

/** What the limit checks need for one user of the tenant: a user not KYC-approved has a limit of 0. */
export function userLimitScope(scope: Scope, userId: string): LimitScope {
  const user = scope.tenant.users.get(userId);
  return {
    settings: scope.tenant.settings.limits,
    platform: scope.world.platformUsage,
    partner: scope.tenant.usage,
    userId,
    kycApproved: user?.kycStatus === 'approved' && user.deletedAt === null,
  };
}
