/**
 * Issue 10, "Tests that retry wait in real time": `sandbox.clientOptions()` wires the client's
 * `fetch`, retry `sleep` and `now` to the sandbox and its virtual clock. A retried call completes
 * with the clock having moved by the client's backoff, instead of the test waiting for it.
 */
import { PixUsdt, type RetryEvent } from 'pix-usdt';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import { onrampBody } from '../../support/fixtures.js';

const START = Date.parse('2026-05-01T00:00:00Z');

describe('sandbox.clientOptions()', () => {
  it('hands out the key, the fetch, and sleep/now on the virtual clock', () => {
    const sandbox = createSandbox({ now: START });
    const options = sandbox.clientOptions();
    expect(options.apiKey).toBe(sandbox.apiKey);
    expect(options.fetch).toBe(sandbox.fetch);
    expect(options.now()).toBe(START);
  });

  it('a call answered 503 then 200 (a fault plan) is retried at once: the sandbox clock moves by the backoff', async () => {
    const sandbox = createSandbox({ now: START });
    const plan = sandbox.faults.add({ match: 'GET /v1/users', nth: 1, fault: { type: 'error', code: 'wallet_provider_unavailable' } });
    const client = new PixUsdt(sandbox.clientOptions());
    const retries: RetryEvent[] = [];
    client.on('retry', (event) => retries.push(event));

    const page = await client.users.list();

    expect(page.data).toEqual([]);
    expect(sandbox.faults.list().find((p) => p.id === plan)).toMatchObject({ calls: 2, hits: 1 });
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ status: 503, code: 'wallet_provider_unavailable' });
    const waited = retries[0]!.delayMs;
    expect(waited).toBeGreaterThan(0);
    // The wait happened on the virtual clock (frozen otherwise), not in real time.
    expect(sandbox.clock.now().getTime()).toBe(START + waited);
  });

  it("a wait fires the timers that fall due, as real waiting would (a quote's TTL passes during a backoff)", async () => {
    const sandbox = createSandbox({ now: START, quoteTtlSeconds: 1 });
    const { sleep } = sandbox.clientOptions();
    const client = new PixUsdt(sandbox.clientOptions());
    const user = await client.users.create({ external_id: 'e1', name: 'Ana', document_type: 'cpf', document_number: '52998224725' });
    await client.testHelpers.users.kyc(user.id, { status: 'approved' });
    const quote = await client.quotes.create(onrampBody(user.id, '100.00'));
    expect(quote.status).toBe('active');
    await sleep(2_000);
    expect((await client.quotes.retrieve(quote.id)).status).toBe('expired');
  });

  it('a tenant of createTenant gets its own key and clock', async () => {
    const sandbox = createSandbox({ now: START });
    const tenant = sandbox.createTenant();
    const options = sandbox.clientOptions(tenant);
    expect(options.apiKey).toBe(tenant.apiKey);
    await options.sleep(5_000);
    expect(tenant.clock.now().getTime()).toBe(START + 5_000);
    expect(sandbox.clock.now().getTime()).toBe(START);
  });

  it('sleep rejects with the reason of an aborted signal, and does not move the clock', async () => {
    const sandbox = createSandbox({ now: START });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(sandbox.clientOptions().sleep(1_000, controller.signal)).rejects.toThrow('stop');
    expect(sandbox.clock.now().getTime()).toBe(START);
  });
});
