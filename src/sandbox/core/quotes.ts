/**
 * Quotes: creation with pricing and Pix key resolution, and the quote machine.
 * @module
 */
import type { CreateQuoteBody } from '../../models/index.js';
import type { Scope } from './world.js';
import { ApiError } from './errors.js';
import { QUOTE_MACHINE, type QuoteTrigger, step } from './machines.js';
import { resolvePixKey } from './pix.js';
import { type Direction, type PricingSettings, price } from './pricing.js';
import { ms } from './settings.js';
import type { QuoteRec, TenantState } from './state.js';
import { liveUser } from './users.js';

/** The price feed, or 503 price_feed_unavailable. */
export function livePricing(pricing: PricingSettings): PricingSettings {
  if (!pricing.available) throw new ApiError('price_feed_unavailable', 'The price feed is unavailable; try again later.');
  return pricing;
}

/** A quote of the tenant, or quote_not_found. */
export function getQuote(tenant: TenantState, id: string): QuoteRec {
  const quote = tenant.quotes.get(id);
  if (!quote) throw new ApiError('quote_not_found', 'No such quote.');
  return quote;
}

/**
 * quote_already_consumed naming what consumed the quote: `details.conversion_id` (the
 * conversion, or `null` when `POST /v1/transactions` consumed it; then `details.transaction_id`).
 */
function alreadyConsumed(tenant: TenantState, quote: QuoteRec): ApiError {
  if (quote.consumedBy !== null) {
    return new ApiError('quote_already_consumed', `The quote has already been accepted: it became conversion ${quote.consumedBy}. Retrieve that conversion, or request a new quote.`, {
      conversion_id: quote.consumedBy,
    });
  }
  const tx = tenant.transactions.all().find((t) => t.quoteId === quote.id);
  return new ApiError('quote_already_consumed', `The quote has already been used: it became transaction ${tx?.id ?? 'unknown'}. Request a new quote.`, {
    conversion_id: null,
    transaction_id: tx?.id ?? null,
  });
}

/** Applies a quote transition (refusals answer quote_expired, quote_already_consumed...). */
export function moveQuote(scope: Scope, quote: QuoteRec, trigger: QuoteTrigger, consumedBy: string | null = null): void {
  if (trigger === 'consume' && quote.status === 'consumed') throw alreadyConsumed(scope.tenant, quote);
  const row = step(QUOTE_MACHINE, quote.status, trigger);
  scope.tenant.quotes.update(quote, (q) => {
    q.status = row.to;
    if (trigger === 'consume') {
      q.consumedAt = scope.at;
      q.consumedBy = consumedBy;
    }
  });
}

/** Creates a quote from a request body. */
export function createQuote(scope: Scope, body: CreateQuoteBody): QuoteRec {
  const { tenant, at } = scope;
  liveUser(tenant, body.user_id);
  const direction: Direction = body.source_currency === 'BRL' ? 'onramp' : 'offramp';
  const holder = body.source_currency === 'USDT' ? resolvePixKey(body.pix_key_type, body.pix_key) : null;
  const priced = price(livePricing(tenant.settings.price), direction, { source: body.source_amount, target: body.target_amount });
  return insertQuote(scope, {
    userId: body.user_id,
    direction,
    priced,
    walletAddress: body.source_currency === 'BRL' ? body.destination_wallet_address : null,
    pix: body.source_currency === 'USDT' && holder ? { key: body.pix_key, type: body.pix_key_type, holder } : null,
    at,
  });
}

/** Stores a priced quote (also used for liquidation quotes). */
export function insertQuote(
  scope: Scope,
  q: {
    userId: string;
    direction: Direction;
    priced: ReturnType<typeof price>;
    walletAddress: string | null;
    pix: { key: string; type: QuoteRec['pixKeyType']; holder: { name: string; documentMasked: string } } | null;
    at: number;
    pixVerifiedAt?: number | null;
  },
): QuoteRec {
  const { world, tenant } = scope;
  step(QUOTE_MACHINE, null, 'create');
  const rec: QuoteRec = {
    id: world.random.uuid(),
    seq: 0,
    userId: q.userId,
    direction: q.direction,
    sourceAmount: world.intern(q.priced.sourceAmount),
    targetAmount: world.intern(q.priced.targetAmount),
    exchangeRate: world.intern(q.priced.exchangeRate),
    spreadBps: q.priced.spreadBps,
    feeUsdt: world.intern(q.priced.withdrawalFeeUsdt),
    netTargetAmount: world.intern(q.priced.netTargetAmount),
    walletAddress: q.walletAddress === null ? null : world.intern(q.walletAddress),
    pixKey: q.pix ? world.intern(q.pix.key) : null,
    pixKeyType: q.pix?.type ?? null,
    holderName: q.pix ? world.intern(q.pix.holder.name) : null,
    holderDocument: q.pix ? world.intern(q.pix.holder.documentMasked) : null,
    pixVerifiedAt: q.pix ? (q.pixVerifiedAt ?? q.at) : null,
    status: 'active',
    expiresAt: q.at + ms(tenant.settings.timings.quoteTtlSeconds),
    consumedAt: null,
    consumedBy: null,
    createdAt: q.at,
  };
  tenant.quotes.insert(rec);
  world.schedule(tenant, rec.expiresAt, 'quote.ttl', rec.id);
  return rec;
}
