/**
 * CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR),
 * the checksum of field 63 of a BR Code.
 * @module
 */

/**
 * The CRC-16/CCITT-FALSE of `text` as four upper-case hexadecimal digits, zero-padded.
 * Computed over the UTF-8 bytes of `text` (the same as its characters when it is ASCII, which
 * every BR Code built here is). For a BR Code, `text` is everything up to and including `6304`.
 *
 * @example
 * ```ts
 * crc16('123456789'); // '29B1', the check value of the algorithm
 * ```
 */
export function crc16(text: string): string {
  let crc = 0xffff;
  // A byte at a time (the polynomial's shifts written out): eight times fewer steps than a bit at a time.
  for (const byte of new TextEncoder().encode(text)) {
    let x = ((crc >> 8) ^ byte) & 0xff;
    x ^= x >> 4;
    crc = ((crc << 8) ^ (x << 12) ^ (x << 5) ^ x) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}
