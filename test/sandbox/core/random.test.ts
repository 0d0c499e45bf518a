/**
 * Unseeded draws (a server's request ids, ids and secrets) come from a pool of CSPRNG bytes
 * (src/sandbox/core/random.ts): one `getRandomValues` call serves many draws, every byte is
 * handed out once, and ids keep the UUID v4 form.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Random, flat } from '../../../src/sandbox/core/random.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('unseeded random draws', () => {
  it('draw from a pool: far fewer CSPRNG calls than draws, and no id twice', () => {
    const spy = vi.spyOn(globalThis.crypto, 'getRandomValues');
    const random = new Random();
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) ids.add(random.uuidHex('req_'));
    expect(ids.size).toBe(2000);
    // 2,000 draws of 16 bytes: 32,000 bytes, eight or nine fills of a 4,096-byte pool.
    expect(spy.mock.calls.length).toBeGreaterThan(0);
    expect(spy.mock.calls.length).toBeLessThanOrEqual(10);
    for (const id of [...ids].slice(0, 50)) expect(id).toMatch(/^req_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });

  it('hand out each byte once, across refills and sandboxes, and large draws whole', () => {
    const a = new Random();
    const b = new Random();
    // Draws of every size that straddle the pool's end; a repeated 8-byte window would mean a byte reused.
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const drawn = (i % 2 === 0 ? a : b).bytes(8 + (i % 17));
      expect(drawn.length).toBe(8 + (i % 17));
      const key = Buffer.from(drawn.subarray(0, 8)).toString('hex');
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
    const large = a.bytes(10_000);
    expect(large.length).toBe(10_000);
    expect(new Set(large).size).toBeGreaterThan(200);
    expect(a.base62(40)).toMatch(/^[0-9A-Za-z]{40}$/);
  });

  it('stay seeded where a seed is given: the same draws for the same seed, no CSPRNG call', () => {
    const spy = vi.spyOn(globalThis.crypto, 'getRandomValues');
    expect(new Random('s').uuidHex()).toBe(new Random('s').uuidHex());
    expect(spy).not.toHaveBeenCalled();
  });
});

describe('flat', () => {
  it('copies any string exactly: ASCII (decoded from its codes), up to 256 characters and past, non-ASCII and lone surrogates', () => {
    const ascii = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join('');
    for (const text of ['', 'key-1', ascii, ascii + ascii, `${ascii}${ascii}x`, 'chave-ção', '\ud800x', 'a'.repeat(256), 'a'.repeat(257)]) {
      expect(flat(text)).toBe(text);
    }
    expect(flat('one')).not.toBe(flat('two'));
  });
});
