/**
 * Conversions through the helpers: every path to completed, standby, liquidation, failures.
 * @module
 */
import Big from 'big.js';
import { FAIL_HELPER_REASONS, WALLET_FIELDS } from '../reference.js';
import type { ScenarioScript } from '../context.js';
import { newConversion } from './bodies.js';

/** Conversion lifecycle scenarios. */
export const LIFECYCLE_SCENARIOS: readonly ScenarioScript[] = [
  {
    id: 'conversions.offramp-completed',
    title: 'Offramp: exact deposit with settle true, to completed',
    promises: 'awaiting_deposit -> completed in one helper call; received_amount = expected; completed_at set',
    async run(ctx) {
      const { conversion } = await newConversion(ctx, 'offramp');
      const done = await ctx.step('deposit helper, settle true', () => ctx.client.testHelpers.conversions.simulateOfframpDeposit(conversion.id, { settle: true }));
      ctx.expectEqual('state sequence', 'awaiting_deposit -> completed', `${conversion.status} -> ${done.status}`);
      ctx.expectTrue('received_amount', `= ${conversion.expected_source_amount}`, sameAmount(done.received_amount, conversion.expected_source_amount), String(done.received_amount));
      ctx.expectTrue('completed_at', 'a timestamp', typeof done.completed_at === 'string', String(done.completed_at));
    },
  },
  {
    id: 'conversions.offramp-funded',
    title: 'Offramp: exact deposit without settle, to funded',
    promises: 'full amount: funded and the Pix payout starts',
    async run(ctx) {
      const { conversion } = await newConversion(ctx, 'offramp');
      const funded = await ctx.step('deposit helper', () => ctx.client.testHelpers.conversions.simulateOfframpDeposit(conversion.id));
      ctx.expectEqual('state sequence', 'awaiting_deposit -> funded', `${conversion.status} -> ${funded.status}`);
    },
  },
  {
    id: 'conversions.onramp-completed',
    title: 'Onramp: Pix paid with settle true, to completed, wallet credited',
    promises: 'Pix payment arrives: funded; with settle true completed and the wallet credited; Wallet balance fields',
    async run(ctx) {
      const { conversion } = await newConversion(ctx, 'onramp');
      const userId = conversion.user_id;
      const before = await ctx.step('wallet before', () => ctx.client.users.wallet(userId));
      ctx.expectFields('Wallet balance', before, WALLET_FIELDS);
      ctx.expectEqual('wallet asset', 'USDT', before.asset);
      const done = await ctx.step('Pix paid helper, settle true', () => ctx.client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { settle: true }));
      ctx.expectEqual('state sequence', 'awaiting_deposit -> completed', `${conversion.status} -> ${done.status}`);
      const after = await ctx.step('wallet after', () => ctx.client.users.wallet(userId));
      ctx.expectTrue('wallet credited', `more than ${before.balance}`, new Big(String(after.balance)).gt(String(before.balance)), String(after.balance));
    },
  },
  {
    id: 'conversions.onramp-funded',
    title: 'Onramp: Pix paid without settle, to funded',
    promises: 'Pix payment arrives: conversion becomes funded',
    async run(ctx) {
      const { conversion } = await newConversion(ctx, 'onramp');
      const funded = await ctx.step('Pix paid helper', () => ctx.client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id));
      ctx.expectEqual('state sequence', 'awaiting_deposit -> funded', `${conversion.status} -> ${funded.status}`);
    },
  },
  {
    id: 'conversions.standby',
    title: 'Standby: under_funded, over_funded, later deposits',
    promises: 'an underpaid or overpaid deposit gives standby with that reason, standby_expires_at = standby_at + 7 days; later deposits add to received_amount without changing the state',
    async run(ctx) {
      const under = await newConversion(ctx, 'offramp', '10.000000');
      const u = await ctx.step('underpaid deposit', () => ctx.client.testHelpers.conversions.simulateOfframpDeposit(under.conversion.id, { amount: '4.000000' }));
      ctx.expectEqual('underpaid: state sequence', 'awaiting_deposit -> standby', `${under.conversion.status} -> ${u.status}`);
      ctx.expectEqual('underpaid: standby_reason', 'under_funded', u.standby_reason);
      const week = (Date.parse(String(u.standby_expires_at)) - Date.parse(String(u.standby_at))) / 86_400_000;
      ctx.expectEqual('standby window (days)', 7, week);
      const later = await ctx.step('deposit in standby', () => ctx.client.testHelpers.conversions.simulateOfframpDeposit(under.conversion.id, { amount: '1.000000' }));
      ctx.expectEqual('deposit in standby: status', 'standby', later.status);
      ctx.expectTrue('deposit in standby: received_amount', '5 (4 + 1)', sameAmount(later.received_amount, '5'), String(later.received_amount));
      const over = await newConversion(ctx, 'offramp', '10.000000');
      const o = await ctx.step('overpaid deposit', () => ctx.client.testHelpers.conversions.simulateOfframpDeposit(over.conversion.id, { amount: '12.000000' }));
      ctx.expectEqual('overpaid: state sequence', 'awaiting_deposit -> standby', `${over.conversion.status} -> ${o.status}`);
      ctx.expectEqual('overpaid: standby_reason', 'over_funded', o.standby_reason);
    },
  },
  {
    id: 'conversions.standby-gaps',
    title: 'What the reference leaves open: an onramp Pix payment of another amount, a deposit after expiry',
    promises: 'Nothing (not shown): the answers are findings',
    async run(ctx) {
      const on = await newConversion(ctx, 'onramp', '100.00');
      try {
        const c = await ctx.client.testHelpers.conversions.simulateOnrampPixPaid(on.conversion.id, { amount: '50.00' });
        ctx.check('onramp paid 50 of 100', 'finding', 'standby under_funded', `${c.status} ${c.standby_reason ?? ''}`.trim());
      } catch (error) {
        ctx.check('onramp paid 50 of 100', 'finding', 'standby under_funded', describeError(error));
      }
      const off = await newConversion(ctx, 'offramp');
      await ctx.step('expire helper', () => ctx.client.testHelpers.conversions.expire(off.conversion.id));
      try {
        const c = await ctx.client.testHelpers.conversions.simulateOfframpDeposit(off.conversion.id);
        ctx.check('deposit after expiry', 'finding', '409 invalid_transaction_state', `${c.status} ${c.standby_reason ?? ''}`.trim());
      } catch (error) {
        ctx.check('deposit after expiry', 'finding', '409 invalid_transaction_state', describeError(error));
      }
    },
  },
  {
    id: 'conversions.liquidate',
    title: 'Liquidate a standby conversion; liquidate outside standby',
    promises: 'liquidate in standby answers status liquidated with liquidation_quote_id set; outside standby it is refused (code not shown)',
    async run(ctx) {
      const { conversion } = await newConversion(ctx, 'offramp', '10.000000');
      await ctx.expectError('liquidate in awaiting_deposit', () => ctx.client.conversions.liquidate(conversion.id), 'invalid_transaction_state', { level: 'finding' });
      const standby = await ctx.step('underpaid deposit', () => ctx.client.testHelpers.conversions.simulateOfframpDeposit(conversion.id, { amount: '6.000000' }));
      const liquidated = await ctx.step('liquidate', () => ctx.client.conversions.liquidate(conversion.id));
      ctx.expectEqual('state sequence', 'awaiting_deposit -> standby -> liquidated', `${conversion.status} -> ${standby.status} -> ${liquidated.status}`);
      ctx.expectTrue('liquidation_quote_id', 'a uuid', typeof liquidated.liquidation_quote_id === 'string', String(liquidated.liquidation_quote_id));
      if (typeof liquidated.liquidation_quote_id === 'string') {
        const quote = await ctx.step('the liquidation quote', () => ctx.client.quotes.retrieve(String(liquidated.liquidation_quote_id)));
        ctx.expectEqual('liquidation quote status', 'consumed', quote.status);
        ctx.expectTrue('liquidation quote amount', 'the received 6', sameAmount(quote.source_amount, '6'), String(quote.source_amount));
      }
    },
  },
  {
    id: 'conversions.fail-reasons',
    title: 'The fail helper with each reason',
    promises: 'fail helper: the conversion becomes failed with failure_reason = the reason (from which states: not shown; tried from awaiting_deposit)',
    async run(ctx) {
      for (const reason of FAIL_HELPER_REASONS) {
        const { conversion } = await newConversion(ctx, 'offramp');
        try {
          const failed = await ctx.client.testHelpers.conversions.fail(conversion.id, { reason });
          ctx.expectEqual(`${reason}: state sequence`, 'awaiting_deposit -> failed', `${conversion.status} -> ${failed.status}`);
          ctx.expectEqual(`${reason}: failure_reason`, reason, failed.failure_reason);
        } catch (error) {
          ctx.check(`${reason}: accepted from awaiting_deposit`, 'finding', 'failed', describeError(error));
        }
      }
    },
  },
];

function sameAmount(a: unknown, b: unknown): boolean {
  try {
    return new Big(String(a)).eq(String(b));
  } catch {
    return false;
  }
}

function describeError(error: unknown): string {
  const e = error as { status?: number; code?: string };
  if (e.status === undefined) throw error;
  return `${e.status} ${String(e.code)}`;
}
