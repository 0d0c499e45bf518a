/**
 * What each timer does when it falls due. A timer whose subject moved on (another state,
 * another deadline) does nothing: timers are never cancelled, only outdated.
 * @module
 */
import Big from 'big.js';
import type { Timer } from './clock.js';
import type { Scope } from './platform.js';
import { STANDBY_MS } from './wire.js';
import type { TenantState } from './state.js';
import { applyConversion } from './conversions.js';
import { moveQuote } from './quotes.js';
import { applyTransaction } from './transactions.js';
import { applyKyc } from './users.js';

/** Fires one timer at its due time (`scope.at`). */
export function fireTimer(scope: Scope, timer: Timer): void {
  const { tenant, at } = scope;
  switch (timer.kind) {
    case 'quote.ttl': {
      const quote = tenant.quotes.get(timer.id);
      if (quote?.status === 'active' && quote.expiresAt === at) moveQuote(scope, quote, 'ttl_passes');
      return;
    }
    case 'conversion.window': {
      const conv = tenant.conversions.get(timer.id);
      if (conv?.status === 'awaiting_deposit' && conv.windowExpiresAt === at) {
        applyConversion(scope, conv, new Big(conv.received).gt(0) ? 'window_passes_funded' : 'window_passes_empty');
      }
      return;
    }
    case 'conversion.standby': {
      const conv = tenant.conversions.get(timer.id);
      if (conv?.status === 'standby' && conv.standbyAt !== null && conv.standbyAt + STANDBY_MS === at) {
        applyConversion(scope, conv, 'standby_window_passes');
      }
      return;
    }
    case 'conversion.settle': {
      const conv = tenant.conversions.get(timer.id);
      if ((conv?.status === 'funded' || conv?.status === 'liquidated') && conv.settleAt === at) applyConversion(scope, conv, 'settle');
      return;
    }
    case 'transaction.expire': {
      const tx = tenant.transactions.get(timer.id);
      if (tx?.status === 'pending_payment' && tx.expiresAt === at) applyTransaction(scope, tx, 'expire');
      return;
    }
    case 'transaction.settle': {
      const tx = tenant.transactions.get(timer.id);
      if (tx?.status === 'payment_received' && tx.settleAt === at && tx.conversionId === null) applyTransaction(scope, tx, 'settle');
      return;
    }
    case 'user.kyc_expiry': {
      const user = tenant.users.get(timer.id);
      if (user?.kycStatus === 'approved' && user.kycExpiresAt === at) applyKyc(scope, user, 'approval_lapses');
      return;
    }
  }
}

/** Re-creates every timer from the state of a tenant (restore). */
export function rescheduleAll(tenant: TenantState): void {
  const clock = tenant.clock;
  clock.clearTimers();
  for (const q of tenant.quotes.all()) if (q.status === 'active') clock.schedule({ at: q.expiresAt, kind: 'quote.ttl', id: q.id });
  for (const c of tenant.conversions.all()) {
    if (c.status === 'awaiting_deposit') clock.schedule({ at: c.windowExpiresAt, kind: 'conversion.window', id: c.id });
    if (c.status === 'standby' && c.standbyAt !== null) clock.schedule({ at: c.standbyAt + STANDBY_MS, kind: 'conversion.standby', id: c.id });
    if ((c.status === 'funded' || c.status === 'liquidated') && c.settleAt !== null) {
      clock.schedule({ at: c.settleAt, kind: 'conversion.settle', id: c.id });
    }
  }
  for (const t of tenant.transactions.all()) {
    if (t.status === 'pending_payment' && t.conversionId === null) clock.schedule({ at: t.expiresAt, kind: 'transaction.expire', id: t.id });
    if (t.status === 'payment_received' && t.settleAt !== null) clock.schedule({ at: t.settleAt, kind: 'transaction.settle', id: t.id });
  }
  for (const u of tenant.users.all()) {
    if (u.kycStatus === 'approved' && u.kycExpiresAt !== null) clock.schedule({ at: u.kycExpiresAt, kind: 'user.kyc_expiry', id: u.id });
  }
}
