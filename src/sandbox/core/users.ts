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
  tenant.users.update(user, (u) => {
    u.kycStatus = row.to as KycStatus;
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
  });
  if (row.event) world.record(tenant, row.event, USER, user, at);
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
