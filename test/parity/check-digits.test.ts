/**
 * Parity's own CPF and CNPJ check digits (src/parity/check-digits.ts): one private helper behind
 * the fixtures the scenarios create (`cpfFrom`, `cnpjFrom`) and the redaction of cassettes
 * (`isCpf`). Parity shares no code with the sandbox on purpose; here, in a test, the Pix toolkit's
 * validators are the independent judge, with values published by the Receita Federal's rules.
 */
import { describe, expect, it } from 'vitest';
import { cnpjFrom, cpfFrom, isCpf } from '../../src/parity/check-digits.js';
import { isValidCnpj, isValidCpf } from '../../src/pix/index.js';

describe("parity's check digits", () => {
  it('completes known documents', () => {
    expect(cpfFrom('529982247')).toBe('52998224725');
    expect(cpfFrom('12345678')).toBe('01234567890'); // padded to 9 base digits
    expect(cnpjFrom('112223330001')).toBe('11222333000181');
  });

  it('agrees with the Pix toolkit on every base it tries', () => {
    for (let n = 0; n < 2_000; n++) {
      const base = String((n * 7_919_113) % 1_000_000_000).padStart(9, '0');
      const cpf = cpfFrom(base);
      expect(isValidCpf(cpf) || /^(\d)\1{10}$/.test(cpf), cpf).toBe(true);
      expect(isCpf(cpf), cpf).toBe(!/^(\d)\1{10}$/.test(cpf));
      const cnpj = cnpjFrom(`${base}${String(n % 1000).padStart(3, '0')}`);
      expect(isValidCnpj(cnpj) || /^(\d)\1{13}$/.test(cnpj), cnpj).toBe(true);
    }
  });

  it('isCpf refuses a wrong check digit, a wrong length, letters and one repeated digit', () => {
    expect(isCpf('52998224725')).toBe(true);
    expect(isCpf('52998224726')).toBe(false);
    expect(isCpf('52998224735')).toBe(false);
    expect(isCpf('5299822472')).toBe(false);
    expect(isCpf('5299822472a')).toBe(false);
    expect(isCpf('11111111111')).toBe(false); // valid check digits, refused as a CPF
  });
});
