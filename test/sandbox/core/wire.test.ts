/**
 * Wire forms written without their object (src/sandbox/core/wire.ts): `userJson` is
 * `JSON.stringify(userOut(u))` byte for byte, for any text in a user's fields (quotes,
 * backslashes, control characters, lone and paired surrogates), any metadata, null and set
 * instants, and a record whose fields are not of their types. `pixQrCode`, written without
 * `buildBrCode`'s read-back check, is the code `buildBrCode` writes, and a valid one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UserRec } from '../../../src/sandbox/core/state.js';
import { buildBrCode, validateBrCode } from '../../../src/pix/brcode.js';
import { SANDBOX_PIX_EVP } from '../../../src/sandbox/core/pix.js';
import { derivedHex } from '../../../src/sandbox/core/random.js';
import { pixQrCode, userJson, userOut } from '../../../src/sandbox/core/wire.js';

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u2028', '\ud800', '\udfff', 'a', 'é', '😀') }));
const instant = fc.integer({ min: 0, max: 4_102_444_800_000 });
const user: fc.Arbitrary<UserRec> = fc.record({
  id: fc.oneof(fc.uuid(), text),
  seq: fc.nat(),
  externalId: text,
  name: text,
  email: fc.option(text),
  dateOfBirth: fc.option(text),
  cpf: fc.oneof(fc.stringMatching(/^\d{11}$/), text),
  kycStatus: fc.oneof(fc.constantFrom('not_started', 'pending', 'approved', 'rejected', 'expired'), text) as fc.Arbitrary<UserRec['kycStatus']>,
  kycApprovedAt: fc.option(instant),
  kycExpiresAt: fc.option(instant),
  metadata: fc.oneof(fc.constant(Object.freeze({})), fc.dictionary(text, text)),
  createdAt: instant,
  updatedAt: instant,
  deletedAt: fc.option(instant),
  submission: fc.constant(null),
  walletId: fc.uuid(),
  balance: fc.constant('0.000000'),
  walletUpdatedAt: instant,
});

describe('userJson', () => {
  it('writes what JSON.stringify(userOut(u)) writes', () => {
    fc.assert(
      fc.property(user, (u) => {
        expect(userJson(u)).toBe(JSON.stringify(userOut(u)));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the object path for a record whose fields are not of their types', () => {
    const u = fc.sample(user, { numRuns: 1, seed: 1 })[0] as UserRec;
    for (const broken of [{ email: undefined }, { name: 42 }, { metadata: null }, { kycStatus: undefined }, { metadata: new (class M { a = '1' })() }]) {
      const odd = { ...u, cpf: '52998224725', ...broken } as unknown as UserRec;
      expect(userJson(odd)).toBe(JSON.stringify(userOut(odd)));
    }
  });
});

describe('pixQrCode', () => {
  // What the sandbox wrote before it skipped buildBrCode's read-back check.
  const checked = (id: string, amount: string): string =>
    buildBrCode({ key: SANDBOX_PIX_EVP, merchantName: 'PIX USDT SANDBOX', merchantCity: 'SAO PAULO', ...(amount.length <= 13 ? { amount } : {}), txid: derivedHex(`txid:${id}`, 25).toUpperCase(), singleUse: true });
  // Every amount the sandbox writes: BRL with two decimals, from a cent to past a BR Code's 13 characters.
  const amount = fc.bigInt({ min: 1n, max: 10n ** 16n }).map((cents) => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`);

  it("writes buildBrCode's code, a valid one, for any id and any amount", () => {
    fc.assert(
      fc.property(fc.uuid(), amount, (id, brl) => {
        const code = pixQrCode(id, brl);
        expect(code).toBe(checked(id, brl));
        const read = validateBrCode(code);
        expect(read.valid).toBe(true);
        if (read.valid) expect(read.brCode.amount).toBe(brl.length <= 13 ? brl : undefined);
      }),
    );
  });
});
