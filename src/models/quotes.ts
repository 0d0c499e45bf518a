/**
 * Quotes: a priced offer to convert, valid for a few minutes, accepted into a conversion.
 * @module
 */
import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { Decimal, ListParams, NullableString, OptionalTimestamp, Timestamp, Uuid, openEnum } from './common.js';

/** Quote states, in the reference's spelling (`cancelled`). */
export const QUOTE_STATUSES = ['active', 'expired', 'consumed', 'cancelled'] as const;
/** A quote's state. */
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

/** Pix key types usable for an offramp payout. */
export const PIX_KEY_TYPES = ['cpf', 'cnpj', 'email', 'phone', 'evp'] as const;
/** A Pix key type. */
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

/** Networks the platform uses for USDT. */
export const NETWORKS = ['polygon'] as const;

/** A priced offer to convert between BRL and USDT. */
export const Quote = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    user_id: z.string(),
    source_amount: z.string(),
    source_currency: openEnum(['BRL', 'USDT']),
    target_amount: z.string(),
    target_currency: openEnum(['BRL', 'USDT']),
    exchange_rate: z.string(),
    spread_bps: z.number(),
    withdrawal_fee_usdt: z.string(),
    net_target_amount: z.string(),
    destination_wallet_address: NullableString,
    destination_wallet_network: z.nullable(openEnum(NETWORKS)),
    pix_key: NullableString,
    pix_key_type: z.nullable(openEnum(PIX_KEY_TYPES)),
    deposit_network: z.nullable(openEnum(NETWORKS)),
    pix_holder_name: NullableString,
    pix_holder_document_masked: NullableString,
    pix_key_verified_at: OptionalTimestamp,
    status: openEnum(QUOTE_STATUSES),
    expires_at: Timestamp,
    consumed_at: OptionalTimestamp,
    consumed_by_conversion_id: NullableString,
    created_at: Timestamp,
  }));
/** A priced offer to convert between BRL and USDT. */
export type Quote = z.infer<typeof Quote>;

// Exactly one of source_amount and target_amount: checked in a refinement so that each
// direction stays one flat object schema (the OpenAPI document and the sandbox read its shape);
// the exported types say the same at compile time (QuoteAmount).
function oneAmount(body: { source_amount?: string | undefined; target_amount?: string | undefined }): boolean {
  return (body.source_amount === undefined) !== (body.target_amount === undefined);
}
function amountsGiven(input: unknown): string {
  const body = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  return body['source_amount'] === undefined ? 'neither' : 'both';
}
const ONE_AMOUNT = {
  error: (issue: { input: unknown }): string => `Expected exactly one of source_amount and target_amount, received ${amountsGiven(issue.input)}`,
  path: ['source_amount'],
};

/**
 * The amount of a quote: exactly one of `source_amount` (what the user pays) and
 * `target_amount` (what the user receives), as a decimal string. Giving both, or neither, does
 * not compile.
 */
export type QuoteAmount =
  | {
      /** The amount paid, in `source_currency` (`"100.00"`); the platform computes the target. */
      source_amount: string;
      /** Not with `source_amount`. */
      target_amount?: never;
    }
  | {
      /** Not with `target_amount`. */
      source_amount?: never;
      /** The amount received, in `target_currency` (`"20.000000"`); the platform computes the source. */
      target_amount: string;
    };

// One object type per amount, as an editor shows it (not an intersection).
type WithAmount<T> = QuoteAmount extends infer A ? (A extends unknown ? { [K in keyof (Omit<T, keyof QuoteAmount> & A)]: (Omit<T, keyof QuoteAmount> & A)[K] } : never) : never;

/** Body of an onramp quote: BRL paid by Pix becomes USDT delivered to a wallet. */
export const OnrampQuoteBody = /* @__PURE__ */ lazy(() =>
  z
    .strictObject({
      user_id: Uuid,
      source_currency: z.literal('BRL'),
      target_currency: z.literal('USDT'),
      source_amount: z.optional(Decimal),
      target_amount: z.optional(Decimal),
      destination_wallet_address: z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/, 'Expected a Polygon address (0x and 40 hex digits)')),
      destination_wallet_network: z.enum(NETWORKS),
    })
    .check(z.refine(oneAmount, ONE_AMOUNT)));
/** Body of an onramp quote, with exactly one of `source_amount` and `target_amount` ({@link QuoteAmount}). */
export type OnrampQuoteBody = WithAmount<z.infer<typeof OnrampQuoteBody>>;

/** Body of an offramp quote: USDT deposited on chain becomes BRL paid out by Pix. */
export const OfframpQuoteBody = /* @__PURE__ */ lazy(() =>
  z
    .strictObject({
      user_id: Uuid,
      source_currency: z.literal('USDT'),
      target_currency: z.literal('BRL'),
      source_amount: z.optional(Decimal),
      target_amount: z.optional(Decimal),
      pix_key: z.string().check(z.minLength(1), z.maxLength(140)),
      pix_key_type: z.enum(PIX_KEY_TYPES),
      deposit_network: z.enum(NETWORKS),
    })
    .check(z.refine(oneAmount, ONE_AMOUNT)));
/** Body of an offramp quote, with exactly one of `source_amount` and `target_amount` ({@link QuoteAmount}). */
export type OfframpQuoteBody = WithAmount<z.infer<typeof OfframpQuoteBody>>;

/** Body of `POST /v1/quotes`: one of the two directions, told apart by `source_currency`. */
export const CreateQuoteBody = /* @__PURE__ */ lazy(() =>
  z.discriminatedUnion('source_currency', [OnrampQuoteBody, OfframpQuoteBody])) as unknown as z.ZodMiniType<
  // What it parses, as its type says: the refinements guarantee one amount, which zod's inferred type cannot express.
  OnrampQuoteBody | OfframpQuoteBody
>;
/** Body of `POST /v1/quotes`: an onramp or an offramp quote, each with exactly one amount. */
export type CreateQuoteBody = OnrampQuoteBody | OfframpQuoteBody;

/** Query of `GET /v1/quotes`. */
export const ListQuotesParams = /* @__PURE__ */ lazy(() =>
  z.extend(ListParams, {
    user_id: z.optional(Uuid),
    status: z.optional(z.enum(QUOTE_STATUSES)),
  }));
/** Query of `GET /v1/quotes`. */
export type ListQuotesParams = z.infer<typeof ListQuotesParams>;

/** Body of `POST /v1/quotes/{id}/accept`: nothing is required; the body is reserved. */
export const AcceptQuoteBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({}));
/** Body of `POST /v1/quotes/{id}/accept`. */
export type AcceptQuoteBody = z.infer<typeof AcceptQuoteBody>;
