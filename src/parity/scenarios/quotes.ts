/**
 * Quotes: onramp, offramp, the sandbox Pix key table, accept, cancel and expiry.
 * @module
 */
import { cnpjFrom } from '../check-digits.js';
import { CONVERSION_FIELDS, PIX_EVP_NOT_FOUND, PIX_EVP_RESOLVES, QUOTE_FIELDS } from '../reference.js';
import type { PixKeyType } from '../../index.js';
import type { ScenarioScript } from '../context.js';
import { newConversion, offramp, onramp } from './bodies.js';

/** Quote scenarios. */
export const QUOTE_SCENARIOS: readonly ScenarioScript[] = [
  {
    id: 'quotes.onramp',
    title: 'Onramp quote (BRL to USDT)',
    promises: 'Quote fields and types; status active; currencies as asked; retrievable by id',
    async run(ctx) {
      const userId = await ctx.approvedUser();
      const quote = await ctx.step('create', () => ctx.client.quotes.create(onramp(userId)));
      ctx.expectStatusDecision('create', 201);
      ctx.expectFields('Quote', quote, QUOTE_FIELDS);
      ctx.expectEqual('status', 'active', quote.status);
      ctx.expectEqual('source_currency', 'BRL', quote.source_currency);
      ctx.expectEqual('target_currency', 'USDT', quote.target_currency);
      ctx.expectEqual('destination_wallet_network', 'polygon', quote.destination_wallet_network);
      const ttl = (Date.parse(String(quote.expires_at)) - Date.parse(String(quote.created_at))) / 1000;
      ctx.expectOneOf('validity (expires_at - created_at, s)', [300, 30], ttl);
      ctx.expectEqual('validity (s)', 300, ttl, 'finding');
      const again = await ctx.step('retrieve', () => ctx.client.quotes.retrieve(quote.id));
      ctx.expectEqual('retrieve: same id', quote.id, again.id);
      await ctx.expectError('unknown quote', () => ctx.client.quotes.retrieve('00000000-0000-4000-8000-000000000000'), 'quote_not_found');
    },
  },
  {
    id: 'quotes.offramp',
    title: 'Offramp quote (USDT to BRL) to a CPF Pix key',
    promises: 'Quote fields and types; status active; the Pix key resolves to a holder; deposit_network polygon',
    async run(ctx) {
      const userId = await ctx.approvedUser();
      const quote = await ctx.step('create', () => ctx.client.quotes.create(offramp(userId)));
      ctx.expectFields('Quote', quote, QUOTE_FIELDS);
      ctx.expectEqual('status', 'active', quote.status);
      ctx.expectEqual('source_currency', 'USDT', quote.source_currency);
      ctx.expectEqual('target_currency', 'BRL', quote.target_currency);
      ctx.expectEqual('pix_key_type', 'cpf', quote.pix_key_type);
      ctx.expectEqual('deposit_network', 'polygon', quote.deposit_network);
      ctx.expectTrue('pix_holder_name', 'a resolved holder', typeof quote.pix_holder_name === 'string' && quote.pix_holder_name !== '', String(quote.pix_holder_name));
    },
  },
  {
    id: 'quotes.pix-keys',
    title: 'The sandbox Pix key table',
    promises: 'Valid CPF, CNPJ and the resolving EVP resolve; the not-found EVP and an invalid CPF give 422 pix_key_not_found; e-mail and phone fixtures as configured',
    async run(ctx) {
      const userId = await ctx.approvedUser();
      const f = ctx.pixFixtures;
      const resolving: Array<[string, string, PixKeyType, 'promise' | 'finding']> = [
        ['cpf', ctx.cpf(), 'cpf', 'promise'],
        ['cnpj', cnpjFrom('112223330001'), 'cnpj', 'promise'],
        ['evp 0...1', PIX_EVP_RESOLVES, 'evp', 'promise'],
        ['email fixture', f.email, 'email', 'finding'],
        ['phone fixture', f.phone, 'phone', 'finding'],
      ];
      for (const [label, key, type, level] of resolving) {
        try {
          const quote = await ctx.client.quotes.create(offramp(userId, '10.000000', key, type));
          ctx.check(`${label} resolves`, level, 'a quote with a holder', `quote, holder ${JSON.stringify(quote.pix_holder_name)}`, typeof quote.pix_holder_name === 'string');
        } catch (error) {
          const e = error as { status?: number; code?: string };
          if (e.status === undefined) throw error;
          ctx.check(`${label} resolves`, level, 'a quote with a holder', `${e.status} ${String(e.code)}`, false);
        }
      }
      const notFound: Array<[string, string, PixKeyType, 'promise' | 'finding']> = [
        ['evp 0...0', PIX_EVP_NOT_FOUND, 'evp', 'promise'],
        ['cpf with wrong check digits', '12345678900', 'cpf', 'promise'],
        ['not-found email fixture', f.notFoundEmail, 'email', 'finding'],
        ['not-found phone fixture', f.notFoundPhone, 'phone', 'finding'],
      ];
      for (const [label, key, type, level] of notFound) {
        await ctx.expectError(label, () => ctx.client.quotes.create(offramp(userId, '10.000000', key, type)), 'pix_key_not_found', { level });
      }
    },
  },
  {
    id: 'quotes.accept',
    title: 'Accept a quote, then accept it again',
    promises: 'accept creates an awaiting_deposit conversion; the quote becomes consumed with consumed_by_conversion_id; a second accept gives 409 quote_already_consumed',
    async run(ctx) {
      const { quote, conversion } = await newConversion(ctx, 'offramp');
      ctx.expectStatusDecision('accept', 201);
      ctx.expectFields('Conversion', conversion, CONVERSION_FIELDS);
      ctx.expectEqual('status', 'awaiting_deposit', conversion.status);
      ctx.expectEqual('quote_id', quote.id, conversion.quote_id);
      ctx.expectEqual('transaction_type (offramp)', 'pix_offramp', conversion.transaction_type, 'finding');
      const window = (Date.parse(String(conversion.deposit_window_expires_at)) - Date.parse(String(conversion.created_at))) / 1000;
      ctx.expectEqual('deposit window (s)', 900, window);
      const consumed = await ctx.step('retrieve the quote', () => ctx.client.quotes.retrieve(quote.id));
      ctx.expectEqual('quote status after accept', 'consumed', consumed.status);
      ctx.expectEqual('consumed_by_conversion_id', conversion.id, consumed.consumed_by_conversion_id);
      ctx.expectTrue('consumed_at', 'a timestamp', typeof consumed.consumed_at === 'string', String(consumed.consumed_at));
      await ctx.expectError('second accept', () => ctx.client.quotes.accept(quote.id), 'quote_already_consumed');
      const onrampConv = await newConversion(ctx, 'onramp');
      ctx.expectEqual('onramp transaction_type', 'pix_onramp', onrampConv.conversion.transaction_type);
    },
  },
  {
    id: 'conversions.cancel',
    title: 'Cancel an awaiting_deposit conversion, then cancel it again',
    promises: 'cancel answers the conversion with status canceled; cancel is valid only in awaiting_deposit',
    async run(ctx) {
      const { conversion } = await newConversion(ctx, 'offramp');
      const canceled = await ctx.step('cancel', () => ctx.client.conversions.cancel(conversion.id));
      ctx.expectEqual('state sequence', 'awaiting_deposit -> canceled', `${conversion.status} -> ${canceled.status}`);
      const read = await ctx.step('retrieve', () => ctx.client.conversions.retrieve(conversion.id));
      ctx.expectEqual('retrieved status', 'canceled', read.status);
      await ctx.expectError('cancel again', () => ctx.client.conversions.cancel(conversion.id), 'invalid_transaction_state', { level: 'finding' });
      await ctx.expectError('unknown conversion', () => ctx.client.conversions.retrieve('00000000-0000-4000-8000-000000000000'), 'conversion_not_found');
    },
  },
  {
    id: 'conversions.expire',
    title: 'Expire an awaiting_deposit conversion with the expire helper',
    promises: 'expire helper: awaiting_deposit with nothing received becomes expired',
    async run(ctx) {
      const { conversion } = await newConversion(ctx, 'offramp');
      const expired = await ctx.step('expire helper', () => ctx.client.testHelpers.conversions.expire(conversion.id));
      ctx.expectEqual('state sequence', 'awaiting_deposit -> expired', `${conversion.status} -> ${expired.status}`);
      ctx.expectFields('Conversion', expired, CONVERSION_FIELDS);
    },
  },
];
