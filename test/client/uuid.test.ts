/**
 * Idempotency-Keys: UUID v4 from WebCrypto, with the `getRandomValues` path where `randomUUID`
 * is missing (a page over plain http outside localhost).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { uuidv4 } from '../../src/internal/uuid.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const webcrypto = globalThis.crypto;

afterEach(() => vi.unstubAllGlobals());

describe('uuidv4', () => {
  it('uses crypto.randomUUID where it exists', () => {
    const randomUUID = vi.fn(() => '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b');
    vi.stubGlobal('crypto', { randomUUID, getRandomValues: () => { throw new Error('not this path'); } });
    expect(uuidv4()).toBe('6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b');
    expect(randomUUID).toHaveBeenCalledOnce();
  });

  it('builds a v4 UUID from getRandomValues without randomUUID, version and variant bits set', () => {
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => bytes.fill(0xff) });
    expect(uuidv4()).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => bytes.fill(0) });
    expect(uuidv4()).toBe('00000000-0000-4000-8000-000000000000');
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => webcrypto.getRandomValues(bytes) });
    const keys = new Set(Array.from({ length: 200 }, () => uuidv4()));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(V4);
  });

  it('gives v4 UUIDs with the real WebCrypto', () => {
    expect(uuidv4()).toMatch(V4);
    expect(uuidv4()).not.toBe(uuidv4());
  });
});
