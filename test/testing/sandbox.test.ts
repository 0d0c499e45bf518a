/**
 * createTestSandbox: a frozen clock, a client bound with clientOptions() (retries move the
 * virtual clock, not the real one), disposed with close() or `await using`.
 */
import { describe, expect, it } from 'vitest';
import { createTestSandbox } from '../../src/testing/index.js';

describe('createTestSandbox', () => {
  it('freezes the clock at creation by default, or at `now`', async () => {
    const before = Date.now();
    await using sandbox = createTestSandbox();
    const at = sandbox.clock.now().getTime();
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    await new Promise((resolve) => setTimeout(resolve, 25));
    expect(sandbox.clock.now().getTime()).toBe(at);
    await using fixed = createTestSandbox({ now: '2026-05-01T00:00:00Z', seed: 2 });
    expect(fixed.clock.now().toISOString()).toBe('2026-05-01T00:00:00.000Z');
    expect((await fixed.client.testHelpers.clock.retrieve()).now).toBe('2026-05-01T00:00:00.000Z');
  });

  it('binds its client to the default tenant; a retry waits on the virtual clock', async () => {
    await using sandbox = createTestSandbox({ now: '2026-05-01T00:00:00Z' });
    sandbox.faults.add({ match: 'GET /v1/users', nth: 1, fault: { type: 'error', code: 'wallet_provider_unavailable' } });
    const page = await sandbox.client.users.list();
    expect(page.data).toEqual([]);
    // The backoff (1 s and up for a 503) passed on the sandbox's clock.
    expect(sandbox.clock.now().getTime()).toBeGreaterThanOrEqual(Date.parse('2026-05-01T00:00:01Z'));
  });

  it('is disposed by close() and by await using', async () => {
    const sandbox = createTestSandbox();
    expect(typeof sandbox.close).toBe('function');
    await expect(sandbox.close()).resolves.toBeUndefined();
    let disposed: unknown;
    {
      await using inner = createTestSandbox();
      disposed = inner;
      expect(typeof (inner as unknown as Record<symbol, unknown>)[Symbol.asyncDispose]).toBe('function');
      expect(typeof (inner as unknown as Record<symbol, unknown>)[Symbol.dispose]).toBe('function');
    }
    expect(disposed).toBeDefined();
  });
});
