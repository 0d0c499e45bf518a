/**
 * Isolation (two sandboxes, two tenants), determinism with a seed, snapshot/restore, reset,
 * and the clock: ordering of timers, no travel backwards, real time with lazy firing.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import { T0, setup } from '../fixture.js';
import { approvedUser, raw } from '../raw.js';
import { cpf, offrampBody } from '../../support/fixtures.js';

const MIN = 60_000;
const DAY = 86_400_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('isolation', () => {
  it('two sandboxes in one process never touch each other', async () => {
    const a = createSandbox({ now: T0 });
    const b = createSandbox({ now: T0 });
    const userId = await approvedUser(a, 1);
    expect((await raw(b, 'GET', '/v1/users')).body.data).toEqual([]);
    expect((await raw(b, 'GET', '/v1/users', undefined, { apiKey: a.apiKey })).body.code).toBe('authentication_failed');
    await approvedUser(b, 1); // same CPF and external_id: no clash across sandboxes
    await a.clock.advance({ days: 1 });
    expect(b.clock.now().getTime()).toBe(T0);
    expect((await raw(a, 'GET', `/v1/users/${userId}`)).status).toBe(200);
  });

  it('tenants have their own data, events and clock', async () => {
    const sb = createSandbox({ now: T0 });
    const t2 = sb.createTenant();
    const q1 = await raw(sb, 'POST', '/v1/quotes', offrampBody(await approvedUser(sb, 1)));
    const q2 = await raw(sb, 'POST', '/v1/quotes', offrampBody(await approvedUser(sb, 1, t2.apiKey)), { apiKey: t2.apiKey });
    expect(q2.status).toBe(201);
    await t2.clock.advance({ minutes: 10 });
    expect((await raw(sb, 'GET', `/v1/quotes/${q1.body.id}`)).body.status).toBe('active');
    expect((await raw(sb, 'GET', `/v1/quotes/${q2.body.id}`, undefined, { apiKey: t2.apiKey })).body.status).toBe('expired');
    expect((await raw(sb, 'GET', `/v1/quotes/${q2.body.id}`)).body.code).toBe('quote_not_found');
    expect(sb.events(t2.tenantId).every((e) => !sb.events().some((d) => d.id === e.id))).toBe(true);
    expect(sb.events(t2.tenantId).length).toBeGreaterThan(0);
  });
});

describe('determinism', () => {
  async function script(seed: number | string): Promise<unknown[]> {
    const sb = createSandbox({ seed, now: T0 });
    const out: unknown[] = [sb.apiKey, sb.tenantId];
    const userId = await approvedUser(sb, 1);
    const quote = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId));
    const conv = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`, {});
    out.push(quote.body, conv.body, sb.events().map((e) => e.id), (await raw(sb, 'GET', '/v1/users?limit=1')).headers.get('x-request-id'));
    return out;
  }

  it('the same seed gives the same ids, secrets and bodies; another seed differs', async () => {
    const [a, b, c] = await Promise.all([script(42), script(42), script(43)]);
    expect(a).toEqual(b);
    expect(a?.[0]).not.toEqual(c?.[0]);
    expect((a?.[2] as { id: string }).id).not.toEqual((c?.[2] as { id: string }).id);
  });
});

describe('snapshot and restore', () => {
  it('round-trips every tenant through JSON, with timers re-created from state', async () => {
    const f = setup();
    const standby = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(standby.id, { amount: '1.000000' });
    const waiting = await f.conversion('onramp');
    const t2 = f.sandbox.createTenant();
    await approvedUser(f.sandbox, 9, t2.apiKey);
    const json = JSON.stringify(f.sandbox.snapshot());

    const copy = createSandbox({ seed: 'other', now: T0 });
    copy.restore(json);
    expect(copy.apiKey).toBe(f.sandbox.apiKey);
    expect(copy.tenantId).toBe(f.sandbox.tenantId);
    for (const path of ['/v1/users', '/v1/quotes', '/v1/conversions', '/v1/transactions', `/v1/conversions/${standby.id}`]) {
      expect((await raw(copy, 'GET', path)).body).toEqual((await raw(f.sandbox, 'GET', path)).body);
    }
    expect(copy.events()).toEqual(f.sandbox.events());
    expect((await raw(copy, 'GET', '/v1/users', undefined, { apiKey: t2.apiKey })).body.data).toHaveLength(1);
    // Cursors issued before the snapshot stay valid after it.
    const page = await raw(f.sandbox, 'GET', '/v1/users?limit=1');
    expect((await raw(copy, 'GET', `/v1/users?limit=1&cursor=${page.body.next_cursor}`)).status).toBe(200);
    await copy.clock.advance({ minutes: 15 });
    expect((await raw(copy, 'GET', `/v1/conversions/${waiting.id}`)).body.status).toBe('expired');
    await copy.clock.advance({ days: 7 });
    expect((await raw(copy, 'GET', `/v1/conversions/${standby.id}`)).body.status).toBe('abandoned');
    // The original did not move.
    expect((await raw(f.sandbox, 'GET', `/v1/conversions/${waiting.id}`)).body.status).toBe('awaiting_deposit');
    // The seeded generator's state travels too: two restores make the same next ids.
    const next = { external_id: 'n', name: 'N', document_type: 'cpf', document_number: cpf(77) };
    const [x, y] = [createSandbox({ seed: 'x', now: T0 }), createSandbox({ seed: 'y', now: T0 })];
    x.restore(json);
    y.restore(json);
    expect((await raw(x, 'POST', '/v1/users', next, { idempotencyKey: 'n' })).body.id).toBe(
      (await raw(y, 'POST', '/v1/users', next, { idempotencyKey: 'n' })).body.id,
    );
  });

  it('reset() goes back to the initial state, same key, clock kept', async () => {
    const sb = createSandbox({ now: T0, seed: 1 });
    const key = sb.apiKey;
    await approvedUser(sb, 1);
    await sb.clock.advance({ hours: 1 });
    sb.reset();
    expect(sb.apiKey).toBe(key);
    expect(sb.events()).toEqual([]);
    expect((await raw(sb, 'GET', '/v1/users')).body.data).toEqual([]);
    expect(sb.clock.now().getTime()).toBe(T0 + 3_600_000);
    expect(() => sb.restore('{"format":"other"}')).toThrow(TypeError);
  });
});

describe('clock', () => {
  it('fires every due timer in timestamp order, including timers scheduled during the advance', async () => {
    const f = setup();
    const a = await f.conversion('offramp');
    const d = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(d.id, { confirmed: false, amount: '3.000000' });
    await f.sandbox.clock.advance({ minutes: 5 });
    const b = await f.conversion('offramp');
    const c = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(c.id, { amount: '2.000000' });
    f.newEvents();
    await f.sandbox.clock.advance({ days: 8 });
    const events = f.sandbox.events().slice(-5).map((e) => [e.type, (e.data.object as { id: string }).id, e.created_at]);
    expect(events).toEqual([
      ['conversion.expired', a.id, new Date(T0 + 15 * MIN).toISOString()],
      ['conversion.standby', d.id, new Date(T0 + 15 * MIN).toISOString()],
      ['conversion.expired', b.id, new Date(T0 + 20 * MIN).toISOString()],
      ['conversion.abandoned', c.id, new Date(T0 + 5 * MIN + 7 * DAY).toISOString()],
      ['conversion.abandoned', d.id, new Date(T0 + 15 * MIN + 7 * DAY).toISOString()],
    ]);
  });

  it('never goes backwards', async () => {
    const sb = createSandbox({ now: T0 });
    await expect(sb.clock.advance({ seconds: -1 })).rejects.toThrow(RangeError);
    expect((await raw(sb, 'POST', '/v1/test_helpers/clock/advance', { seconds: -5 })).body.code).toBe('validation_error');
    expect(sb.clock.now().getTime()).toBe(T0);
  });

  it('follows real time by default; timers due as time passes fire before the next request', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const sb = createSandbox();
    expect(sb.clock.now().getTime()).toBe(T0);
    const quote = await raw(sb, 'POST', '/v1/quotes', offrampBody(await approvedUser(sb, 1)));
    vi.setSystemTime(T0 + 6 * MIN);
    expect((await raw(sb, 'GET', `/v1/quotes/${quote.body.id}`)).body.status).toBe('expired');
    await sb.clock.advance({ minutes: 1 });
    expect(sb.clock.now().getTime()).toBe(T0 + 7 * MIN);
    vi.setSystemTime(T0);
    expect(sb.clock.now().getTime()).toBe(T0 + 7 * MIN);
  });
});
