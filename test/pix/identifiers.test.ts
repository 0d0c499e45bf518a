import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidTxid, parseEndToEndId, type EndToEndIdReason } from 'pix-usdt/pix';

describe('parseEndToEndId', () => {
  it('reads a payment id: E, ISPB, yyyyMMddHHmm UTC, 11 alphanumerics', () => {
    expect(parseEndToEndId('E00038166202611231130abcDEF01234')).toEqual({
      valid: true,
      kind: 'payment',
      ispb: '00038166',
      createdAt: '2026-11-23T11:30:00.000Z',
      sequence: 'abcDEF01234',
    });
  });

  it('reads a refund id (D) and an alphanumeric ISPB', () => {
    expect(parseEndToEndId('D1A2B3C4D202402291159ZZZZZZZZZZZ')).toMatchObject({ valid: true, kind: 'refund', ispb: '1A2B3C4D', createdAt: '2024-02-29T11:59:00.000Z' });
  });

  const refused: [string, EndToEndIdReason][] = [
    ['E00038166202611231130abcDEF0123', 'invalid_length'],
    ['X00038166202611231130abcDEF01234', 'invalid_prefix'],
    ['E0003816a202611231130abcDEF01234', 'invalid_ispb'],
    ['E00038166202602301130abcDEF01234', 'invalid_timestamp'], // 30 February
    ['E00038166202613231130abcDEF01234', 'invalid_timestamp'], // month 13
    ['E00038166202611232430abcDEF01234', 'invalid_timestamp'], // hour 24
    ['E00038166202311291160abcDEF01234', 'invalid_timestamp'], // minute 60
    ['E00038166202611231130abcDEF0123-', 'invalid_sequence'],
  ];
  it.each(refused)('refuses %s: %s', (id, reason) => {
    expect(parseEndToEndId(id)).toMatchObject({ valid: false, reason });
  });

  it('reads back the minute of any id it is given', () => {
    const minute = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:00Z'), noInvalidDate: true }).map((d) => new Date(Math.floor(d.getTime() / 60_000) * 60_000));
    const alnum = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'), minLength: n, maxLength: n });
    fc.assert(
      fc.property(minute, fc.stringMatching(/^[0-9A-Z]{8}$/), alnum(11), (at, ispb, sequence) => {
        const stamp = at.toISOString().replace(/\D/g, '').slice(0, 12);
        expect(parseEndToEndId(`E${ispb}${stamp}${sequence}`)).toEqual({ valid: true, kind: 'payment', ispb, createdAt: at.toISOString(), sequence });
      }),
    );
  });
});

describe('isValidTxid', () => {
  it.each([
    ['PEDIDO123', 'static', true],
    ['A'.repeat(25), 'static', true],
    ['A'.repeat(26), 'static', false],
    ['', 'static', false],
    ['PEDIDO-123', 'static', false],
    ['a'.repeat(26), 'dynamic', true],
    ['7978c0c97ea847e78e8849634473c1f1', 'dynamic', true],
    ['A'.repeat(35), 'dynamic', true],
    ['A'.repeat(36), 'dynamic', false],
    ['A'.repeat(25), 'dynamic', false],
  ] as const)('%s as %s: %s', (txid, kind, valid) => {
    expect(isValidTxid(txid, kind)).toBe(valid);
  });
});
