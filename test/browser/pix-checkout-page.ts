// Runs inside Chromium: an onramp checkout as a partner would write it. It creates a conversion
// against the in-page sandbox, shows the Pix QR code (brCodeToSvg) and the copy-paste string
// ("Pix copia e cola"), all from the built package (dist/), bundled for the browser.
import { brCodeToSvg, parseBrCode, validateBrCode } from 'pix-usdt/pix';
import { onrampConversion } from '../pix/onramp.js';

async function checkout() {
  const { quote, conversion } = await onrampConversion();
  const code = conversion.pix_qr_code as string;

  // What the checkout shows: amount and receiver from the code itself, the QR, the copy-paste text.
  const checked = validateBrCode(code);
  const brCode = parseBrCode(code).brCode;
  document.body.innerHTML = `
    <main style="font-family: system-ui, sans-serif; max-width: 420px; margin: 24px auto; padding: 24px; border: 1px solid #ddd; border-radius: 12px; text-align: center">
      <h1 style="font-size: 20px; margin: 0 0 4px">Pague com Pix</h1>
      <p style="margin: 0 0 16px; color: #555">R$ <strong id="amount"></strong> para <span id="receiver"></span></p>
      <div id="qr"></div>
      <p style="margin: 16px 0 4px; color: #555">Pix copia e cola</p>
      <textarea id="copy" readonly rows="4" style="width: 100%; font-family: monospace; font-size: 11px"></textarea>
      <button id="copy-button" type="button" style="margin-top: 8px; padding: 8px 16px">Copiar código</button>
      <p style="margin: 16px 0 0; color: #888; font-size: 12px">Você recebe <span id="usdt"></span> USDT · conversão <span id="conversion"></span></p>
    </main>`;
  const set = (id: string, text: string): void => {
    (document.getElementById(id) as HTMLElement).textContent = text;
  };
  set('amount', brCode?.amount ?? '');
  set('receiver', brCode?.merchantName ?? '');
  set('usdt', quote.net_target_amount ?? '');
  set('conversion', conversion.id);
  (document.getElementById('qr') as HTMLElement).innerHTML = brCodeToSvg(code, { size: 240, title: 'QR code Pix' });
  (document.getElementById('copy') as HTMLTextAreaElement).value = code;
  return { conversionId: conversion.id, pixQrCode: code, valid: checked.valid };
}

(globalThis as { __checkout?: Promise<unknown> }).__checkout = checkout().catch((error: unknown) => ({
  error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
}));
