import { getPixKeyInfo } from '@brazilian-utils/brazilian-utils';
import { describe, expect, it } from 'vitest';
import { PIX_EMAIL_MAX_LENGTH, detectPixKeyType, normalizePixKey, validatePixKey, type PixKeyReason, type PixKeyType } from 'pix-usdt/pix';

describe('detectPixKeyType', () => {
  it.each([
    ['52998224725', 'cpf'],
    ['529.982.247-25', 'cpf'],
    ['11222333000181', 'cnpj'],
    ['12.ABC.345/01DE-35', 'cnpj'],
    ['Pix@Example.com', 'email'],
    ['+5511999999999', 'phone'],
    ['123E4567-E12B-12D1-A456-426655440000', 'evp'],
    ['hello', null],
  ] as const)('%s is %s', (key, type) => {
    expect(detectPixKeyType(key)).toBe(type);
  });
});

describe('validatePixKey', () => {
  const accepted: [string, PixKeyType | undefined, PixKeyType, string][] = [
    ['529.982.247-25', 'cpf', 'cpf', '52998224725'],
    ['12.abc.345/01de-35', 'cnpj', 'cnpj', '12ABC34501DE35'],
    ['12ABC34501DE35', undefined, 'cnpj', '12ABC34501DE35'],
    [' Pix@Example.COM ', undefined, 'email', 'pix@example.com'],
    ['+55 11 99999-9999', undefined, 'phone', '+5511999999999'],
    ['(11) 99999-9999', 'phone', 'phone', '+5511999999999'],
    ['5511999999999', 'phone', 'phone', '+5511999999999'],
    ['(21) 3333-4444', 'phone', 'phone', '+552133334444'],
    ['123E4567-E12B-12D1-A456-426655440000', 'evp', 'evp', '123e4567-e12b-12d1-a456-426655440000'],
  ];
  it.each(accepted)('accepts %j as %s and stores it as the DICT does', (key, type, expectedType, stored) => {
    expect(validatePixKey(key, type)).toEqual({ valid: true, type: expectedType, key: stored });
    expect(normalizePixKey(key, type)).toBe(stored);
  });

  const refused: [string, PixKeyType | undefined, PixKeyReason][] = [
    ['', undefined, 'empty'],
    ['   ', 'cpf', 'empty'],
    ['52998224726', 'cpf', 'invalid_check_digits'],
    ['12ABC34501DE36', 'cnpj', 'invalid_check_digits'],
    ['1234', 'cpf', 'invalid_format'],
    ['12ABC34501DE3X', 'cnpj', 'invalid_format'],
    [`${'a'.repeat(PIX_EMAIL_MAX_LENGTH - 11)}@example.com`, 'email', 'too_long'],
    ['not an e-mail@', 'email', 'invalid_format'],
    ['+1 202 555 0100', 'phone', 'invalid_format'],
    ['+5501999999999', 'phone', 'invalid_format'],
    ['123e4567e12b12d1a456426655440000', 'evp', 'invalid_format'],
    ['hello', undefined, 'unknown_type'],
  ];
  it.each(refused)('refuses %j (%s) with reason %s', (key, type, reason) => {
    const result = validatePixKey(key, type);
    expect(result).toMatchObject({ valid: false, reason });
    expect(normalizePixKey(key, type)).toBeNull();
  });

  it('accepts an e-mail of exactly 77 characters', () => {
    const email = `${'a'.repeat(PIX_EMAIL_MAX_LENGTH - 12)}@example.com`;
    expect(email).toHaveLength(77);
    expect(validatePixKey(email).valid).toBe(true);
  });

  it('agrees with brazilian-utils on the keys both read', () => {
    for (const key of ['52998224725', '12ABC34501DE35', '11222333000181', 'pix@example.com', '+5511999999999', '123e4567-e12b-12d1-a456-426655440000']) {
      const ours = validatePixKey(key);
      expect(ours.valid && { type: ours.type, value: ours.key }).toEqual(getPixKeyInfo(key));
    }
  });
});
