/**
 * Fidelity (issue 12): where the sandbox said something the reference does not. Each test is
 * named after the sentence of ../shared/api-reference.md it checks; where the reference is
 * silent, the decision it checks is in docs/decisions.md.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import { approvedUser, raw } from '../raw.js';
import { offrampBody } from '../../support/fixtures.js';
import { T0, expectCode, setup } from '../fixture.js';
import { snapshotRecords } from '../../support/records.js';

const MIN = 60_000;
const DAY = 86_400_000;

describe('the window and the expire helper', () => {
  it('reference: "window passes, or expire helper (sandbox) | nothing received | expired"', async () => {
    const f = setup({ limits: { user: { daily: '540.00' } } });
    const conv = await f.conversion('onramp');
    const expired = await f.client.testHelpers.conversions.expire(conv.id);
    expect(expired).toMatchObject({ status: 'expired', received_amount: '0.00' });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.expired']);
    // The reservation is released: the whole daily limit is free again.
    await f.client.quotes.accept((await f.onrampQuote(conv.user_id)).id);
  });

  it('reference: "15-minute window passes | received_amount > 0 | standby (window_expired)" (the expire helper too)', async () => {
    const f = setup({ limits: { user: { daily: '540.00' } } });
    const conv = await f.conversion('offramp', '100.000000');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { amount: '40.000000', confirmed: false });
    f.newEvents();
    const after = await f.client.testHelpers.conversions.expire(conv.id);
    expect(after).toMatchObject({ status: 'standby', standby_reason: 'window_expired', received_amount: '40.000000', standby_at: new Date(T0).toISOString() });
    expect(f.newEvents()).toEqual([
      { type: 'conversion.standby', object: expect.objectContaining({ id: conv.id, standby_reason: 'window_expired', received_amount: '40.000000' }) },
    ]);
    // No limit is released while money is held: the user's day is still taken.
    await expectCode(f.client.quotes.accept((await f.onrampQuote(conv.user_id, '540.00')).id), 'transaction_limit_exceeded', 422);
    // And the conversion goes on as any standby: it can be liquidated.
    expect((await f.client.conversions.liquidate(conv.id)).status).toBe('liquidated');
  });
});

describe('expired is terminal', () => {
  it('reference: "awaiting_deposit | deposit after the window closed but accepted | | standby (late_post_window)"', async () => {
    const f = setup();
    const conv = await f.conversion('offramp');
    const late = await f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { late: true });
    expect(late).toMatchObject({ status: 'standby', standby_reason: 'late_post_window', received_amount: '100.000000' });
    expect(f.newEvents().map((e) => [e.type, e.object['standby_reason']])).toEqual([['conversion.standby', 'late_post_window']]);
  });

  it('reference: "States and transitions" has no row out of expired: a deposit to an expired conversion moves nothing', async () => {
    const f = setup({ limits: { user: { daily: '540.00' } } });
    const conv = await f.conversion('offramp', '100.000000');
    await f.sandbox.clock.advance({ minutes: 15 });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.expired']);
    // The released day is taken by another conversion (540.00 BRL)...
    const other = await f.client.quotes.accept((await f.onrampQuote(conv.user_id, '540.00')).id);
    f.newEvents();
    await expectCode(f.client.testHelpers.conversions.simulateOfframpDeposit(conv.id), 'invalid_transaction_state', 409);
    await expectCode(f.client.testHelpers.conversions.deposit(conv.id, { amount: '100.000000', late: true }), 'invalid_transaction_state', 409);
    expect(await f.client.conversions.retrieve(conv.id)).toMatchObject({ status: 'expired', received_amount: '0.000000', standby_reason: null });
    expect(f.newEvents()).toEqual([]);
    // ...and the expired one took nothing back: cancelling the other frees the whole day.
    await f.client.conversions.cancel(other.id);
    await f.client.quotes.accept((await f.onrampQuote(conv.user_id, '540.00')).id);
  });
});

describe('POST /v1/transactions and the limits', () => {
  it('reference: "transaction_limit_exceeded (would exceed the user or organisation limit)": a user whose KYC is not approved is refused', async () => {
    const f = setup();
    const pending = await f.user(undefined, false);
    const quote = await f.onrampQuote(pending, '900000.00');
    await expectCode(f.client.transactions.create({ quote_id: quote.id }), 'transaction_limit_exceeded', 422);
    // Refused: nothing changed.
    expect((await f.client.quotes.retrieve(quote.id)).status).toBe('active');
    expect((await f.client.transactions.list()).data).toEqual([]);
    const approved = await f.user();
    await expectCode(f.client.transactions.create({ quote_id: (await f.onrampQuote(approved, '60000.00')).id }), 'transaction_limit_exceeded', 422);
  });

  it('reference: "Transaction volume limits in BRL per day and per month ... are checked" for transactions: reserved, released when the transaction ends', async () => {
    const f = setup({ limits: { user: { daily: '540.00' } } });
    const userId = await f.user();
    const create = async (): Promise<string> => (await f.client.transactions.create({ quote_id: (await f.onrampQuote(userId)).id })).id;
    const blocked = async (): Promise<void> => {
      await expectCode(f.client.transactions.create({ quote_id: (await f.onrampQuote(userId)).id }), 'transaction_limit_exceeded', 422);
      await expectCode(f.client.quotes.accept((await f.onrampQuote(userId)).id), 'transaction_limit_exceeded', 422);
    };
    // expired: released.
    const a = await create();
    await blocked();
    await f.sandbox.clock.advance({ minutes: 15 });
    expect((await f.client.transactions.retrieve(a)).status).toBe('expired');
    // completed: kept.
    const b = await create();
    await f.client.testHelpers.transactions.pay(b, { settle: true });
    expect((await f.client.transactions.retrieve(b)).status).toBe('completed');
    await blocked();
    // cancelled (its user deleted): released, on the next day for a fresh user limit.
    await f.sandbox.clock.advance({ days: 1 });
    const c = await create();
    await blocked();
    await f.client.users.delete(userId);
    expect((await f.client.transactions.retrieve(c)).status).toBe('cancelled');
    const snap = snapshotRecords(f.sandbox.snapshot());
    const tenant = snap.tenants.find((t) => t.id === f.sandbox.tenantId);
    const today = `d${Math.floor((T0 + DAY + 15 * MIN) / DAY)}`;
    expect(tenant?.usage.find(([key]) => key === today)).toBeUndefined();
  });
});

describe('API keys', () => {
  it('reference: "a resource of another tenant is reported as not found" (rotate; issue 21: never `unauthorized`, which told a key exists elsewhere)', async () => {
    const sb = createSandbox({ seed: 'fidelity', now: T0 });
    const nowhere = await raw(sb, 'POST', '/v1/api-keys/00000000-0000-4000-8000-000000000000/rotate');
    expect(nowhere.status).toBe(404);
    expect(nowhere.body).toMatchObject({ code: 'api_key_not_found', request_id: nowhere.headers.get('x-request-id') });
    const other = sb.createTenant();
    const theirs = (await raw(sb, 'GET', '/v1/api-keys', undefined, { apiKey: other.apiKey })).body.data[0].id as string;
    const foreign = await raw(sb, 'POST', `/v1/api-keys/${theirs}/rotate`);
    expect([foreign.status, foreign.body.code, foreign.body.message]).toEqual([404, 'api_key_not_found', `No API key ${theirs}.`]);
    // Neither changed anything: the other tenant's key still works.
    expect((await raw(sb, 'GET', '/v1/api-keys', undefined, { apiKey: other.apiKey })).status).toBe(200);
  });
});

describe('rate limit and idempotency', () => {
  it('reference: "60 requests per minute per API key ... | POST /v1/quotes": a replay answers the stored response and is not counted', async () => {
    const sb = createSandbox({ seed: 'fidelity', now: T0, quoteRateLimit: 2 });
    const userId = await approvedUser(sb, 1);
    const first = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId), { idempotencyKey: 'retry-me' });
    expect(first.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const replay = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId), { idempotencyKey: 'retry-me' });
      expect([replay.status, replay.body.id, replay.headers.get('idempotent-replayed')]).toEqual([201, first.body.id, 'true']);
    }
    // Only the first counted: one more fits in the window, then the limit.
    expect((await raw(sb, 'POST', '/v1/quotes', offrampBody(userId))).status).toBe(201);
    const limited = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId));
    expect(limited.body.code).toBe('rate_limit_exceeded');
    // At the limit, a replay still answers the stored response.
    expect((await raw(sb, 'POST', '/v1/quotes', offrampBody(userId), { idempotencyKey: 'retry-me' })).body.id).toBe(first.body.id);
  });

  it('reference: "counted after authentication": a malformed request is refused without being counted', async () => {
    const sb = createSandbox({ seed: 'fidelity', now: T0, quoteRateLimit: 1 });
    const userId = await approvedUser(sb, 1);
    expect((await raw(sb, 'POST', '/v1/quotes', undefined, { rawBody: '{"user_id": ' })).body.code).toBe('invalid_json');
    expect((await raw(sb, 'POST', '/v1/quotes', { user_id: 'nope' })).body.code).toBe('validation_error');
    expect((await raw(sb, 'POST', '/v1/quotes', offrampBody(userId), { idempotencyKey: null })).body.code).toBe('idempotency_key_required');
    expect((await raw(sb, 'POST', '/v1/quotes', offrampBody(userId))).status).toBe(201);
    expect((await raw(sb, 'POST', '/v1/quotes', offrampBody(userId))).body.code).toBe('rate_limit_exceeded');
  });

  it('reference: "Every response carries request_id (and the header x-request-id)": on a replay the two agree (the first request\'s)', async () => {
    const sb = createSandbox({ seed: 'fidelity', now: T0 });
    const missing = '00000000-0000-4000-8000-000000000000';
    const e1 = await raw(sb, 'POST', `/v1/conversions/${missing}/cancel`, undefined, { idempotencyKey: 'once' });
    const e2 = await raw(sb, 'POST', `/v1/conversions/${missing}/cancel`, undefined, { idempotencyKey: 'once' });
    expect(e2.headers.get('idempotent-replayed')).toBe('true');
    expect(e2.body).toEqual(e1.body);
    expect(e2.headers.get('x-request-id')).toBe(e2.body.request_id);
    expect(e2.headers.get('x-request-id')).toBe(e1.headers.get('x-request-id'));
    // A request that is not a replay gets a new id.
    const fresh = await raw(sb, 'POST', `/v1/conversions/${missing}/cancel`);
    expect(fresh.headers.get('x-request-id')).toBe(fresh.body.request_id);
    expect(fresh.body.request_id).not.toBe(e1.body.request_id);
  });
});

describe('liquidation', () => {
  it('reference: "offramp USDT deposit confirmed | ... | funded | Pix payout starts": transaction.sending_pix only where a Pix payout starts', async () => {
    const f = setup();
    const on = await f.conversion('onramp');
    await f.client.testHelpers.conversions.simulateOnrampPixPaid(on.id, { amount: '300.00' });
    f.newEvents();
    expect((await f.client.conversions.liquidate(on.id)).status).toBe('liquidated');
    expect(f.newEvents()).toEqual([]);
    await f.sandbox.clock.advance({ minutes: 1 });
    expect(f.newEvents().map((e) => e.type)).toEqual(['conversion.completed']);

    const off = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(off.id, { amount: '50.000000' });
    f.newEvents();
    await f.client.conversions.liquidate(off.id);
    expect(f.newEvents()).toEqual([{ type: 'transaction.sending_pix', object: expect.objectContaining({ id: off.id, status: 'liquidated' }) }]);
  });

  it('reference: "Transaction volume limits in BRL per day and per month ... checked when a conversion is ... liquidated": the liquidation day\'s bucket', async () => {
    const f = setup({ limits: { user: { daily: '600.00', monthly: '100000.00' } } });
    const userId = await f.user();
    const a = await f.client.quotes.accept((await f.onrampQuote(userId, '540.00')).id);
    await f.client.testHelpers.conversions.simulateOnrampPixPaid(a.id, { amount: '300.00' });
    await f.sandbox.clock.advance({ days: 1 });
    // The next day: 540.00 of 600.00 taken; liquidating 300.00 today does not fit.
    const b = await f.client.quotes.accept((await f.onrampQuote(userId, '540.00')).id);
    await expectCode(f.client.conversions.liquidate(a.id), 'transaction_limit_exceeded', 422);
    expect((await f.client.conversions.retrieve(a.id)).status).toBe('standby');
    await f.client.conversions.cancel(b.id);
    expect((await f.client.conversions.liquidate(a.id)).status).toBe('liquidated');
    // Today now holds the liquidation's 300.00: 300.00 more fits, 540.00 does not.
    await expectCode(f.client.quotes.accept((await f.onrampQuote(userId, '540.00')).id), 'transaction_limit_exceeded', 422);
    await f.client.quotes.accept((await f.onrampQuote(userId, '300.00')).id);
    // And the accept day's bucket was given back.
    const tenant = snapshotRecords(f.sandbox.snapshot()).tenants.find((t) => t.id === f.sandbox.tenantId);
    expect(tenant?.usage.find(([key]) => key === `u${userId}d${Math.floor(T0 / DAY)}`)).toBeUndefined();
  });
});
