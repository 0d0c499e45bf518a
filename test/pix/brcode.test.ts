// BR Code reading, checking and writing, against the Banco Central's own example, codes as they
// are found in the wild, and pix-utils (an independent implementation, a dev dependency).
import fc from 'fast-check';
import { createDynamicPix, createStaticPix, hasError, parsePix } from 'pix-utils';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { buildBrCode, crc16, isBrCodeError, parseBrCode, validateBrCode, type BrCode, type BrCodeReason, type BuildBrCodeInput, type ParsedBrCode } from 'pix-usdt/pix';

// The static example of the Manual de Padrões para Iniciação do Pix (Anexo I), EVP key, no amount.
const MANUAL_STATIC =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

/** Re-seals `payload` (everything before the CRC value) with a correct CRC. */
const seal = (payload: string): string => payload + crc16(payload);
const tlv = (id: string, value: string): string => `${id}${String(value.length).padStart(2, '0')}${value}`;
const reasons = (text: string): BrCodeReason[] => parseBrCode(text).warnings.map((w) => w.reason);

describe('crc16', () => {
  it('is CRC-16/CCITT-FALSE: its check value over "123456789" is 29B1', () => {
    expect(crc16('123456789')).toBe('29B1');
  });

  it('zero-pads to four upper-case hex digits', () => {
    // Find a short text whose CRC is below 0x1000, the case generators in the wild get wrong.
    const text = Array.from({ length: 5000 }, (_, i) => `x${i}`).find((t) => crc16(t).startsWith('0'));
    expect(text).toBeDefined();
    expect(crc16(text as string)).toMatch(/^0[0-9A-F]{3}$/);
  });

  // The algorithm as its definition reads, a bit at a time (what crc16 was until issue 34).
  const bitwise = (text: string): string => {
    let crc = 0xffff;
    for (const byte of new TextEncoder().encode(text)) {
      crc ^= byte << 8;
      for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
    return crc.toString(16).toUpperCase().padStart(4, '0');
  };

  it('computed a byte at a time, equals the bit-at-a-time definition for any text (UTF-8 bytes included)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ maxLength: 600 })), (text) => {
        expect(crc16(text)).toBe(bitwise(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('validateBrCode', () => {
  it("accepts the manual's static example and reads its fields", () => {
    const result = validateBrCode(MANUAL_STATIC);
    expect(result.valid).toBe(true);
    if (!result.valid) return;
    expect(result.brCode).toMatchObject({
      kind: 'static',
      singleUse: false,
      key: '123e4567-e12b-12d1-a456-426655440000',
      merchantCategoryCode: '0000',
      currency: '986',
      countryCode: 'BR',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      txid: '***',
      crc: '1D3D',
    });
    expect(result.brCode.amount).toBeUndefined();
  });

  it('agrees with pix-utils on the same example', () => {
    const theirs = parsePix(MANUAL_STATIC);
    expect(hasError(theirs)).toBe(false);
    expect(theirs).toMatchObject({ type: 'STATIC', pixKey: '123e4567-e12b-12d1-a456-426655440000', merchantName: 'Fulano de Tal', txid: '***' });
  });

  const payload = MANUAL_STATIC.slice(0, -4);
  const cases: [string, string, BrCodeReason][] = [
    ['a wrong CRC', `${payload}1D3E`, 'crc_mismatch'],
    ['a lower-case CRC', `${payload}1d3d`, 'invalid_crc_format'],
    ['a CRC without zero padding', `${payload.slice(0, -4)}6304ABC`, 'invalid_crc_format'],
    ['whitespace around a pasted code', ` ${MANUAL_STATIC}\n`, 'whitespace'],
    ['an empty text', '', 'empty'],
    ['a name of 26 characters', seal(payload.replace('5913Fulano de Tal', tlv('59', 'A'.repeat(26)))), 'invalid_merchant_name'],
    ['a city of 16 characters', seal(payload.replace('6008BRASILIA', tlv('60', 'B'.repeat(16)))), 'invalid_merchant_city'],
    ['an accented city', seal(payload.replace('6008BRASILIA', tlv('60', 'BRASÍLIA'))), 'invalid_characters'],
    ['currency 840', seal(payload.replace('5303986', '5303840')), 'invalid_currency'],
    ['country US', seal(payload.replace('5802BR', '5802US')), 'invalid_country'],
    ['a category code of letters', seal(payload.replace('52040000', '5204ABCD')), 'invalid_merchant_category_code'],
    ['payload format 02', seal(payload.replace(/^000201/, '000202')), 'invalid_payload_format'],
    ['point of initiation 13', seal(payload.replace(/^000201/, '000201010213')), 'invalid_point_of_initiation'],
    ['an amount with a comma', seal(payload.replace('5802BR', `${tlv('54', '10,00')}5802BR`)), 'invalid_amount'],
    ['an amount with three decimals', seal(payload.replace('5802BR', `${tlv('54', '10.000')}5802BR`)), 'invalid_amount'],
    ['a zero amount', seal(payload.replace('5802BR', `${tlv('54', '0.00')}5802BR`)), 'invalid_amount'],
    ['a txid with a hyphen', seal(payload.replace('62070503***', tlv('62', tlv('05', 'PEDIDO-1')))), 'invalid_txid'],
    ['a static txid of 26 characters', seal(payload.replace('62070503***', tlv('62', tlv('05', 'A'.repeat(26))))), 'invalid_txid'],
    ['no field 62-05', seal(payload.replace('62070503***', tlv('62', tlv('01', 'X')))), 'missing_field'],
    ['no field 58', seal(payload.replace('5802BR', '')), 'missing_field'],
    ['field 59 twice', seal(payload.replace('6008BRASILIA', '5901X6008BRASILIA')), 'duplicate_field'],
    ['a key with punctuation', seal(payload.replace(/^000201.*?5204/, `000201${tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('01', '529.982.247-25'))}5204`)), 'invalid_pix_key'],
    ['both a key and a URL', seal(payload.replace(/^000201.*?5204/, `000201${tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('01', 'pix@example.com') + tlv('25', 'pix.example.com/qr/1'))}5204`)), 'invalid_pix_account'],
    ['an empty field', seal(payload.replace('5802BR', '54005802BR')), 'empty_field'],
    ['a GUI in upper case', seal(payload.replace('br.gov.bcb.pix', 'BR.GOV.BCB.PIX')), 'invalid_gui'],
    ['no Pix account', seal(payload.replace('br.gov.bcb.pix', 'br.gov.bcb.xyz')), 'missing_pix_account'],
    ['a length that runs past the end', `${payload.slice(0, 60)}5999X`, 'malformed'],
    ['the CRC not last', seal(payload.replace('5802BR', '')) + '5802BR', 'field_order'],
  ];

  it.each(cases)('refuses %s', (_name, text, reason) => {
    const result = validateBrCode(text);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors.map((e) => e.reason)).toContain(reason);
    expect(result.reason).toBe(result.errors[0]?.reason);
  });

  it('names the field of an issue', () => {
    const text = seal(payload.replace('5913Fulano de Tal', tlv('59', 'A'.repeat(26))));
    expect(parseBrCode(text).warnings).toEqual([expect.objectContaining({ reason: 'invalid_merchant_name', field: '59' })]);
  });
});

describe('parseBrCode (lenient)', () => {
  it('reads a code with an unpadded CRC and an over-long name, warning about both', () => {
    // A generator that forgets the zero padding writes `6304` and three hex digits when the CRC is below 0x1000.
    const bodyOf = (n: number): string =>
      `00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000520400005303986540510.005802BR${tlv('59', `EMPRESA DE NOME MUITO COMPRIDO ${n}`)}6009SAO PAULO62070503***6304`;
    const n = Array.from({ length: 2000 }, (_, i) => i).find((i) => crc16(bodyOf(i)).startsWith('0')) as number;
    const body = bodyOf(n);
    const { brCode, warnings } = parseBrCode(body + crc16(body).slice(1));
    expect(brCode?.merchantName).toBe(`EMPRESA DE NOME MUITO COMPRIDO ${n}`);
    expect(brCode?.amount).toBe('10.00');
    expect(brCode?.crc).toBe(crc16(body).slice(1));
    expect(warnings.map((w) => w.reason)).toEqual(['invalid_merchant_name', 'invalid_crc_format']);
  });

  it('reads a lower-case CRC as the same CRC (format warning only)', () => {
    expect(reasons(`${MANUAL_STATIC.slice(0, -4)}1d3d`)).toEqual(['invalid_crc_format']);
  });

  it('returns what it read before a broken field', () => {
    const { brCode, warnings } = parseBrCode(`${MANUAL_STATIC.slice(0, 60)}99`);
    expect(brCode?.fields[0]).toEqual({ id: '00', value: '01' });
    expect(warnings[0]?.reason).toBe('malformed');
  });

  it('returns no code for text that holds no field', () => {
    expect(parseBrCode('hello').brCode).toBeNull();
    expect(reasons('hello')).toContain('malformed');
  });
});

describe('buildBrCode', () => {
  it('writes what pix-utils writes for a static code', () => {
    const ours = buildBrCode({ key: 'pix@example.com', merchantName: 'LOJA', merchantCity: 'SAO PAULO', amount: '10.00', txid: 'PEDIDO123' });
    const theirs = createStaticPix({ merchantName: 'LOJA', merchantCity: 'SAO PAULO', pixKey: 'pix@example.com', infoAdicional: '', transactionAmount: 10, txid: 'PEDIDO123' });
    if (hasError(theirs)) throw new Error(theirs.message);
    expect(ours).toBe(theirs.toBRCode());
  });

  it('writes a dynamic code with its URL in 26-25, *** in 62-05 and 01 = 12', () => {
    const code = buildBrCode({ url: 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25', merchantName: 'LOJA', merchantCity: 'SAO PAULO' });
    const result = validateBrCode(code);
    expect(result.valid && result.brCode).toMatchObject({ kind: 'dynamic', singleUse: true, url: 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25', txid: '***' });
    const theirs = parsePix(code);
    expect(hasError(theirs)).toBe(false);
    expect(theirs).toMatchObject({ type: 'DYNAMIC', url: 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25' });
    const reusable = createDynamicPix({ merchantName: 'LOJA', merchantCity: 'SAO PAULO', url: 'pix.example.com/qr/v2/abc' });
    if (hasError(reusable)) throw new Error(reusable.message);
    expect(buildBrCode({ url: 'pix.example.com/qr/v2/abc', merchantName: 'LOJA', merchantCity: 'SAO PAULO', singleUse: false })).toBe(reusable.toBRCode());
  });

  it('BrCode is a union narrowed by kind: a static code\'s key and a dynamic code\'s url are strings (tsc -p . checks the types)', () => {
    const read = (code: string): string => {
      const result = validateBrCode(code);
      if (!result.valid) throw new Error(result.reason);
      const { brCode } = result;
      // Before the union, `key` and `url` were `string | undefined` whatever `kind` said: neither line compiled.
      if (brCode.kind === 'static') {
        const key: string = brCode.key;
        expectTypeOf(brCode.url).toEqualTypeOf<undefined>();
        return `key ${key}`;
      }
      const url: string = brCode.url;
      expectTypeOf(brCode.key).toEqualTypeOf<undefined>();
      return `url ${url}`;
    };
    expect(read(buildBrCode({ key: 'pix@example.com', merchantName: 'A', merchantCity: 'B' }))).toBe('key pix@example.com');
    expect(read(buildBrCode({ url: 'pix.example.com/qr/v2/abc', merchantName: 'A', merchantCity: 'B' }))).toBe('url pix.example.com/qr/v2/abc');
    expectTypeOf<Extract<BrCode, { kind: 'static' }>['key']>().toEqualTypeOf<string>();
    expectTypeOf<Extract<BrCode, { kind: 'dynamic' }>['url']>().toEqualTypeOf<string>();
    // The lenient reader promises neither: a code with warnings may lack both, or hold both.
    expectTypeOf<ParsedBrCode['key']>().toEqualTypeOf<string | undefined>();
    const both = parseBrCode(seal(`000201${tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('01', 'pix@example.com') + tlv('25', 'pix.example.com/x'))}520400005303986${tlv('58', 'BR')}${tlv('59', 'A')}${tlv('60', 'B')}${tlv('62', tlv('05', '***'))}6304`));
    expect(both.brCode).toMatchObject({ kind: 'static', key: 'pix@example.com', url: 'pix.example.com/x' });
    expect(both.warnings.map((w) => w.reason)).toContain('invalid_pix_account');
  });

  it('normalizes the key as the DICT stores it', () => {
    const code = buildBrCode({ key: '529.982.247-25', merchantName: 'A', merchantCity: 'B' });
    expect(parseBrCode(code).brCode?.key).toBe('52998224725');
  });

  const refused: [string, BuildBrCodeInput, BrCodeReason][] = [
    ['a name of 26 characters', { key: 'pix@example.com', merchantName: 'A'.repeat(26), merchantCity: 'B' }, 'invalid_merchant_name'],
    ['an accented city', { key: 'pix@example.com', merchantName: 'A', merchantCity: 'São Paulo' }, 'invalid_characters'],
    ['an amount with a comma', { key: 'pix@example.com', merchantName: 'A', merchantCity: 'B', amount: '10,00' }, 'invalid_amount'],
    ['a key that is no Pix key', { key: 'not a key', merchantName: 'A', merchantCity: 'B' }, 'invalid_pix_key'],
    ['a txid with a hyphen', { key: 'pix@example.com', merchantName: 'A', merchantCity: 'B', txid: 'A-1' }, 'invalid_txid'],
    ['a URL with its scheme', { url: 'https://pix.example.com/qr/1', merchantName: 'A', merchantCity: 'B' }, 'invalid_url'],
    ['an empty description', { key: 'pix@example.com', merchantName: 'A', merchantCity: 'B', description: '' }, 'empty_field'],
    ['a description past the template size', { key: 'pix@example.com', merchantName: 'A', merchantCity: 'B', description: 'x'.repeat(90) }, 'field_too_long'],
  ];

  it.each(refused)('refuses %s with a typed BrCodeError', (_name, input, reason) => {
    let thrown: unknown;
    try {
      buildBrCode(input);
    } catch (error) {
      thrown = error;
    }
    expect(isBrCodeError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ name: 'BrCodeError', reason });
  });
});

// Inputs a partner may pass: printable ASCII names and cities, amounts as decimal strings.
const ascii = (min: number, max: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: min, maxLength: max });
const alnum = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), minLength: min, maxLength: max });
const amount = fc.tuple(fc.integer({ min: 0, max: 9_999_999 }), fc.integer({ min: 1, max: 99 })).map(([units, cents]) => `${units}.${String(cents).padStart(2, '0')}`);
const staticInput = fc.record(
  {
    key: fc.constantFrom('pix@example.com', '52998224725', '11222333000181', '12ABC34501DE35', '+5511999999999', '123e4567-e12b-12d1-a456-426655440000'),
    merchantName: ascii(1, 25),
    merchantCity: ascii(1, 15),
    amount,
    txid: alnum(1, 25),
    description: ascii(1, 20),
  },
  { requiredKeys: ['key', 'merchantName', 'merchantCity'] },
);
const dynamicInput = fc.record(
  { url: alnum(1, 20).map((id) => `pix.example.com/qr/v2/${id}`), merchantName: ascii(1, 25), merchantCity: ascii(1, 15), amount, singleUse: fc.boolean() },
  { requiredKeys: ['url', 'merchantName', 'merchantCity'] },
);

describe('properties', () => {
  it('build then parse gives back every input, with no warning', () => {
    fc.assert(
      fc.property(fc.oneof(staticInput, dynamicInput), (input: BuildBrCodeInput) => {
        const { brCode, warnings } = parseBrCode(buildBrCode(input));
        expect(warnings).toEqual([]);
        const expected = { ...input, txid: 'url' in input ? '***' : (input.txid ?? '***'), singleUse: input.singleUse ?? 'url' in input };
        expect(brCode).toMatchObject(expected);
      }),
    );
  });

  it('pix-utils reads every static code we build as we do', () => {
    fc.assert(
      fc.property(staticInput, (input) => {
        const theirs = parsePix(buildBrCode(input));
        if (hasError(theirs)) throw new Error(theirs.message);
        expect(theirs).toMatchObject({ type: 'STATIC', pixKey: input.key, merchantName: input.merchantName, merchantCity: input.merchantCity, txid: input.txid ?? '***' });
        expect(theirs).toMatchObject({ transactionAmount: input.amount === undefined ? 0 : Number(input.amount) });
      }),
    );
  });

  it('any one-character change fails the CRC, and the code', () => {
    fc.assert(
      fc.property(staticInput, fc.nat(), fc.integer({ min: 0x20, max: 0x7e }), (input, at, char) => {
        const code = buildBrCode(input);
        const i = at % code.length;
        const replacement = String.fromCharCode(char);
        fc.pre(code[i] !== replacement && code[i]?.toUpperCase() !== replacement.toUpperCase());
        const mutated = code.slice(0, i) + replacement + code.slice(i + 1);
        const end = code.length - 4;
        if (i < end) expect(crc16(mutated.slice(0, end))).not.toBe(code.slice(end));
        expect(validateBrCode(mutated).valid).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
