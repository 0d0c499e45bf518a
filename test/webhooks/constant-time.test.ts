/**
 * Signatures are compared in constant time (issue 22): the comparison reads every position of
 * both sides, in the same order, whether the first byte differs, the last one, or none; and
 * every digest is compared with every `v1=` of the header, a match ending nothing early. Proved
 * by counting reads (no timing in tests): the sequence of reads cannot depend on the secret digest.
 */
import { describe, expect, it, vi } from 'vitest';
import { verifySignature } from '../../src/webhooks/index.js';
import { hexMatches } from '../../src/webhooks/header.js';
import type * as Header from '../../src/webhooks/header.js';
import { ENGINES, NOW, NOW_MS, OTHER_SECRET, SECRET, independentHmac } from './helpers.js';

const comparisons = vi.hoisted(() => ({ count: 0 }));

vi.mock('../../src/webhooks/header.js', async (importOriginal) => {
  const original = await importOriginal<typeof Header>();
  return {
    ...original,
    hexMatches: (digest: Uint8Array | string, hex: string): boolean => {
      comparisons.count++;
      return original.hexMatches(digest, hex);
    },
  };
});

const HEX = independentHmac('{"id":"evt"}', SECRET, NOW); // 64 lower-case hex digits
const BYTES = Uint8Array.from(HEX.match(/../g) ?? [], (pair) => parseInt(pair, 16));

/** Text that records every position read, through `charCodeAt` (all `hexMatches` reads of a string). */
function recordedText(text: string, reads: string[], side: string): string {
  return { length: text.length, charCodeAt: (i: number) => (reads.push(`${side}${i}`), text.charCodeAt(i)) } as unknown as string;
}

/** Bytes that record every index read. */
function recordedBytes(bytes: Uint8Array, reads: string[]): Uint8Array {
  return new Proxy(bytes, {
    get(target, key) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads.push(`d${key}`);
      return Reflect.get(target, key, target) as unknown;
    },
  });
}

// The v1 value with one hex digit changed at `at` (or unchanged), in upper case or lower case.
function variant(at: number | undefined, upper = false): string {
  let hex = HEX;
  if (at !== undefined) hex = hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);
  return upper ? hex.toUpperCase() : hex;
}

describe('hexMatches', () => {
  it('tells equal from different digests, raw bytes or hex, either case of the header', () => {
    expect(hexMatches(BYTES, HEX)).toBe(true);
    expect(hexMatches(BYTES, HEX.toUpperCase())).toBe(true);
    expect(hexMatches(HEX, HEX.toUpperCase())).toBe(true);
    for (const at of [0, 1, 31, 62, 63]) {
      expect(hexMatches(BYTES, variant(at)), `hex digit ${at}`).toBe(false);
      expect(hexMatches(HEX, variant(at)), `hex digit ${at}`).toBe(false);
    }
    expect(hexMatches(BYTES.subarray(0, 31), HEX)).toBe(false);
    expect(hexMatches(HEX.slice(1), HEX)).toBe(false);
  });

  it.each([
    ['raw bytes (WebCrypto)', 'bytes'],
    ['hex text (node:crypto)', 'text'],
  ] as const)('reads every position of %s and of the header, in the same order, wherever they differ', (_, kind) => {
    const sequences = [undefined, 0, 1, 30, 63].flatMap((at) =>
      [false, true].map((upper) => {
        const reads: string[] = [];
        // A string primitive cannot record its reads: on the node:crypto path, the header's side tells.
        const digest = kind === 'bytes' ? recordedBytes(BYTES, reads) : HEX;
        const outcome = hexMatches(digest, recordedText(variant(at, upper), reads, 'h'));
        expect(outcome).toBe(at === undefined);
        return reads.join(' ');
      }),
    );
    expect(new Set(sequences).size).toBe(1);
    const reads = (sequences[0] as string).split(' ');
    expect(reads.filter((r) => r.startsWith('h'))).toHaveLength(64);
    expect(reads.filter((r) => r.startsWith('d'))).toHaveLength(kind === 'bytes' ? 32 : 0);
  });
});

describe.each(ENGINES)('verification, engine %s', (engine) => {
  it('compares every digest with every v1=, even after one matched', async () => {
    const body = '{"id":"evt"}';
    // The matching signature first, then two that do not match; two secrets.
    const header = `t=${NOW},v1=${independentHmac(body, SECRET, NOW)},v1=${variant(5)},v1=${variant(40)}`;
    comparisons.count = 0;
    await expect(verifySignature(body, header, [SECRET, OTHER_SECRET], { now: NOW_MS, engine })).resolves.toBe(NOW);
    expect(comparisons.count).toBe(2 * 3);
    comparisons.count = 0;
    await expect(verifySignature(body, header, [OTHER_SECRET], { now: NOW_MS, engine })).rejects.toMatchObject({ reason: 'no_matching_signature' });
    expect(comparisons.count).toBe(3);
  });
});
