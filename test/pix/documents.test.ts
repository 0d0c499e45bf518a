// CPF and CNPJ, cross-checked against @brazilian-utils/brazilian-utils (a dev dependency), whose
// `version: 2` option knows the alphanumeric CNPJ.
import { generateCNPJ, generateCPF, isValidCNPJ, isValidCPF } from '@brazilian-utils/brazilian-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCnpj, formatCpf, isValidCnpj, isValidCpf, maskCnpj, maskCpf, normalizeCnpj, normalizeCpf } from 'pix-usdt/pix';
import { generateCnpj, generateCpf } from 'pix-usdt/pix/testing';

/** A seeded source of numbers in [0, 1) (Park-Miller), for reproducible generated documents. */
const seeded = (seed: number): (() => number) => {
  let s = (Math.abs(seed) % 2147483646) + 1;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
};
/** Valid documents with one character changed half of the time: both libraries must agree on each. */
const nearValid = (make: (random: () => number) => string) =>
  fc.tuple(fc.integer(), fc.nat(13), fc.constantFrom(...'0123456789'), fc.boolean()).map(([seed, at, digit, mutate]) => {
    const valid = make(seeded(seed));
    return mutate ? valid.slice(0, at % valid.length) + digit + valid.slice((at % valid.length) + 1) : valid;
  });

describe('CPF', () => {
  it.each(['52998224725', '529.982.247-25', '11144477735', '111.444.777-35'])('accepts %s', (cpf) => {
    expect(isValidCpf(cpf)).toBe(true);
  });
  it.each(['52998224726', '11111111111', '5299822472', '529.982.247/25', '52998224725a', ''])('refuses %s', (cpf) => {
    expect(isValidCpf(cpf)).toBe(false);
  });

  it('normalizes, formats and masks as the API does (document_masked)', () => {
    expect(normalizeCpf(' 529.982.247-25 ')).toBe('52998224725');
    expect(formatCpf('52998224725')).toBe('529.982.247-25');
    expect(maskCpf('529.982.247-25')).toBe('***.982.247-**');
    expect(maskCpf('not a cpf')).toBeNull();
    expect(formatCpf('123')).toBeNull();
  });

  it('agrees with brazilian-utils on any 11 digits', () => {
    fc.assert(fc.property(fc.oneof(fc.stringMatching(/^\d{11}$/), nearValid((random) => generateCpf({ random }))), (cpf) => {
          expect(isValidCpf(cpf)).toBe(isValidCPF(cpf));
        }), { numRuns: 2000 });
  });

  it('generates CPFs both libraries accept, reproducibly with a seeded source', () => {
    for (let i = 0; i < 200; i++) {
      const cpf = generateCpf();
      expect(cpf).toMatch(/^\d{11}$/);
      expect(isValidCPF(cpf)).toBe(true);
      expect(isValidCpf(generateCPF())).toBe(true);
    }
    expect(generateCpf({ random: seeded(42) })).toBe(generateCpf({ random: seeded(42) }));
  });
});

describe('CNPJ', () => {
  it.each(['11222333000181', '11.222.333/0001-81', '12ABC34501DE35', '12.ABC.345/01DE-35', '12abc34501de35'])('accepts %s', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(true);
    expect(isValidCNPJ(cnpj, { version: 2 })).toBe(true);
  });

  it.each(['11222333000182', '12ABC34501DE36', '00000000000000', 'AAAAAAAAAAAA00', '12ABC34501DE3A', '1122233300018'])('refuses %s', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(false);
  });

  // The alphanumeric check digits are where validators go wrong: a letter is worth its char code
  // minus 48 (A = 17), not its position in the alphabet nor 10.
  it('values a letter at its char code minus 48', () => {
    // With A = 10 (a common mistake), 12ABC34501DE would take other check digits than 35.
    expect(isValidCnpj('12ABC34501DE35')).toBe(true);
    const body = '12ABC34501DE';
    const wrong = [...'0123456789'].flatMap((a) => [...'0123456789'].map((b) => `${body}${a}${b}`)).filter((c) => isValidCnpj(c));
    expect(wrong).toEqual(['12ABC34501DE35']);
  });

  it('agrees with brazilian-utils on any 14 characters of [0-9A-Z] ending in two digits', () => {
    const alnum = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    const cnpj = fc.tuple(fc.string({ unit: alnum, minLength: 12, maxLength: 12 }), fc.stringMatching(/^\d{2}$/)).map(([a, b]) => a + b);
    fc.assert(fc.property(fc.oneof(cnpj, nearValid((random) => generateCnpj({ random, alphanumeric: random() < 0.5 }))), (c) => {
          expect(isValidCnpj(c)).toBe(isValidCNPJ(c, { version: 2 }));
        }), { numRuns: 2000 });
  });

  it('generates numeric and alphanumeric CNPJs both libraries accept', () => {
    for (let i = 0; i < 200; i++) {
      const numeric = generateCnpj();
      const alphanumeric = generateCnpj({ alphanumeric: true });
      expect(numeric).toMatch(/^\d{14}$/);
      expect(alphanumeric).toMatch(/^[0-9A-Z]{12}\d{2}$/);
      expect(isValidCNPJ(numeric, { version: 2 }) && isValidCNPJ(alphanumeric, { version: 2 })).toBe(true);
      expect(isValidCnpj(generateCNPJ({ version: 2 }))).toBe(true);
    }
  });

  it('normalizes, formats and masks', () => {
    expect(normalizeCnpj('12.abc.345/01de-35')).toBe('12ABC34501DE35');
    expect(formatCnpj('12ABC34501DE35')).toBe('12.ABC.345/01DE-35');
    expect(maskCnpj('11.222.333/0001-81')).toBe('**.222.333/0001-**');
    expect(maskCnpj('12ABC34501DE35')).toBe('**.ABC.345/01DE-**');
    expect(formatCnpj('12345')).toBeNull();
  });
});

describe('formats and masks, character by character', () => {
  const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n });
  const alnum = fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'), minLength: 12, maxLength: 12 });

  it('puts a CPF\'s digits in place, and masks its first three and last two', () => {
    fc.assert(
      fc.property(digits(11), (d) => {
        expect(formatCpf(d)).toBe(`${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`);
        expect(maskCpf(d)).toBe(`***.${d.slice(3, 6)}.${d.slice(6, 9)}-**`);
        expect(maskCpf(formatCpf(d) as string)).toBe(maskCpf(d));
      }),
    );
  });

  it('puts a CNPJ\'s characters in place, and masks its first two and last two', () => {
    fc.assert(
      fc.property(alnum, digits(2), (body, check) => {
        const c = body + check;
        expect(formatCnpj(c)).toBe(`${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`);
        expect(maskCnpj(c)).toBe(`**.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-**`);
        expect(maskCnpj(formatCnpj(c) as string)).toBe(maskCnpj(c));
      }),
    );
  });
});
