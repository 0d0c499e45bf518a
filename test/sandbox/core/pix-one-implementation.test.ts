/**
 * Issue 14, "One implementation": the sandbox's Pix is pix-usdt/pix's. Alphanumeric CNPJ keys
 * resolve, every pix_qr_code it issues passes validateBrCode, every pix_e2e_id passes
 * parseEndToEndId, and its public document checks are the toolkit's functions.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as pix from '../../../src/pix/index.js';
import { createSandbox, isValidCnpj, isValidCpf, SANDBOX_PIX_EVP, SANDBOX_PIX_PHONE } from '../../../src/sandbox/index.js';
import { approvedUser, raw } from '../raw.js';
import { offrampBody, onrampBody } from '../../support/fixtures.js';

const START = '2026-05-01T00:00:00Z';

describe('the sandbox uses pix-usdt/pix', () => {
  it('resolves an alphanumeric CNPJ Pix key (12ABC34501DE35) in an offramp quote, and refuses a wrong check digit', async () => {
    const sb = createSandbox({ seed: 'pix-cnpj', now: START });
    const userId = await approvedUser(sb);
    const quote = await raw(sb, 'POST', '/v1/quotes', { ...offrampBody(userId), pix_key: '12ABC34501DE35', pix_key_type: 'cnpj' });
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    expect(quote.body.pix_key_verified_at).toBe(new Date(START).toISOString());
    expect(quote.body.pix_holder_name).toMatch(/\(Sandbox\)$/);
    expect(quote.body.pix_holder_document_masked).toBe(pix.maskCnpj('12ABC34501DE35'));
    const punctuated = await raw(sb, 'POST', '/v1/quotes', { ...offrampBody(userId), pix_key: '12.abc.345/01de-35', pix_key_type: 'cnpj' });
    expect(punctuated.status).toBe(201);
    expect(punctuated.body.pix_holder_name).toBe(quote.body.pix_holder_name);
    const wrong = await raw(sb, 'POST', '/v1/quotes', { ...offrampBody(userId), pix_key: '12ABC34501DE36', pix_key_type: 'cnpj' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe('pix_key_not_found');
  });

  it('reads keys as normalizePixKey does: a phone in national form resolves to the fixture', async () => {
    const sb = createSandbox({ seed: 'pix-phone', now: START });
    const userId = await approvedUser(sb);
    expect(pix.normalizePixKey('(11) 99999-9999', 'phone')).toBe(SANDBOX_PIX_PHONE);
    const national = await raw(sb, 'POST', '/v1/quotes', { ...offrampBody(userId), pix_key: '(11) 99999-9999', pix_key_type: 'phone' });
    expect(national.status, JSON.stringify(national.body)).toBe(201);
    const other = await raw(sb, 'POST', '/v1/quotes', { ...offrampBody(userId), pix_key: '(11) 99999-9998', pix_key_type: 'phone' });
    expect(other.body.code).toBe('pix_key_not_found');
  });

  it("exports the toolkit's document checks, not copies", () => {
    expect(isValidCpf).toBe(pix.isValidCpf);
    expect(isValidCnpj).toBe(pix.isValidCnpj);
  });

  it('every pix_qr_code it issues passes validateBrCode and every pix_e2e_id passes parseEndToEndId', async () => {
    const sb = createSandbox({ seed: 'pix-codes', now: START });
    sb.setLimits({ user: { daily: '100000000.00', monthly: '100000000.00' } });
    const userId = await approvedUser(sb);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1_000, max: 400_000_000 }).map((cents) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`),
        fc.integer({ min: 61, max: 3 * 86_400 }),
        fc.boolean(),
        async (brl, seconds, onramp) => {
          // Past the quote rate limit's one-minute window, and across minutes and days for the e2e id.
          await sb.clock.advance({ seconds });
          const body = onramp ? onrampBody(userId, brl) : offrampBody(userId, (Number(brl) / 100 + 1).toFixed(6));
          const quote = await raw(sb, 'POST', '/v1/quotes', body);
          expect(quote.status, JSON.stringify(quote.body)).toBe(201);
          const accepted = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`);
          expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
          const conversion = accepted.body;
          if (onramp) {
            const check = pix.validateBrCode(conversion.pix_qr_code);
            expect(check, conversion.pix_qr_code).toMatchObject({ valid: true, brCode: { amount: conversion.expected_source_amount, key: SANDBOX_PIX_EVP, singleUse: true } });
          } else expect(conversion.pix_qr_code).toBeNull();
          const helper = onramp ? 'simulate-onramp-pix-paid' : 'simulate-offramp-deposit';
          const paid = await raw(sb, 'POST', `/v1/test_helpers/conversions/${conversion.id}/${helper}`, { settle: true });
          expect(paid.status, JSON.stringify(paid.body)).toBe(200);
          const after = (await raw(sb, 'GET', `/v1/conversions/${conversion.id}`)).body;
          const e2e = pix.parseEndToEndId(after.pix_e2e_id);
          expect(e2e, after.pix_e2e_id).toMatchObject({ valid: true, kind: 'payment' });
          // The id carries the minute the Pix moved, on the sandbox clock.
          expect(Math.abs(Date.parse((e2e as pix.EndToEndId).createdAt) - sb.clock.now().getTime())).toBeLessThan(60_000);
          n++;
        },
      ),
      { numRuns: 25, seed: 14 },
    );
    expect(n).toBe(25);
  });

  it('the pix_qr_code of a transaction (POST /v1/transactions) passes validateBrCode', async () => {
    const sb = createSandbox({ seed: 'pix-tx', now: START });
    const userId = await approvedUser(sb);
    const quote = await raw(sb, 'POST', '/v1/quotes', onrampBody(userId, '123.45'));
    const tx = await raw(sb, 'POST', '/v1/transactions', { quote_id: quote.body.id });
    expect(tx.status, JSON.stringify(tx.body)).toBe(201);
    expect(pix.validateBrCode(tx.body.pix_qr_code)).toMatchObject({ valid: true, brCode: { amount: '123.45' } });
  });
});
