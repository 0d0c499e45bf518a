/**
 * Transactions (the settlement leg) and their machine.
 * @module
 */
import Big from 'big.js';
import type { TransactionStatus } from '../../models/index.js';
import type { Scope } from './world.js';
import { ApiError, invalid } from './errors.js';
import { TRANSACTION_MACHINE, type TransactionEffect, type TransactionTrigger, step } from './machines.js';
import { reserve } from './limits.js';
import { ms } from './settings.js';
import { TRANSACTION } from './versions.js';
import type { QuoteRec, TenantState, TransactionRec } from './state.js';
import { getQuote, moveQuote } from './quotes.js';
import { moveWallet, userLimitScope } from './users.js';

/** A transaction of the tenant, or transaction_not_found. */
export function getTransaction(tenant: TenantState, id: string): TransactionRec {
  const tx = tenant.transactions.get(id);
  if (!tx) throw new ApiError('transaction_not_found', 'No such transaction.');
  return tx;
}

const EFFECTS: Record<TransactionEffect, (scope: Scope, tx: TransactionRec) => void> = {
  reserve_limit(scope, tx) {
    if (tx.conversionId === null) tx.reservedBrl = reserve(userLimitScope(scope, tx.userId), tx, tx.sourceAmount).reservedBrl;
  },
  release_limit(scope, tx) {
    if (new Big(tx.reservedBrl).gt(0)) tx.reservedBrl = reserve(userLimitScope(scope, tx.userId), tx, '0').reservedBrl;
  },
};

/** Applies a transaction transition and emits its event, if the catalog has one. */
export function applyTransaction(scope: Scope, tx: TransactionRec, trigger: TransactionTrigger, failureReason?: string): void {
  const { world, tenant, at } = scope;
  const row = step(TRANSACTION_MACHINE, tx.status, trigger);
  for (const effect of row.effects) EFFECTS[effect](scope, tx);
  tenant.transactions.update(tx, (t) => {
    t.status = row.to as TransactionStatus;
    t.updatedAt = at;
    if (trigger === 'pay') t.pixPaidAt = at;
    if (trigger === 'settle') {
      t.usdtSentAt = at;
      t.completedAt = at;
    }
    if (trigger === 'fail') t.failureReason = failureReason ?? 'settlement_failed';
  });
  if (trigger === 'settle' && tx.conversionId === null) {
    // A standalone transaction credits the wallet itself; a conversion's one is credited by the conversion.
    const quote = tenant.quotes.get(tx.quoteId);
    const user = tenant.users.get(tx.userId);
    if (quote && user) moveWallet(user, new Big(quote.netTargetAmount), at);
  }
  if (row.event) world.record(tenant, row.event, TRANSACTION, tx, at);
}

/** Opens a transaction in pending_payment for an onramp quote. */
export function openTransaction(scope: Scope, quote: QuoteRec, conversionId: string | null): TransactionRec {
  const { world, tenant, at } = scope;
  const row = step(TRANSACTION_MACHINE, null, 'create');
  const tx: TransactionRec = {
    id: world.random.uuid(),
    seq: 0,
    userId: quote.userId,
    quoteId: quote.id,
    conversionId,
    status: 'pending_payment',
    sourceAmount: quote.sourceAmount,
    targetAmount: quote.netTargetAmount,
    exchangeRate: quote.exchangeRate,
    walletAddress: quote.walletAddress,
    pixPaidAt: null,
    usdtSentAt: null,
    settleAt: null,
    failureReason: null,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
    expiresAt: at + ms(tenant.settings.timings.depositWindowSeconds),
    reservedBrl: '0',
    reservedAt: at,
  };
  // A refused reservation (transaction_limit_exceeded) comes before the record exists.
  for (const effect of row.effects) EFFECTS[effect](scope, tx);
  tenant.transactions.insert(tx);
  if (conversionId === null) world.schedule(tenant, tx.expiresAt, 'transaction.expire', tx.id);
  return tx;
}

/** POST /v1/transactions: consumes an onramp quote into a transaction awaiting its Pix payment. */
export function createTransaction(scope: Scope, quoteId: string): TransactionRec {
  const quote = getQuote(scope.tenant, quoteId);
  if (quote.direction !== 'onramp') throw invalid('quote_id', 'Expected an onramp quote (BRL to USDT)');
  // Refusals of the quote machine (quote_expired, quote_already_consumed) come first, then the
  // limits (a user whose KYC is not approved has 0), as for accepting the quote into a conversion.
  if (quote.status !== 'active') moveQuote(scope, quote, 'consume');
  const tx = openTransaction(scope, quote, null);
  moveQuote(scope, quote, 'consume');
  return tx;
}

/** The pay helper: the Pix payment of a standalone transaction arrives. */
export function payTransaction(scope: Scope, tx: TransactionRec, amount: string | undefined, settle: boolean): void {
  if (amount !== undefined && !new Big(amount).eq(tx.sourceAmount)) {
    throw invalid('amount', `A transaction is paid in full: expected ${tx.sourceAmount}`);
  }
  if (tx.conversionId !== null && tx.status === 'pending_payment') {
    throw new ApiError('invalid_transaction_state', 'This transaction belongs to a conversion; use the conversion helpers.');
  }
  applyTransaction(scope, tx, 'pay');
  if (settle) applyTransaction(scope, tx, 'settle');
  else {
    tx.settleAt = scope.at + ms(scope.tenant.settings.timings.settlementDelaySeconds);
    scope.world.schedule(scope.tenant, tx.settleAt, 'transaction.settle', tx.id);
  }
}
