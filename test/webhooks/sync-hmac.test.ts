// The candidate synchronous HMAC-SHA256 of issue 34 (bench/sync-hmac: measured, not shipped),
// checked against node:crypto, so that its figures are those of a correct verifier.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jsHex, jsHmac, jsKey } from '../../bench/sync-hmac/sha256.js';
import { syncHmacWebhooks } from '../../bench/sync-hmac/plugin.js';
import type * as Webhooks from '../../src/webhooks/index.js';
import { conversionEvent, EVENT_ID, independentHeader, NOW, NOW_MS, SECRET } from './helpers.js';

// constructEvent and the rest as shipped, with the candidate in the place of src/webhooks/hmac.ts:
// bundled by the benches' own plugin, in a module graph of its own (no vi.mock in a shared worker).
let webhooks: typeof Webhooks;
const dir = mkdtempSync(join(tmpdir(), 'sync-hmac-'));
beforeAll(async () => {
  const file = join(dir, 'webhooks.mjs');
  writeFileSync(file, await syncHmacWebhooks('node'));
  webhooks = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as typeof Webhooks;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The candidate's HMAC of `data`: copied into a buffer with the room for the padding it needs. */
function candidate(key: Uint8Array, data: Uint8Array): string {
  const buf = new Uint8Array(data.length + 72).fill(0xaa); // junk past the data: the padding must overwrite it
  buf.set(data);
  const hex = jsHex(jsKey(key), buf, data.length);
  buf.set(data);
  expect(Buffer.from(jsHmac(jsKey(key), buf, data.length)).toString('hex')).toBe(hex);
  return hex;
}

const nodeHmac = (key: Uint8Array, data: Uint8Array): string => createHmac('sha256', key).update(data).digest('hex');

describe('the synchronous HMAC-SHA256 (bench/sync-hmac/sha256.ts)', () => {
  // RFC 4231, section 4: the cases with a full-length output (5 truncates to 128 bits).
  const hex = (s: string) => Buffer.from(s, 'hex');
  const text = (s: string) => Buffer.from(s, 'utf8');
  const RFC_4231: Array<[string, Uint8Array, Uint8Array, string]> = [
    ['1', hex('0b'.repeat(20)), text('Hi There'), 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
    ['2', text('Jefe'), text('what do ya want for nothing?'), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'],
    ['3', hex('aa'.repeat(20)), hex('dd'.repeat(50)), '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe'],
    ['4', hex('0102030405060708090a0b0c0d0e0f10111213141516171819'), hex('cd'.repeat(50)), '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b'],
    ['6', hex('aa'.repeat(131)), text('Test Using Larger Than Block-Size Key - Hash Key First'), '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54'],
    [
      '7',
      hex('aa'.repeat(131)),
      text('This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.'),
      '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
    ],
  ];
  it.each(RFC_4231)('RFC 4231 test case %s', (_, key, data, expected) => {
    expect(nodeHmac(key, data)).toBe(expected); // the vector as transcribed
    expect(candidate(key, data)).toBe(expected);
  });

  it('agrees with node:crypto on every length around the 64-byte block and the padding boundary, keys around 64 bytes', () => {
    for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(keyLength);
      for (let length = 0; length <= 260; length++) {
        const data = randomBytes(length);
        expect(candidate(key, data), `key ${keyLength} B, data ${length} B`).toBe(nodeHmac(key, data));
      }
    }
  });

  it('agrees with node:crypto on random keys and data, up to past the 4 kB crossover', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 150 }), fc.uint8Array({ maxLength: 5000 }), (key, data) => {
        expect(candidate(key, data)).toBe(nodeHmac(key, data));
      }),
      { numRuns: 200 },
    );
  });
});

describe('constructEvent with the synchronous HMAC (bench/sync-hmac/hmac.ts)', () => {
  // `{t}.{body}` of 4096 bytes and less is hashed in JavaScript, past it by subtle.sign.
  const prefix = `${NOW}.`.length;
  function bodyOfBytes(total: number, multiByte: boolean): string {
    const event = conversionEvent();
    const base = JSON.stringify(event);
    const fill = total - prefix - Buffer.byteLength(base) + Buffer.byteLength((event.data.object as { note: string }).note);
    const note = multiByte ? 'é'.repeat(Math.floor(fill / 2)) + 'x'.repeat(fill % 2) : 'x'.repeat(fill);
    return JSON.stringify({ ...event, data: { object: { ...event.data.object, note } } });
  }

  it.each([
    [4095, false],
    [4096, false],
    [4097, false],
    [4096, true], // 4096 bytes but fewer characters: the text fits
    [4098, true], // fewer than 4096 characters, more than 4096 bytes: WebCrypto
    [600, true],
  ])('verifies a delivery of %i bytes of {t}.{body} (multi-byte text: %s) as text and as bytes, and refuses it tampered', async (total, multiByte) => {
    const body = bodyOfBytes(total, multiByte);
    expect(prefix + Buffer.byteLength(body)).toBe(total);
    const headers = { 'x-service-signature': independentHeader(body, [SECRET]), 'x-service-event-id': EVENT_ID };
    const { constructEvent, isWebhookVerificationError } = webhooks;
    const subtleSign = vi.spyOn(crypto.subtle, 'sign');
    for (const raw of [body, new TextEncoder().encode(body)]) {
      await expect(constructEvent(raw, headers, SECRET, { now: NOW_MS, engine: 'webcrypto' })).resolves.toMatchObject({ id: EVENT_ID });
    }
    // In JavaScript up to 4096 bytes, by WebCrypto past them.
    expect(subtleSign).toHaveBeenCalledTimes(total > 4096 ? 2 : 0);
    subtleSign.mockRestore();
    const tampered = body.replace('completed', 'complete!');
    const error: unknown = await constructEvent(tampered, headers, SECRET, { now: NOW_MS, engine: 'webcrypto' }).catch((e: unknown) => e);
    expect(isWebhookVerificationError(error) && error.reason).toBe('no_matching_signature');
    expect(String((error as Error).message)).not.toContain(SECRET);
  });

  it('signs as node:crypto does, and verifies with any of several secrets', async () => {
    const { signPayload, verifySignature } = webhooks;
    const body = bodyOfBytes(1024, true);
    const header = await signPayload(body, SECRET, { timestamp: NOW, engine: 'webcrypto', secrets: ['whsec_other'] });
    expect(header).toBe(independentHeader(body, [SECRET, 'whsec_other']));
    await expect(verifySignature(body, header, ['whsec_wrong', 'whsec_other'], { now: NOW_MS, engine: 'webcrypto' })).resolves.toBe(NOW);
    await expect(verifySignature(body, header, ['whsec_wrong'], { now: NOW_MS, engine: 'webcrypto' })).rejects.toMatchObject({ reason: 'no_matching_signature' });
  });
});
