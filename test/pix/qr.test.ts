// brCodeToSvg's image decodes back to its text: the SVG is rasterized by resvg (an SVG renderer
// of its own, not our code) and read by jsQR (a QR decoder independent of the encoder we use).
import { Resvg } from '@resvg/resvg-js';
import fc from 'fast-check';
import jsQR from 'jsqr';
import { describe, expect, it } from 'vitest';
import { brCodeToSvg, buildBrCode, isBrCodeError, parseEndToEndId, validateBrCode } from 'pix-usdt/pix';
import { onrampConversion } from './onramp.js';

/** The text of the QR code in an SVG image, as a phone camera would read it (or null). */
function decodeSvg(svg: string): string | null {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: 400 } }).render();
  return jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height)?.data ?? null;
}

const STATIC = buildBrCode({ key: 'pix@example.com', merchantName: 'LOJA EXEMPLO', merchantCity: 'SAO PAULO', amount: '10.00', txid: 'PEDIDO123' });

describe('brCodeToSvg', () => {
  it('draws a QR code that decodes back to the BR Code', () => {
    const svg = brCodeToSvg(STATIC);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="256" height="256" viewBox="0 0 \d+ \d+"/);
    expect(decodeSvg(svg)).toBe(STATIC);
  });

  it('decodes with every option a partner may set', () => {
    const svg = brCodeToSvg(STATIC, { size: 180, margin: 2, color: '#1a1a2e', background: '#fafafa', errorCorrection: 'H', title: 'Pague com Pix <R$ 10>' });
    expect(svg).toContain('width="180"');
    expect(svg).toContain('aria-label="Pague com Pix &#60;R$ 10&#62;"');
    expect(decodeSvg(svg)).toBe(STATIC);
  });

  it('decodes for any BR Code built from random inputs', () => {
    const ascii = (max: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: max });
    fc.assert(
      fc.property(ascii(25), ascii(15), fc.integer({ min: 1, max: 99_999_999 }), (merchantName, merchantCity, cents) => {
        const amount = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
        const code = buildBrCode({ key: '12ABC34501DE35', merchantName, merchantCity, amount });
        expect(decodeSvg(brCodeToSvg(code))).toBe(code);
      }),
      { numRuns: 15 },
    );
  });

  it('refuses to draw an invalid BR Code unless told not to validate', () => {
    const broken = `${STATIC.slice(0, -4)}0000`;
    expect(() => brCodeToSvg(broken)).toThrow(expect.objectContaining({ name: 'BrCodeError', reason: 'crc_mismatch' }));
    let thrown: unknown;
    try {
      brCodeToSvg(broken);
    } catch (error) {
      thrown = error;
    }
    expect(isBrCodeError(thrown)).toBe(true);
    expect(decodeSvg(brCodeToSvg('https://example.com', { validate: false }))).toBe('https://example.com');
  });
});

describe("the sandbox's Pix identifiers", () => {
  it("issues a pix_qr_code that validateBrCode accepts and whose QR image decodes to it", async () => {
    const { conversion } = await onrampConversion();
    const code = conversion.pix_qr_code as string;
    const result = validateBrCode(code);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.valid && result.brCode.amount).toBe('250.00');
    expect(decodeSvg(brCodeToSvg(code))).toBe(code);
  });

  it('issues a pix_e2e_id that parseEndToEndId accepts', async () => {
    const { client, conversion } = await onrampConversion();
    const paid = await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { settle: true });
    expect(parseEndToEndId(paid.pix_e2e_id as string)).toMatchObject({ valid: true, kind: 'payment' });
  });
});
