/**
 * A random (version 4) UUID, for Idempotency-Key headers: WebCrypto's `randomUUID`, or the same
 * from `getRandomValues` where `randomUUID` is missing (a page served over plain http outside
 * localhost is not a secure context). `crypto` is read on the first key, not when the module
 * loads: on Node, that first read loads WebCrypto (about 4 ms of the cold start, issue 6).
 *
 * Not the `uuid` package: in a partner's browser app it cost 0.33 kB gzipped of the client's
 * 15 kB budget (its rng, stringify and validate modules) for what every runtime we support
 * does natively (docs/decisions.md, "Client core"). The sandbox still uses `uuid`.
 */
export function uuidv4(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80; // variant 10
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
