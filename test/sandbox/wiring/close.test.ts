/**
 * Issue 21: `sandbox.close()` stops a sandbox at once (no timer fires, no queued delivery
 * leaves, attempts in flight are aborted and not recorded), resolves once those have ended, and
 * every later call that acts answers a clear error; `Symbol.dispose` and `Symbol.asyncDispose`
 * close it. States and counts are asserted; waits are for conditions, never for durations.
 */
import { describe, expect, it, vi } from 'vitest';
import { ConnectionError, PixUsdt } from '../../../src/index.js';
import { type ReceiverContext, SandboxClosedError, createSandbox, isSandboxClosedError } from '../../../src/sandbox/index.js';
import { approvedUser, onrampBody, userBody } from '../../support/fixtures.js';
import { snapshotRecords } from '../../support/records.js';

const T0 = Date.parse('2026-05-04T10:00:00.000Z');
const RECEIVER = 'https://partner.example/hooks';
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('sandbox.close()', () => {
  it('sends nothing that was due or queued, and records nothing of an attempt in flight', async () => {
    const sandbox = createSandbox({ seed: 'close', now: T0, webhooks: { concurrency: { perEndpoint: 1 } } });
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    let calls = 0;
    let aborted = 0;
    let release: (() => void) | null = null;
    sandbox.webhooks.listen(RECEIVER, (_request, { signal }: ReceiverContext) => {
      calls++;
      return new Promise<number>((resolve) => {
        signal.addEventListener('abort', () => aborted++);
        release = () => resolve(200);
      });
    });
    for (let n = 1; n <= 5; n++) await client.users.create(userBody(n));
    await tick();
    expect(calls).toBe(1); // one in flight, four queued behind it (one slot)
    const before = sandbox.snapshot();

    let closed = false;
    const closing = sandbox.close().then(() => (closed = true));
    expect(aborted).toBe(1);
    await tick();
    expect(closed).toBe(false); // waits for the attempt in flight
    (release as unknown as () => void)();
    await closing;
    expect(closed).toBe(true);
    await tick();
    expect(calls).toBe(1);
    // Nothing recorded after the close: every delivery as it was, the one in flight still pending.
    expect(sandbox.snapshot()).toEqual(before);
    expect(sandbox.webhooks.pending()).toHaveLength(5);
    expect(sandbox.webhooks.delivered()).toEqual([]);
    expect(sandbox.webhooks.pending().every((p) => p.attemptCount === 0)).toBe(true);
    expect(endpoint.id).toBeTruthy();
  });

  it('stops the timers of a clock that follows real time: a closed sandbox’s quote never expires', async () => {
    // Two sandboxes, the closed one's quote due first: once the open one's quote has expired on
    // its own, the closed one's would have too, had its timer been left armed.
    const closedOne = createSandbox({ quoteTtlSeconds: 0.02 });
    const openOne = createSandbox({ quoteTtlSeconds: 0.1 });
    const quoteIn = async (sandbox: typeof closedOne): Promise<string> => {
      const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
      const id = await approvedUser(client, 7);
      const quote = await client.quotes.create(onrampBody(id, '100.00'));
      return quote.id;
    };
    const closedQuote = await quoteIn(closedOne);
    const openQuote = await quoteIn(openOne);
    await closedOne.close();
    const status = (sandbox: typeof closedOne, id: string): string | undefined =>
      snapshotRecords(sandbox.snapshot()).tenants.flatMap((t) => t.quotes).find((q) => q.id === id)?.status;
    await vi.waitFor(() => expect(status(openOne, openQuote)).toBe('expired'), { timeout: 5_000, interval: 10 });
    expect(status(closedOne, closedQuote)).toBe('active');
    expect(closedOne.events().map((e) => e.type)).toEqual(['user.kyc_pending', 'user.kyc_approved']);
    await openOne.close();
  });

  it('answers a clear error to every later call that acts; reads answer the state at close', async () => {
    const sandbox = createSandbox({ seed: 'closed', now: T0 });
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    await client.users.create(userBody(1));
    const waiting = sandbox.webhooks.nextEvent('user.kyc_approved', { timeoutMs: 60_000 });
    waiting.catch(() => undefined); // asserted below
    await sandbox.close();

    // fetch rejects as on a stopped server; the client reports a connection error.
    const failed = await sandbox.fetch('/v1/users', { headers: { authorization: `Bearer ${sandbox.apiKey}` } }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(TypeError);
    expect((failed as TypeError).cause).toBeInstanceOf(SandboxClosedError);
    expect(String((failed as TypeError).cause)).toMatch(/SandboxClosedError: fetch: this sandbox is closed/);
    await expect(client.users.list()).rejects.toBeInstanceOf(ConnectionError);
    await expect(sandbox.handle(new Request('https://x.test/v1/users'))).rejects.toBeInstanceOf(SandboxClosedError);
    await expect(sandbox.clock.advance({ seconds: 1 })).rejects.toThrow(/clock\.advance: this sandbox is closed/);
    await expect(sandbox.webhooks.flush()).rejects.toBeInstanceOf(SandboxClosedError);
    await expect(waiting).rejects.toBeInstanceOf(SandboxClosedError);
    await expect(sandbox.webhooks.nextEvent()).rejects.toBeInstanceOf(SandboxClosedError);
    for (const act of [
      () => sandbox.createTenant(),
      () => sandbox.clientOptions(),
      () => sandbox.setPrice({ midRate: '5.00' }),
      () => sandbox.setLimits({}),
      () => sandbox.reset(),
      () => sandbox.restore(sandbox.snapshot()),
      () => sandbox.use('x', (_call, next) => next()),
      () => sandbox.on('event', () => undefined),
      () => sandbox.webhooks.listen(RECEIVER, () => 200),
      () => sandbox.faults.add({ match: 'POST /v1/users', fault: { type: 'error', code: 'internal_error' } }),
    ]) {
      let error: unknown;
      try {
        act();
      } catch (e) {
        error = e;
      }
      expect(isSandboxClosedError(error), String(act)).toBe(true);
    }
    // Reads: the state as it was.
    expect(sandbox.events().map((e) => e.type)).toEqual(['user.kyc_pending']);
    expect(snapshotRecords(sandbox.snapshot()).tenants[0]?.users).toHaveLength(1);
    expect(sandbox.clock.now().getTime()).toBe(T0);
    expect(sandbox.webhooks.delivered()).toEqual([]);
    expect(sandbox.apiKey).toMatch(/^sk_test_/);
  });

  it('is harmless twice; Symbol.dispose closes without waiting, Symbol.asyncDispose waits; `using` closes at the end of its block', async () => {
    expect(typeof Symbol.dispose).toBe('symbol');
    expect(typeof Symbol.asyncDispose).toBe('symbol');
    const sandbox = createSandbox();
    const first = sandbox.close();
    expect(sandbox.close()).toBe(first);
    await first;

    const disposed = createSandbox();
    expect(disposed[Symbol.dispose]()).toBeUndefined();
    await expect(disposed.fetch('/v1/users')).rejects.toThrow(TypeError);
    const asyncDisposed = createSandbox();
    await asyncDisposed[Symbol.asyncDispose]();
    await expect(asyncDisposed.clock.advance({ seconds: 1 })).rejects.toBeInstanceOf(SandboxClosedError);

    let kept: ReturnType<typeof createSandbox> | undefined;
    {
      await using scoped = createSandbox();
      kept = scoped;
      expect((await scoped.fetch('/v1/test_helpers/clock', { headers: { authorization: `Bearer ${scoped.apiKey}` } })).status).toBe(200);
    }
    await expect(kept.fetch('/v1/users')).rejects.toThrow(TypeError);
  });
});
