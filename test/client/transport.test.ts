// The attempt itself: a custom fetch that misbehaves is handled like a network failure.
import { describe, expect, it } from 'vitest';
import { PixUsdt, isConnectionError } from '../../src/index.js';

const KEY = `sk_test_${'a'.repeat(32)}`;
const USER_ID = '6f1c0a34-5d8e-4b7a-9c1d-2e3f4a5b6c7d';

describe('a custom fetch that throws synchronously', () => {
  it('is a connection error, retried like one, and never escapes as a raw exception', async () => {
    let calls = 0;
    const waits: number[] = [];
    const client = new PixUsdt({
      apiKey: KEY,
      maxRetries: 2,
      fetch: () => {
        calls += 1;
        throw new TypeError('boom');
      },
      sleep: async (ms) => void waits.push(ms),
    });
    const error = await client.users.retrieve(USER_ID).catch((e: unknown) => e);
    expect(isConnectionError(error)).toBe(true);
    expect(calls).toBe(3);
    expect(waits).toHaveLength(2);
  });
});
