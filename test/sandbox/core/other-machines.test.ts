/**
 * The quote, transaction and KYC machines, row by row, through the public client.
 */
import { describe, expect, it } from 'vitest';
import { T0, expectCode, setup } from '../fixture.js';
import { cpf } from '../../support/fixtures.js';

const MIN = 60_000;
const DAY = 86_400_000;

describe('quote machine', () => {
  it('create -> active with pricing and TTL; ttl passes -> expired at expires_at', async () => {
    const f = setup();
    const userId = await f.user();
    const quote = await f.onrampQuote(userId, '1000.00');
    expect(quote).toMatchObject({
      status: 'active',
      exchange_rate: '5.427000',
      target_amount: '184.263865',
      withdrawal_fee_usdt: '1.000000',
      net_target_amount: '183.263865',
      expires_at: new Date(T0 + 5 * MIN).toISOString(),
    });
    await f.sandbox.clock.advance({ minutes: 4, seconds: 59 });
    expect((await f.client.quotes.retrieve(quote.id)).status).toBe('active');
    await f.sandbox.clock.advance({ seconds: 1 });
    expect((await f.client.quotes.retrieve(quote.id)).status).toBe('expired');
  });

  it('quoteTtlSeconds sets the TTL (the reference also says 30 s)', async () => {
    const f = setup({ quoteTtlSeconds: 30 });
    const quote = await f.offrampQuote(await f.user());
    expect(quote.expires_at).toBe(new Date(T0 + 30_000).toISOString());
  });

  it('active -> consumed by accept; active -> cancelled when its user is deleted; list filters', async () => {
    const f = setup();
    const a = await f.user();
    const b = await f.user();
    const qa = await f.offrampQuote(a);
    const qb = await f.offrampQuote(b);
    await f.client.quotes.accept(qa.id);
    await f.client.users.delete(b);
    expect((await f.client.quotes.retrieve(qb.id)).status).toBe('cancelled');
    expect((await f.client.quotes.list({ status: 'consumed' })).data.map((q) => q.id)).toEqual([qa.id]);
    expect((await f.client.quotes.list({ user_id: b })).data.map((q) => q.id)).toEqual([qb.id]);
    expect((await f.client.quotes.list({ user_id: b, status: 'active' })).data).toEqual([]);
  });

  it('offramp target_amount and the pricing rounding in the platform favour', async () => {
    const f = setup();
    const userId = await f.user();
    const q = await f.client.quotes.create({
      user_id: userId,
      source_currency: 'USDT',
      target_currency: 'BRL',
      target_amount: '100.00',
      pix_key: 'pix@sandbox.pix-usdt.com',
      pix_key_type: 'email',
      deposit_network: 'polygon',
    });
    // 100 / 5.373 = 18.61157640... rounded up: the customer sends slightly more.
    expect(q).toMatchObject({ source_amount: '18.611577', target_amount: '100.00', exchange_rate: '5.373000', pix_key_verified_at: new Date(T0).toISOString() });
    expect(q.pix_holder_name).toBeTypeOf('string');
  });
});

describe('transaction machine', () => {
  it('create -> pending_payment (quote consumed); pay -> payment_received; settle -> completed, wallet credited', async () => {
    const f = setup();
    const userId = await f.user();
    const quote = await f.onrampQuote(userId);
    const tx = await f.client.transactions.create({ quote_id: quote.id });
    expect(tx).toMatchObject({ status: 'pending_payment', quote_id: quote.id, source_amount: '540.00', pix_paid_at: null });
    expect(tx.pix_qr_code).toMatch(/^000201/);
    expect((await f.client.quotes.retrieve(quote.id)).status).toBe('consumed');
    f.newEvents();
    const paid = await f.client.testHelpers.transactions.pay(tx.id);
    expect(paid).toMatchObject({ status: 'payment_received', pix_paid_at: new Date(T0).toISOString() });
    expect(f.newEvents()).toEqual([]);
    await f.sandbox.clock.advance({ minutes: 1 });
    const done = await f.client.transactions.retrieve(tx.id);
    expect(done).toMatchObject({ status: 'completed', completed_at: new Date(T0 + MIN).toISOString(), usdt_sent_at: new Date(T0 + MIN).toISOString() });
    expect(f.newEvents().map((e) => e.type)).toEqual(['transaction.completed']);
    expect((await f.client.users.wallet(userId)).balance).toBe(quote.net_target_amount);
    await expectCode(f.client.testHelpers.transactions.pay(tx.id), 'invalid_transaction_state', 409);
  });

  it('pending_payment -> expired after 15 minutes; -> cancelled when the user is deleted', async () => {
    const f = setup();
    const a = await f.user();
    const b = await f.user();
    const ta = await f.client.transactions.create({ quote_id: (await f.onrampQuote(a)).id });
    const tb = await f.client.transactions.create({ quote_id: (await f.onrampQuote(b)).id });
    await f.client.users.delete(b);
    expect((await f.client.transactions.retrieve(tb.id)).status).toBe('cancelled');
    await f.sandbox.clock.advance({ minutes: 15 });
    expect((await f.client.transactions.retrieve(ta.id)).status).toBe('expired');
    expect((await f.client.transactions.list({ status: 'expired' })).data.map((t) => t.id)).toEqual([ta.id]);
  });

  it('create refusals: quote_not_found, quote_already_consumed, quote_expired, offramp quote', async () => {
    const f = setup();
    const userId = await f.user();
    await expectCode(f.client.transactions.create({ quote_id: '00000000-0000-4000-8000-000000000000' }), 'quote_not_found', 404);
    const used = await f.onrampQuote(userId);
    await f.client.quotes.accept(used.id);
    await expectCode(f.client.transactions.create({ quote_id: used.id }), 'quote_already_consumed', 409);
    const old = await f.onrampQuote(userId);
    await f.sandbox.clock.advance({ minutes: 6 });
    await expectCode(f.client.transactions.create({ quote_id: old.id }), 'quote_expired', 409);
    await expectCode(f.client.transactions.create({ quote_id: (await f.offrampQuote(userId)).id }), 'validation_error', 400);
  });
});

describe('KYC machine', () => {
  it('create opens a submission: not_started -> pending, user.kyc_pending; start_kyc false stays not_started', async () => {
    const f = setup();
    const user = await f.client.users.create({ external_id: 'k1', name: 'K', document_type: 'cpf', document_number: cpf(1) });
    expect(user.kyc_status).toBe('pending');
    expect(f.newEvents()).toEqual([{ type: 'user.kyc_pending', object: expect.objectContaining({ id: user.id, kyc_status: 'pending' }) }]);
    const idle = await f.client.users.create({ external_id: 'k2', name: 'K', document_type: 'cpf', document_number: cpf(2), start_kyc: false });
    expect(idle.kyc_status).toBe('not_started');
    expect(f.newEvents()).toEqual([]);
    await expectCode(f.client.testHelpers.users.kyc(idle.id, { status: 'approved' }), 'invalid_transaction_state', 409);
  });

  it('helper outcomes: approved, rejected, in_review, expired; an unchanged status emits nothing', async () => {
    const f = setup();
    const id = await f.user(1, false);
    f.newEvents();
    const approved = await f.client.testHelpers.users.kyc(id, { status: 'approved' });
    expect(approved).toMatchObject({
      kyc_status: 'approved',
      kyc_approved_at: new Date(T0).toISOString(),
      kyc_expires_at: new Date(T0 + 365 * DAY).toISOString(),
      latest_submission: expect.objectContaining({ status: 'approved', provider: 'sandbox' }),
    });
    expect(f.newEvents().map((e) => e.type)).toEqual(['user.kyc_approved']);
    await f.client.testHelpers.users.kyc(id, { status: 'approved' });
    expect(f.newEvents()).toEqual([]);
    const rejected = await f.client.testHelpers.users.kyc(id, { status: 'rejected', rejection_reason: 'blurry' });
    expect(rejected).toMatchObject({ kyc_status: 'rejected', latest_submission: expect.objectContaining({ rejection_reason: 'blurry' }) });
    expect(f.newEvents().map((e) => e.type)).toEqual(['user.kyc_rejected']);
    const review = await f.client.testHelpers.users.kyc(id, { status: 'in_review' });
    expect(review).toMatchObject({ kyc_status: 'pending', latest_submission: expect.objectContaining({ status: 'in_review' }) });
    expect(f.newEvents().map((e) => e.type)).toEqual(['user.kyc_pending']);
    expect((await f.client.testHelpers.users.kyc(id, { status: 'expired' })).kyc_status).toBe('expired');
    expect(f.newEvents().map((e) => e.type)).toEqual(['user.kyc_expired']);
    expect((await f.client.users.retrieve(id)).kyc_status).toBe('expired');
  });

  it('approval lapses after 365 days -> expired, user.kyc_expired', async () => {
    const f = setup();
    const id = await f.user();
    f.newEvents();
    await f.sandbox.clock.advance({ days: 365 });
    expect((await f.client.users.retrieve(id)).kyc_status).toBe('expired');
    expect(f.newEvents().map((e) => e.type)).toEqual(['user.kyc_expired']);
  });

  it('a user whose KYC is not approved has a limit of 0: accept answers transaction_limit_exceeded', async () => {
    const f = setup();
    const id = await f.user(1, false);
    const quote = await f.offrampQuote(id);
    const error = await f.client.quotes.accept(quote.id).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'transaction_limit_exceeded', status: 422 });
    expect((error as Error).message).toMatch(/KYC is not approved/);
    expect((await f.client.quotes.retrieve(quote.id)).status).toBe('active');
  });
});
