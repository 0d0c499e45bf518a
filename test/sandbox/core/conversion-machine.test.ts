/**
 * Every row of the conversion transition table, driven through the public client over
 * `sandbox.fetch`: state, timestamps, amounts, the one event emitted, and the refusals.
 */
import { describe, expect, it } from 'vitest';
import { CONVERSION_MACHINE } from '../../../src/sandbox/index.js';
import { T0, expectCode, setup } from '../fixture.js';

const MIN = 60_000;
const DAY = 86_400_000;

describe('conversion machine', () => {
  it('accept: quote active -> awaiting_deposit, quote consumed, deposit instructions, conversion.created', async () => {
    const f = setup();
    const userId = await f.user();
    const quote = await f.offrampQuote(userId);
    f.newEvents();
    const conv = await f.client.quotes.accept(quote.id);
    expect(conv).toMatchObject({
      status: 'awaiting_deposit',
      transaction_type: 'pix_offramp',
      expected_source_amount: '100.000000',
      received_amount: '0.000000',
      target_amount: quote.net_target_amount,
      deposit_window_expires_at: new Date(T0 + 15 * MIN).toISOString(),
      deposit_address_network: 'polygon',
    });
    expect(conv.deposit_address).toMatch(/^0x[0-9a-f]{40}$/);
    const consumed = await f.client.quotes.retrieve(quote.id);
    expect(consumed).toMatchObject({ status: 'consumed', consumed_by_conversion_id: conv.id, consumed_at: new Date(T0).toISOString() });
    expect(f.newEvents()).toEqual([{ type: 'conversion.created', object: expect.objectContaining({ id: conv.id, status: 'awaiting_deposit' }) }]);

    const userId2 = await f.user();
    const onramp = await f.client.quotes.accept((await f.onrampQuote(userId2)).id);
    expect(onramp.pix_qr_code).toMatch(/^000201/);
    expect(onramp.deposit_address).toBeNull();
  });

  it('accept refusals: consumed -> quote_already_consumed, expired -> quote_expired, cancelled -> invalid_transaction_state', async () => {
    const f = setup();
    const userId = await f.user();
    const quote = await f.offrampQuote(userId);
    await f.client.quotes.accept(quote.id);
    await expectCode(f.client.quotes.accept(quote.id), 'quote_already_consumed', 409);
    const old = await f.offrampQuote(userId);
    await f.sandbox.clock.advance({ minutes: 5 });
    expect((await f.client.quotes.retrieve(old.id)).status).toBe('expired');
    await expectCode(f.client.quotes.accept(old.id), 'quote_expired', 409);
    const doomed = await f.offrampQuote(userId);
    await f.client.users.delete(userId);
    expect((await f.client.quotes.retrieve(doomed.id)).status).toBe('cancelled');
    await expectCode(f.client.quotes.accept(doomed.id), 'invalid_transaction_state', 409);
  });

  it('cancel: awaiting_deposit -> canceled, limit released, conversion.canceled; not from funded', async () => {
    const f = setup({ limits: { user: { daily: '540.00' } } });
    const userId = await f.user();
    const first = await f.client.quotes.accept((await f.onrampQuote(userId)).id);
    // The user's daily limit is used up by the reservation...
    await expectCode(f.client.quotes.accept((await f.onrampQuote(userId)).id), 'transaction_limit_exceeded', 422);
    f.newEvents();
    const canceled = await f.client.conversions.cancel(first.id);
    expect(canceled.status).toBe('canceled');
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.canceled']);
    // ...and free again once released.
    const second = await f.client.quotes.accept((await f.onrampQuote(userId)).id);
    await f.client.testHelpers.conversions.simulateOnrampPixPaid(second.id);
    await expectCode(f.client.conversions.cancel(second.id), 'invalid_transaction_state', 409);
  });

  it('offramp exact deposit: awaiting_deposit -> funded, Pix payout dispatched, transaction.sending_pix', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    const funded = await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id);
    expect(funded).toMatchObject({ status: 'funded', received_amount: '100.000000', completed_at: null });
    expect(funded.pix_tx_id).not.toBeNull();
    expect(funded.usdt_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(f.newEvents()).toEqual([{ type: 'transaction.sending_pix', object: expect.objectContaining({ id: conv.id, status: 'funded' }) }]);
  });

  it('onramp Pix paid: awaiting_deposit -> funded with a transaction record, and no event', async () => {
    const f = setup();
    const conv = await f.conversion('onramp');
    const funded = await f.client.testHelpers.conversions.simulateOnrampPixPaid(conv.id);
    expect(funded).toMatchObject({ status: 'funded', received_amount: '540.00' });
    expect(f.newEvents()).toEqual([]);
    const txs = await f.client.transactions.list({ user_id: conv.user_id });
    expect(txs.data).toHaveLength(1);
    expect(txs.data[0]).toMatchObject({ status: 'payment_received', quote_id: conv.quote_id, source_amount: '540.00', pix_paid_at: new Date(T0).toISOString() });
  });

  it.each([
    ['under_funded', '60.000000', 'offramp'],
    ['over_funded', '150.000000', 'offramp'],
    ['under_funded', '100.00', 'onramp'],
    ['over_funded', '600.00', 'onramp'],
  ] as const)('deposit -> standby %s (%s, %s), conversion.standby carries the amounts', async (reason, amount, direction) => {
    const f = setup();
    const conv = await f.conversion(direction);
    const helpers = f.client.testHelpers.conversions;
    const after =
      direction === 'offramp' ? await helpers.simulateOfframpDeposit(conv.id, { amount }) : await helpers.simulateOnrampPixPaid(conv.id, { amount });
    expect(after).toMatchObject({
      status: 'standby',
      standby_reason: reason,
      received_amount: amount,
      standby_at: new Date(T0).toISOString(),
      standby_expires_at: new Date(T0 + 7 * DAY).toISOString(),
    });
    const events = f.newEvents();
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe('conversion.standby');
    expect(events[0]?.object).toMatchObject({ standby_reason: reason, received_amount: amount, expected_source_amount: conv.expected_source_amount });
  });

  it('unconfirmed deposit stays awaiting; the window then passes -> standby window_expired', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    const detected = await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { amount: '100.000000', confirmed: false });
    expect(detected).toMatchObject({ status: 'awaiting_deposit', received_amount: '100.000000' });
    expect(f.newEvents()).toEqual([]);
    await f.sandbox.clock.advance({ minutes: 15 });
    const after = await f.client.conversions.retrieve(conv.id);
    expect(after).toMatchObject({ status: 'standby', standby_reason: 'window_expired', standby_at: new Date(T0 + 15 * MIN).toISOString() });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.standby']);
  });

  it('a second deposit while awaiting -> standby duplicate_deposit', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { amount: '40.000000', confirmed: false });
    const after = await f.client.testHelpers.conversions.deposit(conv.id, { amount: '60.000000' });
    expect(after).toMatchObject({ status: 'standby', standby_reason: 'duplicate_deposit', received_amount: '100.000000' });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.standby']);
  });

  it('a deposit to another address -> standby wrong_address', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    const after = await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { deposit_address: '0x2222222222222222222222222222222222222222' });
    expect(after).toMatchObject({ status: 'standby', standby_reason: 'wrong_address', received_amount: '100.000000' });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.standby']);
  });

  it('window passes with nothing received -> expired; a deposit after that is refused (expired is terminal)', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    await f.sandbox.clock.advance({ minutes: 14 });
    expect((await f.client.conversions.retrieve(conv.id)).status).toBe('awaiting_deposit');
    await f.sandbox.clock.advance({ minutes: 1 });
    const expired = await f.client.conversions.retrieve(conv.id);
    expect(expired).toMatchObject({ status: 'expired', updated_at: new Date(T0 + 15 * MIN).toISOString() });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.expired']);
    await expectCode(f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id), 'invalid_transaction_state', 409);
    expect(await f.client.conversions.retrieve(conv.id)).toMatchObject({ status: 'expired', received_amount: '0.000000' });
    expect(f.newEvents()).toEqual([]);
  });

  it('expire helper -> expired (at occurred_at); refused once expired', async () => {
    const f = setup();
    const conv = await f.conversion('onramp');
    await f.sandbox.clock.advance({ minutes: 2 });
    const expired = await f.client.testHelpers.conversions.expire(conv.id, { occurred_at: new Date(T0 + MIN).toISOString() });
    expect(expired).toMatchObject({ status: 'expired', updated_at: new Date(T0 + MIN).toISOString() });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.expired']);
    await expectCode(f.client.testHelpers.conversions.expire(conv.id), 'invalid_transaction_state', 409);
  });

  it('late deposits in standby add to received_amount, with no state change and no event', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { amount: '30.000000' });
    f.newEvents();
    const after = await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { amount: '20.500000' });
    expect(after).toMatchObject({ status: 'standby', standby_reason: 'under_funded', received_amount: '50.500000' });
    expect(f.newEvents()).toEqual([]);
  });

  it('funded -> completed with settle: offramp debits the wallet floored at zero; onramp credits it', async () => {
    const f = setup();
    const off = await f.conversion('offramp');
    const done = await f.client.testHelpers.conversions.simulateOfframpDeposit(off.id, { settle: true });
    expect(done).toMatchObject({ status: 'completed', completed_at: new Date(T0).toISOString() });
    expect(f.newEvents().map((e) => e.type)).toEqual(['transaction.sending_pix', 'conversion.completed']);
    expect((await f.client.users.wallet(off.user_id)).balance).toBe('0.000000');

    const on = await f.conversion('onramp');
    const credited = await f.client.testHelpers.conversions.simulateOnrampPixPaid(on.id, { settle: true });
    expect(credited.status).toBe('completed');
    expect(credited.usdt_tx_hash).toMatch(/^0x/);
    expect(f.newEvents().map((e) => e.type)).toEqual(['transaction.completed', 'conversion.completed']);
    expect((await f.client.users.wallet(on.user_id)).balance).toBe(on.target_amount);
    const [tx] = (await f.client.transactions.list({ user_id: on.user_id })).data;
    expect(tx).toMatchObject({ status: 'completed', completed_at: new Date(T0).toISOString() });
  });

  it('funded -> completed by the settlement timer (60 s of virtual time)', async () => {
    const f = setup();
    const conv = await f.conversion('onramp');
    await f.client.testHelpers.conversions.simulateOnrampPixPaid(conv.id);
    await f.sandbox.clock.advance({ seconds: 59 });
    expect((await f.client.conversions.retrieve(conv.id)).status).toBe('funded');
    await f.sandbox.clock.advance({ seconds: 1 });
    expect(await f.client.conversions.retrieve(conv.id)).toMatchObject({ status: 'completed', completed_at: new Date(T0 + MIN).toISOString() });
  });

  it('funded -> failed on a settlement error (fail-pix): pix_send_failed, transaction failed too', async () => {
    const f = setup();
    const conv = await f.conversion('onramp');
    await f.client.testHelpers.conversions.simulateOnrampPixPaid(conv.id);
    const failed = await f.client.testHelpers.conversions.failPix(conv.id);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'pix_send_failed' });
    expect(f.newEvents().map((e) => e.type)).toEqual(['transaction.failed', 'conversion.failed']);
    await expectCode(f.client.testHelpers.conversions.failPix(conv.id), 'invalid_transaction_state', 409);
    // The settlement timer that was pending does nothing any more.
    await f.sandbox.clock.advance({ minutes: 5 });
    expect((await f.client.conversions.retrieve(conv.id)).status).toBe('failed');
  });

  it('standby -> liquidated at the moved price, with a consumed liquidation quote; then completed; or failed', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    await expectCode(f.client.conversions.liquidate(conv.id), 'invalid_transaction_state', 409);
    await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { amount: '50.000000' });
    f.newEvents();
    f.sandbox.setPrice({ midRate: '5.00', spreadBps: 100 });
    const liquidated = await f.client.conversions.liquidate(conv.id);
    expect(liquidated.status).toBe('liquidated');
    expect(liquidated.target_amount).toBe('247.50');
    const lq = await f.client.quotes.retrieve(liquidated.liquidation_quote_id as string);
    expect(lq).toMatchObject({ status: 'consumed', consumed_by_conversion_id: conv.id, source_amount: '50.000000', exchange_rate: '4.950000' });
    expect(f.newEvents().map((e) => e.type)).toEqual(['transaction.sending_pix']);
    await f.sandbox.clock.advance({ minutes: 1 });
    expect((await f.client.conversions.retrieve(conv.id)).status).toBe('completed');
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.completed']);

    const other = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(other.id, { amount: '10.000000' });
    await f.client.conversions.liquidate(other.id);
    f.newEvents();
    expect(await f.client.testHelpers.conversions.failPix(other.id)).toMatchObject({ status: 'failed', failure_reason: 'pix_send_failed' });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.failed']);
  });

  it('liquidate refusals: price feed down -> price_feed_unavailable; over the limit -> transaction_limit_exceeded', async () => {
    const f = setup({ limits: { user: { daily: '600.00' } } });
    const conv = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { amount: '200.000000' });
    f.sandbox.setPrice({ available: false });
    await expectCode(f.client.conversions.liquidate(conv.id), 'price_feed_unavailable', 503);
    f.sandbox.setPrice({ available: true });
    await expectCode(f.client.conversions.liquidate(conv.id), 'transaction_limit_exceeded', 422);
    expect((await f.client.conversions.retrieve(conv.id)).status).toBe('standby');
  });

  it('standby -> abandoned after 7 days, with no reminder in between', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { amount: '1.000000' });
    f.newEvents();
    await f.sandbox.clock.advance({ days: 6, hours: 23 });
    expect(f.newEvents()).toEqual([]);
    await f.sandbox.clock.advance({ hours: 1 });
    expect(await f.client.conversions.retrieve(conv.id)).toMatchObject({ status: 'abandoned', updated_at: new Date(T0 + 7 * DAY).toISOString() });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.abandoned']);
  });

  it.each(['awaiting_deposit', 'funded', 'standby', 'liquidated'] as const)('fail helper from %s -> failed with the reason', async (state) => {
    const f = setup();
    const conv = await f.conversion('offramp');
    const h = f.client.testHelpers.conversions;
    if (state === 'funded') await h.simulateOfframpDeposit(conv.id);
    if (state === 'standby' || state === 'liquidated') await h.simulateOfframpDeposit(conv.id, { amount: '5.000000' });
    if (state === 'liquidated') await f.client.conversions.liquidate(conv.id);
    expect((await f.client.conversions.retrieve(conv.id)).status).toBe(state);
    f.newEvents();
    const failed = await h.fail(conv.id, { reason: 'compliance_rejected' });
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'compliance_rejected' });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.failed']);
    expect((await h.failCrypto(conv.id).catch((e: unknown) => e)) as object).toMatchObject({ code: 'invalid_transaction_state' });
  });

  it('fail-crypto -> crypto_deposit_rejected; helpers refuse terminal states and the wrong direction', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    expect(await f.client.testHelpers.conversions.failCrypto(conv.id)).toMatchObject({ status: 'failed', failure_reason: 'crypto_deposit_rejected' });
    await expectCode(f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id), 'invalid_transaction_state', 409);
    await expectCode(f.client.conversions.cancel(conv.id), 'invalid_transaction_state', 409);
    const other = await f.conversion('offramp');
    await expectCode(f.client.testHelpers.conversions.simulateOnrampPixPaid(other.id), 'invalid_transaction_state', 409);
  });

  it('the table is data: every transition names one event kind or none, and its target state', () => {
    for (const row of CONVERSION_MACHINE.transitions) {
      expect(row.to).toBeTypeOf('string');
      expect(row.event === null || /^(conversion|transaction)\./.test(row.event)).toBe(true);
      if (row.to === 'standby' && row.from !== 'standby') expect(row.reason).toBeTypeOf('string');
    }
  });
});

describe('limit reservations', () => {
  it('are released on expiry, failure and abandonment, kept on completion', async () => {
    // A monthly ceiling of one conversion: the 7 days of standby stay in the same month.
    const f = setup({ limits: { user: { daily: '540.00', monthly: '540.00' } } });
    const userId = await f.user();
    const accept = async (): Promise<string> => (await f.client.quotes.accept((await f.onrampQuote(userId)).id)).id;
    const blocked = async (): Promise<void> => expectCode(f.client.quotes.accept((await f.onrampQuote(userId)).id), 'transaction_limit_exceeded', 422);

    const a = await accept();
    await blocked();
    await f.client.testHelpers.conversions.expire(a);
    const b = await accept();
    await f.client.testHelpers.conversions.fail(b, { reason: 'pix_rejected' });
    const c = await accept();
    await f.client.testHelpers.conversions.simulateOnrampPixPaid(c, { amount: '10.00' });
    await blocked();
    await f.sandbox.clock.advance({ days: 7 });
    expect((await f.client.conversions.retrieve(c)).status).toBe('abandoned');
    const d = await accept();
    await f.client.testHelpers.conversions.simulateOnrampPixPaid(d, { settle: true });
    await blocked();
  });
});
