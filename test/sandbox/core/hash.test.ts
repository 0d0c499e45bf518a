// The idempotency fingerprint is kept in snapshots: its one-pass form must give the value the
// two cyrb53 passes gave (issue 22), or a key replayed after a restore would read as reused.
import { describe, expect, it } from 'vitest';
import { hash53, hashHex } from '../../../src/sandbox/core/random.js';

const twoPasses = (text: string): string => hash53(text, 1).toString(16).padStart(14, '0') + hash53(text, 2).toString(16).padStart(14, '0');

describe('hashHex', () => {
  it('equals two cyrb53 passes with seeds 1 and 2', () => {
    for (const text of ['', 'a', 'POST /v1/users\n{"name":"Zoë"}', 'x'.repeat(5000), '\u{1F600}\u0000\uFFFF']) {
      expect(hashHex(text)).toBe(twoPasses(text));
    }
    expect(hashHex('POST /v1/users\n{}')).not.toBe(hashHex('POST /v1/users\n{ }'));
  });
});
