/**
 * The engine's building blocks (documents are pix-usdt/pix's: test/pix/documents.test.ts): router, collection indexes, pricing, cursors.
 */
import { describe, expect, it } from 'vitest';
import { Collection } from '../../../src/sandbox/core/collection.js';
import { decodeCursor, encodeCursor } from '../../../src/sandbox/http/cursor.js';
import { DEFAULT_PRICING, price } from '../../../src/sandbox/core/pricing.js';
import { TrieRouter } from '../../../src/sandbox/http/router.js';
import { pushesDuring } from '../../support/work.js';

describe('router', () => {
  it('matches static segments before parameters and decodes parameters', () => {
    const router = new TrieRouter<string>();
    router.add('GET', '/v1/users/:id', 'one');
    router.add('GET', '/v1/users/:id/wallet', 'wallet');
    router.add('POST', '/v1/test_helpers/clock/advance', 'advance');
    router.add('GET', '/v1/test_helpers/clock', 'clock');
    expect(router.match('GET', '/v1/users/a%20b')).toEqual({ handler: 'one', params: { id: 'a b' } });
    expect(router.match('GET', '/v1/users/x/wallet')?.handler).toBe('wallet');
    expect(router.match('POST', '/v1/users/x')).toBeNull();
    expect(router.match('GET', '/v1/test_helpers/clock')?.handler).toBe('clock');
    expect(router.match('GET', '/v1/users/%E0%A4%A')).toBeNull();
  });
});

describe('collection', () => {
  interface Rec {
    id: string;
    seq: number;
    status: string;
  }

  it('serves filtered pages from indexes and keeps them right across updates', () => {
    const c = new Collection<Rec>({ status: (r) => r.status });
    for (let i = 0; i < 10; i++) c.insert({ id: `r${i}`, seq: 0, status: i % 2 === 0 ? 'even' : 'odd' });
    expect(c.page({ index: ['status', 'even'], limit: 2 }).items.map((r) => r.id)).toEqual(['r8', 'r6']);
    c.update(c.get('r3') as Rec, (r) => (r.status = 'even'));
    const page = c.page({ index: ['status', 'even'], limit: 10 });
    expect(page.items.map((r) => r.id)).toEqual(['r8', 'r6', 'r4', 'r3', 'r2', 'r0']);
    expect(page.hasMore).toBe(false);
    expect(c.page({ index: ['status', 'even'], before: 4, limit: 2 }).items.map((r) => r.id)).toEqual(['r3', 'r2']);
    expect(c.page({ index: ['status', 'odd'], limit: 10 }).items.map((r) => r.id)).toEqual(['r9', 'r7', 'r5', 'r1']);
  });

  it('holds records at any positions without holes: a gap costs nothing, and pages, lookups and removals see across it (issue 35)', () => {
    const c = new Collection<Rec>({ status: (r) => r.status });
    const positions = [0, 1, 2_000_000, 2_000_001, 2 ** 31 - 1, 2 ** 40];
    const { pushes } = pushesDuring(() => positions.forEach((seq, i) => c.restore({ id: `r${i}`, seq, status: i % 2 === 0 ? 'even' : 'odd' })));
    // One push per record (and per index list that grows), not one per position.
    expect(pushes).toBeLessThan(positions.length * 3);
    expect(c.size).toBe(positions.length);
    expect(c.all().map((r) => r.seq)).toEqual(positions);
    expect(c.page({ limit: 3 }).items.map((r) => r.id)).toEqual(['r5', 'r4', 'r3']);
    expect(c.page({ before: 2_000_001, limit: 10 }).items.map((r) => r.id)).toEqual(['r2', 'r1', 'r0']);
    expect(c.page({ index: ['status', 'even'], limit: 10 }).items.map((r) => r.id)).toEqual(['r4', 'r2', 'r0']);
    expect(c.page({ index: ['status', 'odd'], before: 2 ** 40, limit: 10 }).items.map((r) => r.id)).toEqual(['r3', 'r1']);
    // A record inserted after them takes the next position; one read back behind the last takes the next too.
    expect(c.insert({ id: 'new', seq: 0, status: 'odd' }).seq).toBe(2 ** 40 + 1);
    expect(c.restore({ id: 'old', seq: 5, status: 'odd' }).seq).toBe(2 ** 40 + 2);
    c.remove([c.get('r2') as Rec, c.get('r5') as Rec]);
    expect(c.all().map((r) => r.id)).toEqual(['r0', 'r1', 'r3', 'r4', 'new', 'old']);
    expect(c.page({ index: ['status', 'odd'], limit: 10 }).items.map((r) => r.id)).toEqual(['old', 'new', 'r3', 'r1']);
    expect(c.page({ index: ['status', 'even'], limit: 10 }).items.map((r) => r.id)).toEqual(['r4', 'r0']);
    expect(c.get('r2')).toBeUndefined();
  });
});

describe('pricing', () => {
  it('applies the spread against the customer and rounds in the platform favour', () => {
    const on = price(DEFAULT_PRICING, 'onramp', { target: '10.000000' });
    expect(on).toMatchObject({ exchangeRate: '5.427000', sourceAmount: '54.27', netTargetAmount: '9.000000' });
    const off = price({ ...DEFAULT_PRICING, midRate: '5.123457' }, 'offramp', { source: '1.000000' });
    // 5.123457 * 0.995 = 5.09784...; rounded down to 5.097839; 1 USDT pays 5.09 BRL (down).
    expect(off).toMatchObject({ exchangeRate: '5.097839', targetAmount: '5.09', withdrawalFeeUsdt: '0.000000' });
    const issue = (fn: () => unknown): string => {
      try {
        fn();
      } catch (e) {
        return JSON.stringify((e as { details?: unknown }).details);
      }
      return 'no error';
    };
    expect(issue(() => price(DEFAULT_PRICING, 'onramp', { source: '1.001' }))).toMatch(/at most 2 decimals/);
    expect(issue(() => price(DEFAULT_PRICING, 'onramp', { source: '5.00' }))).toMatch(/withdrawal fee/);
  });
});

describe('cursor', () => {
  it('round-trips and refuses other secrets and filters', () => {
    const cursor = encodeCursor('secret', 41, 'fp');
    expect(decodeCursor('secret', cursor, 'fp')).toBe(41);
    expect(() => decodeCursor('other', cursor, 'fp')).toThrow(/cursor/);
    expect(() => decodeCursor('secret', cursor, 'fp2')).toThrow(/cursor/);
    expect(() => decodeCursor('secret', encodeCursor('secret', 41, 'fp').replace(/^./, 'x'), 'fp')).toThrow(/cursor/);
  });
});
