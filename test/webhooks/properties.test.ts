import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWebhookVerificationError, signPayload, verifySignature } from '../../src/webhooks/index.js';
import { ENGINES, independentHmac } from './helpers.js';

const secretArb = fc.string({ minLength: 1, maxLength: 64, unit: 'grapheme' }).map((s) => `whsec_${s}`);
const bodyArb = fc.oneof(fc.string({ maxLength: 2000, unit: 'grapheme' }), fc.uint8Array({ maxLength: 2000 }));
const timeArb = fc.integer({ min: 0, max: 4_000_000_000 });

describe.each(ENGINES)('properties, engine %s', (engine) => {
  it('signPayload agrees with an independent HMAC, and verifySignature accepts it', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, timeArb, async (body, secret, t) => {
        const header = await signPayload(body, secret, { timestamp: t, engine });
        expect(header).toBe(`t=${t},v1=${independentHmac(body, secret, t)}`);
        expect(await verifySignature(body, header, secret, { now: t * 1000, engine })).toBe(t);
      }),
      { numRuns: 150 },
    );
  });

  it('any change to one byte of the body is refused as no_matching_signature', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 512 }), fc.nat(), fc.integer({ min: 1, max: 255 }), secretArb, async (body, at, flip, secret) => {
        const header = await signPayload(body, secret, { timestamp: 1_750_000_000, engine });
        const tampered = body.slice();
        const i = at % body.length;
        tampered[i] = (tampered[i] as number) ^ flip;
        const error = await verifySignature(tampered, header, secret, { now: 1_750_000_000_000, engine }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(isWebhookVerificationError(error) && error.reason).toBe('no_matching_signature');
      }),
      { numRuns: 150 },
    );
  });

  it('the time verdict depends only on |now - t| against the tolerance', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 999 }), async (offset, tolerance, ms) => {
        const t = 1_750_000_000;
        const header = await signPayload('{}', 'whsec_x', { timestamp: t, engine });
        const outcome = await verifySignature('{}', header, 'whsec_x', { now: (t + offset) * 1000 + ms, toleranceSeconds: tolerance, engine }).then(
          () => 'ok',
          (e: unknown) => (isWebhookVerificationError(e) ? e.reason : 'other'),
        );
        const expected = offset > tolerance ? 'timestamp_too_old' : -offset > tolerance ? 'timestamp_in_future' : 'ok';
        expect(outcome).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
