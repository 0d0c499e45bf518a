/**
 * The QR image of a BR Code as an SVG string. The QR encoding is uqr's (unjs/uqr, zero
 * dependencies); this module only draws its module matrix. It is the only module of
 * `pix-usdt/pix` that imports uqr, so a partner who does not call {@link brCodeToSvg} does not ship it.
 * @module
 */
import { encode } from 'uqr';
import { BrCodeError, validateBrCode, type BrCodeIssue } from './brcode.js';

/** Options of {@link brCodeToSvg}. */
export interface BrCodeSvgOptions {
  /** Width and height of the image in CSS pixels. Default 256. */
  size?: number;
  /** Quiet zone around the code, in modules. Default 4 (what the QR standard asks for). */
  margin?: number;
  /** Colour of the dark modules. Default `#000`. Keep the contrast high: scanners need it. */
  color?: string;
  /** Colour of the background, drawn as a rectangle so that the image does not depend on the page's. Default `#fff`. */
  background?: string;
  /** QR error correction level. Default `M` (15 %), what Pix QR codes usually use. */
  errorCorrection?: 'L' | 'M' | 'Q' | 'H';
  /** Accessible name of the image (`aria-label` and `<title>`). Default `Pix QR code`. */
  title?: string;
  /**
   * Check the text with `validateBrCode` first and throw a {@link BrCodeError} when it is not a
   * valid BR Code (default true). Pass false to draw any text.
   */
  validate?: boolean;
}

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A scannable QR code of `text` (a BR Code, the conversion's `pix_qr_code`) as a standalone SVG
 * document: put it in the page with `innerHTML`, or in an `<img>` as a data URL. It has explicit
 * `width` and `height`, a background rectangle and one `<path>` of crisp-edged modules.
 *
 * @throws {@link BrCodeError} when `text` is not a valid BR Code (unless `validate: false`).
 *
 * @example
 * ```ts
 * import { brCodeToSvg } from 'pix-usdt/pix';
 * qrContainer.innerHTML = brCodeToSvg(conversion.pix_qr_code, { size: 240 });
 * ```
 */
export function brCodeToSvg(text: string, options: BrCodeSvgOptions = {}): string {
  if (options.validate !== false) {
    const result = validateBrCode(text);
    if (!result.valid) throw new BrCodeError(result.errors[0] as BrCodeIssue);
  }
  const margin = options.margin ?? 4;
  const size = options.size ?? 256;
  const title = escape(options.title ?? 'Pix QR code');
  const { data } = encode(text, { ecc: options.errorCorrection ?? 'M', border: 0 });
  // One sub-path per horizontal run of dark modules: far smaller than one rectangle per module.
  let path = '';
  data.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      if (!row[x]) continue;
      const start = x;
      while (row[x + 1]) x++;
      path += `M${start + margin} ${y + margin}h${x - start + 1}v1h-${x - start + 1}z`;
    }
  });
  const extent = data.length + 2 * margin;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${extent} ${extent}" shape-rendering="crispEdges" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    `<rect width="${extent}" height="${extent}" fill="${escape(options.background ?? '#fff')}"/>` +
    `<path d="${path}" fill="${escape(options.color ?? '#000')}"/>` +
    `</svg>`
  );
}
