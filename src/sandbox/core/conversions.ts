/**
 * Conversions: accept, the effects of the conversion machine, deposits and liquidation.
 * Effects that can refuse (limits, pricing) come first in their row and change nothing
 * before they succeed, so a refused move leaves no trace.
 * @module
 */
import Big from 'big.js';
import type { FailureReason } from '../../models/index.js';
import type { Scope } from './world.js';
import { ApiError } from './errors.js';
import { type LimitScope, reserve } from './limits.js';
import { CONVERSION_MACHINE, type ConversionEffect, type ConversionTrigger, type Transition, step } from './machines.js';
import { checkAmount, price } from './pricing.js';
import { STANDBY_MS, ms } from './settings.js';
import { depositAddress, iso } from './wire.js';
import { CONVERSION } from './versions.js';
import type { ConversionRec, QuoteRec, TenantState } from './state.js';
import { getQuote, insertQuote, livePricing, moveQuote } from './quotes.js';
import { applyTransaction, openTransaction } from './transactions.js';
import { moveWallet, userLimitScope } from './users.js';

/** Inputs some triggers carry. */
export interface ConversionInput {
  amount?: string;
  reason?: FailureReason;
  quote?: QuoteRec;
}

/** A conversion of the tenant, or conversion_not_found. */
export function getConversion(tenant: TenantState, id: string): ConversionRec {
  const conv = tenant.conversions.get(id);
  if (!conv) throw new ApiError('conversion_not_found', 'No such conversion.');
  return conv;
}

function limitScope(scope: Scope, conv: ConversionRec): LimitScope {
  return userLimitScope(scope, conv.userId);
}

/** BRL value of a quote: what the limits count. */
function brlValue(quote: QuoteRec): string {
  return quote.direction === 'onramp' ? quote.sourceAmount : quote.targetAmount;
}

type Row = Transition<ConversionRec['status'], ConversionTrigger, ConversionEffect>;
type Effect = (scope: Scope, conv: ConversionRec, input: ConversionInput, row: Row) => void;

const EFFECTS: Record<ConversionEffect, Effect> = {
  reserve_limit(scope, conv, input) {
    const next = reserve(limitScope(scope, conv), conv, brlValue(input.quote as QuoteRec));
    conv.reservedBrl = scope.world.intern(next.reservedBrl);
  },
  consume_quote(scope, conv, input) {
    moveQuote(scope, input.quote as QuoteRec, 'consume', conv.id);
  },
  open_deposit_window(scope, conv) {
    scope.world.schedule(scope.tenant, conv.windowExpiresAt, 'conversion.window', conv.id);
  },
  release_limit(scope, conv) {
    conv.reservedBrl = scope.world.intern(reserve(limitScope(scope, conv), conv, '0').reservedBrl);
  },
  add_received(scope, conv, input) {
    const dp = conv.direction === 'onramp' ? 2 : 6;
    conv.received = scope.world.intern(new Big(conv.received).plus(input.amount ?? '0').toFixed(dp));
  },
  confirm_usdt_deposit(scope, conv) {
    if (conv.direction === 'offramp') conv.usdtAt ??= scope.at;
  },
  dispatch_pix(scope, conv) {
    if (conv.direction === 'offramp') conv.pixAt = scope.at;
  },
  record_pix_payment(scope, conv) {
    conv.pixAt = scope.at;
  },
  open_transaction(scope, conv) {
    const quote = scope.tenant.quotes.get(conv.quoteId) as QuoteRec;
    const tx = openTransaction(scope, quote, conv.id);
    applyTransaction(scope, tx, 'pay');
    conv.transactionId = tx.id;
  },
  schedule_settlement(scope, conv) {
    conv.settleAt = scope.at + ms(scope.tenant.settings.timings.settlementDelaySeconds);
    scope.world.schedule(scope.tenant, conv.settleAt, 'conversion.settle', conv.id);
  },
  enter_standby(scope, conv, _input, row) {
    conv.standbyAt = scope.at;
    conv.standbyReason = row.reason ?? null;
    scope.world.schedule(scope.tenant, scope.at + STANDBY_MS, 'conversion.standby', conv.id);
  },
  take_liquidation_quote(scope, conv) {
    const original = scope.tenant.quotes.get(conv.quoteId) as QuoteRec;
    const pricing = livePricing(scope.tenant.settings.price);
    let priced;
    try {
      priced = price(pricing, conv.direction, { source: conv.received });
    } catch {
      throw new ApiError('operation_support_required', 'The received amount cannot be liquidated automatically; contact support.');
    }
    const brl = conv.direction === 'onramp' ? priced.sourceAmount : priced.targetAmount;
    // The reservation moves to the day and month of the liquidation, at the new amount.
    const reservation = reserve(limitScope(scope, conv), conv, brl, scope.at);
    const quote = insertQuote(scope, {
      userId: conv.userId,
      direction: conv.direction,
      priced,
      walletAddress: original.walletAddress,
      pix:
        original.pixKey === null
          ? null
          : { key: original.pixKey, type: original.pixKeyType, holder: { name: original.holderName ?? '', documentMasked: original.holderDocument ?? '' } },
      at: scope.at,
      pixVerifiedAt: original.pixVerifiedAt,
    });
    moveQuote(scope, quote, 'consume', conv.id);
    conv.reservedBrl = reservation.reservedBrl;
    conv.reservedAt = reservation.reservedAt;
    conv.liquidationQuoteId = quote.id;
    conv.targetAmount = quote.netTargetAmount;
  },
  settle_wallet(scope, conv) {
    const user = scope.tenant.users.get(conv.userId);
    if (user) {
      // Onramp: credited by the USDT bought; offramp: debited by the USDT sold, floored at zero.
      moveWallet(user, conv.direction === 'onramp' ? new Big(conv.targetAmount) : new Big(conv.received).neg(), scope.at);
    }
    if (conv.direction === 'onramp') conv.usdtAt = scope.at;
    conv.completedAt = scope.at;
    conv.settleAt = null;
  },
  complete_transaction(scope, conv) {
    const tx = conv.transactionId === null ? undefined : scope.tenant.transactions.get(conv.transactionId);
    if (tx && tx.status === 'payment_received') applyTransaction(scope, tx, 'settle');
  },
  fail_transaction(scope, conv, input) {
    const tx = conv.transactionId === null ? undefined : scope.tenant.transactions.get(conv.transactionId);
    if (tx && tx.status === 'payment_received') applyTransaction(scope, tx, 'fail', input.reason);
  },
  set_failure(_scope, conv, input) {
    conv.failureReason = input.reason ?? 'settlement_failed';
    conv.settleAt = null;
  },
};

/** Applies a conversion transition: effects, state, `updated_at`, then the row's one event. */
export function applyConversion(scope: Scope, conv: ConversionRec, trigger: ConversionTrigger, input: ConversionInput = {}): void {
  const from = conv.seq < 0 ? null : conv.status;
  const row = step(CONVERSION_MACHINE, from, trigger);
  for (const effect of row.effects) EFFECTS[effect](scope, conv, input, row);
  if (conv.seq < 0) {
    conv.status = row.to;
    scope.tenant.conversions.insert(conv);
  } else {
    scope.tenant.conversions.update(conv, (c) => {
      c.status = row.to;
      c.updatedAt = scope.at;
    });
  }
  const event = row.event ? scope.world.record(scope.tenant, row.event, CONVERSION, conv, scope.at) : null;
  // A move nobody watches is not built (issue 22: idle observers cost nothing).
  if (scope.world.watchingMoves) scope.world.changed(scope.tenant, { id: conv.id, from, to: row.to, trigger, eventId: event?.id ?? null, eventType: event?.type ?? null, at: iso(scope.at) });
}

/** Accepts a quote into a new conversion. */
export function acceptQuote(scope: Scope, quoteId: string): ConversionRec {
  const { world, at } = scope;
  const quote = getQuote(scope.tenant, quoteId);
  // Refusals of the quote machine (quote_expired, quote_already_consumed) come before anything else.
  if (quote.status !== 'active') moveQuote(scope, quote, 'consume');
  const conv: ConversionRec = {
    id: world.random.uuid(),
    seq: -1,
    userId: quote.userId,
    quoteId: quote.id,
    liquidationQuoteId: null,
    direction: quote.direction,
    status: 'awaiting_deposit',
    expected: quote.sourceAmount,
    received: quote.direction === 'onramp' ? '0.00' : '0.000000',
    targetAmount: quote.netTargetAmount,
    windowExpiresAt: at + ms(scope.tenant.settings.timings.depositWindowSeconds),
    standbyAt: null,
    standbyReason: null,
    pixAt: null,
    usdtAt: null,
    settleAt: null,
    completedAt: null,
    failureReason: null,
    createdAt: at,
    updatedAt: at,
    reservedBrl: '0',
    reservedAt: at,
    transactionId: null,
  };
  applyConversion(scope, conv, 'accept', { quote });
  return conv;
}

/**
 * The expire helper: as the window's end, standby `window_expired` when money was received
 * (the limit stays reserved), expired when nothing was.
 */
export function expireConversion(scope: Scope, conv: ConversionRec): void {
  const holding = conv.status === 'awaiting_deposit' && new Big(conv.received).gt(0);
  applyConversion(scope, conv, holding ? 'expire_holding_funds' : 'expire');
}

/** POST /v1/conversions/{id}/liquidate: an offramp's Pix payout starts; an onramp buys its USDT. */
export function liquidateConversion(scope: Scope, conv: ConversionRec): void {
  applyConversion(scope, conv, conv.status === 'standby' && conv.direction === 'onramp' ? 'liquidate_onramp' : 'liquidate');
}

/** Options of a simulated deposit or Pix payment. */
export interface DepositOptions {
  amount?: string | undefined;
  settle?: boolean | undefined;
  confirmed?: boolean | undefined;
  depositAddress?: string | undefined;
  /** Confirmed after the window closed, before the expiry was applied: standby `late_post_window`. */
  late?: boolean | undefined;
}

/** A deposit (offramp, USDT on chain) or a Pix payment (onramp) arrives for a conversion. */
export function receiveFunds(scope: Scope, conv: ConversionRec, options: DepositOptions): void {
  const currency = conv.direction === 'onramp' ? 'BRL' : 'USDT';
  const amount = options.amount === undefined ? new Big(conv.expected) : checkAmount('amount', options.amount, currency);
  const input = { amount: amount.toString() };
  let trigger: ConversionTrigger;
  if (conv.status === 'standby') trigger = 'deposit_in_standby';
  else if (conv.status !== 'awaiting_deposit') {
    // `expired` included: it is terminal, so a deposit to an expired conversion's address is not
    // credited to it (nothing changes; returning the funds is outside the API).
    throw new ApiError('invalid_transaction_state', `This conversion is ${conv.status}; it takes no more funds.`, { state: conv.status });
  } else if (new Big(conv.received).gt(0)) trigger = 'deposit_duplicate';
  else if (options.confirmed === false) trigger = 'deposit_detected';
  else if (options.late === true) trigger = 'deposit_late';
  else if (
    conv.direction === 'offramp' &&
    options.depositAddress !== undefined &&
    options.depositAddress.toLowerCase() !== depositAddress(conv.id)
  ) {
    trigger = 'deposit_wrong_address';
  } else {
    const cmp = amount.cmp(conv.expected);
    trigger = cmp < 0 ? 'deposit_under' : cmp > 0 ? 'deposit_over' : conv.direction === 'onramp' ? 'pix_paid_exact' : 'deposit_confirmed_exact';
  }
  applyConversion(scope, conv, trigger, input);
  if (options.settle && (conv.status as string) === 'funded') applyConversion(scope, conv, 'settle');
}
