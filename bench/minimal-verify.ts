/**
 * The limit of a WebCrypto webhook verifier (issue 22): the least work `constructEvent` must do
 * for one delivery, written as plainly as it can be, with nothing a real receiver needs beyond
 * it (no reasons, no header variants, no tolerance check, no typed errors):
 *
 * 1. parse the header (`t=<unix>,v1=<64 hex>`, assumed well formed);
 * 2. one HMAC-SHA256 over the bytes of `{t}.{body}`, with a key imported once;
 * 3. `JSON.parse` of the body, while the HMAC runs (as ours does).
 *
 * In two forms: `subtle.sign` then a constant-time compare with the `v1=` bytes, and
 * `subtle.verify` with them (WebCrypto compares). The bench takes the faster one of each round as
 * the limit. The browser bench (bench/webhooks-browser.ts) bundles this very module into its page.
 */
export interface MinimalVerifier {
  withSign(body: string, header: string): Promise<unknown>;
  withVerify(body: string, header: string): Promise<unknown>;
}

/** A minimal verifier for `secret`, its key imported once (for `sign` and `verify`). */
export async function minimalVerifier(secret: string): Promise<MinimalVerifier> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  function parse(header: string): { t: string; signature: Uint8Array<ArrayBuffer> } {
    const comma = header.indexOf(',');
    const hex = header.slice(comma + 4, comma + 68);
    const signature = new Uint8Array(32);
    for (let i = 0; i < 32; i++) signature[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return { t: header.slice(2, comma), signature };
  }
  return {
    async withSign(body, header) {
      const { t, signature } = parse(header);
      const mac = crypto.subtle.sign('HMAC', key, encoder.encode(`${t}.${body}`));
      const event: unknown = JSON.parse(body);
      const bytes = new Uint8Array(await mac);
      let diff = 0;
      for (let i = 0; i < 32; i++) diff |= (bytes[i] as number) ^ (signature[i] as number);
      if (diff !== 0) throw new Error('no matching signature');
      return event;
    },
    async withVerify(body, header) {
      const { t, signature } = parse(header);
      const ok = crypto.subtle.verify('HMAC', key, signature, encoder.encode(`${t}.${body}`));
      const event: unknown = JSON.parse(body);
      if (!(await ok)) throw new Error('no matching signature');
      return event;
    },
  };
}
